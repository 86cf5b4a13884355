#!/usr/bin/env bash
# Notebook 6.4's own REST API tests (notebook/services/*/tests/test_*_api.py from Debian's
# python3-notebook, read in place and unchanged) against the built nbserve under the base URL
# /a%40b/. Fails when a test fails that docs/compatibility.md does not name as an allowed failure.
# The last line is `conformance: P passed, F failed, E errors of N`.
#
#   scripts/conformance.sh                       # build, then every test file (about a minute)
#   CONFORMANCE_FILES=contents/tests/test_contents_api.py scripts/conformance.sh -k upload
#
# Env: CONFORMANCE_FILES (files under notebook/services/), CONFORMANCE_JOBS (pytest processes at
# once, default 6), CONFORMANCE_SKIP_BUILD=1 (use the existing build), CONFORMANCE_KEEP_LOGS=<dir>
# (keep every server's log). Extra arguments go to every pytest run.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
PY=/usr/bin/python3
TESTS=/usr/lib/python3/dist-packages/notebook/services
# the slowest first (kernel starts, a culling test that waits), so the run ends soon after them
FILES="${CONFORMANCE_FILES:-kernels/tests/test_kernels_api.py sessions/tests/test_sessions_api.py contents/tests/test_contents_api.py kernelspecs/tests/test_kernelspecs_api.py config/tests/test_config_api.py nbconvert/tests/test_nbconvert_api.py api/tests/test_api.py}"

if ! "$PY" -c 'import notebook, pytest, requests, websocket' 2>/dev/null || [ ! -d "$TESTS" ]; then
  echo "conformance: Notebook 6.4's tests need Debian's python3-notebook python3-pytest python3-requests python3-websocket (bash scripts/ensure-debian-packages.sh)" >&2
  exit 1
fi
if [ "${CONFORMANCE_SKIP_BUILD:-0}" != 1 ]; then
  pnpm build >/dev/null
fi

WORK="$(mktemp -d /tmp/nbserve-conformance.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# One pytest process per test class of the big files and per file for the rest, a few at once:
# every class starts its own server, so they are independent.
jobs=()
for file in $FILES; do
  [ -f "$TESTS/$file" ] || { echo "conformance: no such test file: $TESTS/$file" >&2; exit 1; }
  case "$file" in
    contents/* | kernels/* | sessions/*)
      for class in $(sed -n 's/^class \([A-Za-z0-9_]*Test\)(.*/\1/p' "$TESTS/$file"); do jobs+=("$TESTS/$file::$class"); done ;;
    *) jobs+=("$TESTS/$file") ;;
  esac
done

run_job() { # <index> <pytest target> [pytest args...]
  local index=$1 target=$2
  shift 2
  # the tests are read in place: nothing may be written next to them
  (cd "$WORK" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$REPO/scripts/conformance" NBSERVE_REPO="$REPO" \
    CONFORMANCE_RESULT="$WORK/job-$index.json" timeout -k 10 300 "$PY" -m pytest -p nbserve_conformance \
    -p no:cacheprovider --rootdir="$WORK" -c /dev/null -q --tb=short -rN -W ignore::DeprecationWarning "$@" "$target" \
    </dev/null >"$WORK/job-$index.log" 2>&1) || true
}

max="${CONFORMANCE_JOBS:-6}"
index=0
for target in "${jobs[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$max" ]; do wait -n || true; done
  run_job "$index" "$target" "$@" &
  index=$((index + 1))
done
wait

results=()
for ((i = 0; i < index; i++)); do results+=("$WORK/job-$i.json"); done
"$PY" "$REPO/scripts/conformance/report.py" "$REPO/docs/compatibility.md" "${results[@]}"
