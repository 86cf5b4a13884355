#!/usr/bin/env bash
# Installs what the repo needs on a fresh machine: pnpm (pinned) and the workspace packages.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "10.34.9" ]; then
  npm install -g pnpm@10.34.9 >/dev/null 2>&1 || npm install -g pnpm@10.34.9
fi
pnpm install --frozen-lockfile --reporter=silent
# JupyterLab, served at /lab: built from the npm packages once (about a minute), then skipped while
# its inputs (packages/jupyterlab, the lockfile) are unchanged.
node packages/jupyterlab/scripts/build.mjs
