#!/usr/bin/env bash
# Installs the Debian packages the tests run against (real kernels, a real browser, the reference
# servers for benchmarks). As root it installs them; otherwise it prints the exact line and fails.
set -euo pipefail
# pandoc: nbconvert needs it for rst and latex (a Recommends of python3-nbconvert, so named here)
# python3-notebook python3-pytest python3-requests python3-websocket: Notebook 6.4's REST tests and
# what they run with (scripts/conformance.sh)
# jupyterhub (3.0, with node-configurable-http-proxy): the hub end-to-end test (testing/jupyterhub.ts)
PACKAGES=(python3-ipykernel chromium python3-jupyter-server jupyter-notebook python3-nbconvert pandoc python3-ipyparallel jupyter-console python3-docutils python3-notebook python3-pytest python3-requests python3-websocket jupyterhub)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "nbserve tests need Debian packages that are not installed. Run as root:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
