#!/usr/bin/env bash
# The README's test command: sets everything up, then runs every check (typecheck, lint, tests,
# and Notebook 6.4's REST tests against the built server).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-debian-packages.sh
bash scripts/ensure-tools.sh
pnpm typecheck
pnpm lint
pnpm test
bash scripts/conformance.sh
