#!/usr/bin/env bash
# Every test of the project, from a fresh machine: installs what is missing, then lints,
# builds, type-checks and runs every package's tests.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
pnpm exec biome ci .
pnpm exec turbo run build typecheck test --output-logs=new-only

# End to end: the built web app on the built BFF (turbo built both above) in Debian's Chromium.
# Playwright never downloads a browser here; install Debian's when it is missing (about a minute).
[ -x /usr/bin/chromium ] || { echo "installing Debian chromium" >&2; apt-get update >&2 && apt-get install -y chromium >&2; }
pnpm --filter @mgpu/e2e e2e
