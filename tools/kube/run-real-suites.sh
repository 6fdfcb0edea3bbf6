#!/usr/bin/env bash
# Runs, against the cluster in MGPU_TEST_KUBECONFIG, tools/kube's own tests and every test file
# in the workspace that honours MGPU_TEST_KUBECONFIG (the embedded cluster's API conformance and
# kubectl tests, later the BFF's). Called by test-real.sh through with-real-cluster.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
log() { printf '[real-suites] %s\n' "$*" >&2; }
if [[ -z "${MGPU_TEST_KUBECONFIG:-}" ]]; then
  log "MGPU_TEST_KUBECONFIG is not set: run me through tools/kube/with-real-cluster.sh"
  exit 2
fi

log "tools/kube: server, nodes, CRD, kube-controller-manager, RBAC"
(cd tools/kube && pnpm exec vitest run)

# Group the switching suites by workspace package (the folder above src/).
declare -A byPackage=()
while IFS= read -r file; do
  [[ -n "$file" ]] || continue
  pkg="${file%%/src/*}"
  byPackage["$pkg"]+=" ${file#"$pkg"/}"
done < <(grep -rl --include='*.test.ts' --exclude-dir=node_modules MGPU_TEST_KUBECONFIG \
  apps packages e2e 2>/dev/null | sort)

for pkg in "${!byPackage[@]}"; do
  log "$pkg against real Kubernetes:${byPackage[$pkg]}"
  # shellcheck disable=SC2086 # space-separated repo paths, none with spaces
  (cd "$pkg" && pnpm exec vitest run ${byPackage[$pkg]})
done
