#!/usr/bin/env bash
# Starts the console: installs what is missing, builds, then runs the BFF on the cluster the
# environment names (KUBECONFIG, ~/.kube/config, in-cluster) or, with none, on the embedded
# mGPU cluster, at http://127.0.0.1:8080 (or $PORT). Arguments go to the BFF (`npm start -- --help`
# lists them: --port, --token, --kubeconfig, --embedded, --trust-proxy, …).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
pnpm exec turbo run build --output-logs=errors-only >&2
exec node apps/bff/dist/main.js "$@"
