#!/usr/bin/env bash
# Every benchmark (or those matching the arguments), printing medians, p95/p99 and ratios
# against a baseline measured in the same run. Figures only: nothing here passes or fails on time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
pnpm --filter @mgpu/bench bench "$@"
