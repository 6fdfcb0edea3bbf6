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

# Every workspace package with a test helper or test that switches on MGPU_TEST_KUBECONFIG runs
# its whole vitest suite: the switching ones use the real cluster, the rest are unaffected.
mapfile -t packages < <(grep -rl --include='*.ts' --exclude-dir=node_modules --exclude-dir=dist \
  MGPU_TEST_KUBECONFIG apps packages e2e 2>/dev/null \
  | sed -E 's#^((apps|packages)/[^/]+|e2e)/.*#\1#' | sort -u)

known="$root/tools/kube/known-differences.txt"
status=0
for pkg in "${packages[@]}"; do
  args=(run)
  if [[ -z "${MGPU_REAL_STRICT:-}" ]]; then
    # Known differences (real-differences.md) are skipped by title, loudly, one by one.
    mapfile -t skipped < <(sed -n "s#^$pkg: ##p" "$known")
    if ((${#skipped[@]} > 0)); then
      alternatives=""
      for title in "${skipped[@]}"; do
        log "SKIPPED against real, known difference (tools/kube/real-differences.md): $pkg: $title"
        escaped="$(printf '%s' "$title" | sed 's/[][\\.*^$+?(){}|/]/\\&/g')"
        alternatives+="${alternatives:+|}$escaped"
      done
      args+=(--testNamePattern "^(?!.*(?:$alternatives)).*$")
    fi
  fi
  kubeconfig="$MGPU_TEST_KUBECONFIG"
  if [[ "$pkg" == apps/bff ]]; then
    # The BFF is the console: its suite runs as the mgpu-console user, bound only to
    # rbac/console-clusterrole.yaml, which proves the role suffices for the console's calls.
    kubeconfig="$MGPU_TEST_KUBECONFIG.console"
    # Tests that change the cluster as an administrator would (add a node) use this context.
    export MGPU_TEST_ADMIN_CONTEXT="$(sed -n 's/^current-context: //p' "$MGPU_TEST_KUBECONFIG")"
    sed 's/^current-context: .*/current-context: mgpu-real-console/' "$MGPU_TEST_KUBECONFIG" >"$kubeconfig"
  fi
  log "$pkg against real Kubernetes (kubeconfig context: $(sed -n 's/^current-context: //p' "$kubeconfig"))"
  # Keep going: one report of every package that differs from real Kubernetes.
  if [[ "$pkg" == e2e ]]; then
    # The Playwright smoke, once its web server passes MGPU_TEST_KUBECONFIG on to the BFF.
    (cd e2e && MGPU_TEST_KUBECONFIG="$kubeconfig" pnpm run e2e) || status=1
    # Specs only this tier can serve (--auth oidc through the tier's issuer): a config of their own.
    log "e2e: real-tier-only specs (playwright.real.config.ts)"
    (cd e2e && MGPU_TEST_KUBECONFIG="$kubeconfig" pnpm exec playwright test --config playwright.real.config.ts) || status=1
  else
    (cd "$pkg" && MGPU_TEST_KUBECONFIG="$kubeconfig" pnpm exec vitest "${args[@]}") || status=1
  fi
  if [[ -f "$pkg/vitest.real.config.ts" ]]; then
    # Tests only this tier can serve (apps/bff: per-operator sign-in and RBAC, *.real.test.ts).
    log "$pkg: real-tier-only tests"
    (cd "$pkg" && MGPU_TEST_KUBECONFIG="$kubeconfig" pnpm exec vitest run --config vitest.real.config.ts) || status=1
  fi
done
exit "$status"
