#!/usr/bin/env bash
# Starts what the console has so far. Until the BFF lands this checks the seed's example with
# the mgpu CLI and prints the Deployment it would create.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
example='{"name":"demo","computePolicy":"native-burst-share","containers":[{"name":"worker","image":"nginx:1.27","gpu":{"type":"mgpu","multiCard":true,"compute":"1.2","memoryGiB":"8","cards":2}}]}'
echo "$example" | pnpm --silent mgpu check
echo "$example" | pnpm --silent mgpu manifest
