#!/usr/bin/env bash
# Every test of the project, from a fresh machine: installs what is missing, then lints,
# builds, type-checks and runs every package's tests.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
pnpm exec biome ci .
pnpm exec turbo run build typecheck test --output-logs=new-only
