#!/usr/bin/env bash
# Every test of the project, from a fresh machine: installs what is missing, then lints,
# builds, type-checks and runs every package's tests.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
pnpm exec biome ci .
pnpm exec turbo run build typecheck --output-logs=errors-only
# The usage tests (issue 28) scrape with Debian's real Prometheus; install it when missing, as
# Chromium below. Each test starts its own on a free port; a service the package starts is unused.
[ -x /usr/bin/prometheus ] || { echo "installing Debian prometheus" >&2; apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus >&2; }
# One package's suite at a time: each starts clusters, servers and processes, and on 2 cores
# running them side by side only makes every one of them slow.
pnpm exec turbo run test --concurrency=1 --output-logs=new-only

# End to end: the built web app on the built BFF (turbo built both above) in Debian's Chromium.
# Playwright never downloads a browser here; install Debian's when it is missing (about a minute).
[ -x /usr/bin/chromium ] || { echo "installing Debian chromium" >&2; apt-get update >&2 && apt-get install -y chromium >&2; }
pnpm --filter @mgpu/e2e e2e

# --- Real Kubernetes tier (issue 5; README "Tests against real Kubernetes") -----------------
# Upstream etcd, kube-apiserver and kube-controller-manager v1.32.13 built from Go modules
# (cold: about half an hour, niced; then reused from ~/.cache/mgpu-console), and the suites
# that switch on MGPU_TEST_KUBECONFIG run against them.
bash tools/kube/test-real.sh
