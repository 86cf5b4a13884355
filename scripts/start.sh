#!/usr/bin/env bash
# The README's run command: sets up, then serves examples/notebooks (extra arguments go to nbserve).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
exec pnpm --silent nbserve examples/notebooks "$@"
