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

# CI shows only the tail of this run, and a failing part may be long past: every part's output
# is also kept, and the end names each part that failed with its failure report.
logs="$(mktemp -d "${TMPDIR:-/tmp}/mgpu-real-suites-XXXXXX")"
trap 'rm -rf "$logs"' EXIT
failed=()
failed_logs=()
parts=0
# part NAME CMD...: runs CMD, its output shown and kept; a failure is remembered, not fatal.
part() {
  local name="$1" kept
  shift
  parts=$((parts + 1))
  kept="$logs/$parts.log"
  log "$name"
  if ! "$@" 2>&1 | tee "$kept"; then
    failed+=("$name")
    failed_logs+=("$kept")
  fi
}
# The failure report of a kept log: vitest's "Failed Tests" or Playwright's numbered failures
# to the end, else the log's tail; without colours, at most 150 lines.
failure_report() {
  sed 's/\x1b\[[0-9;]*m//g' "$1" | awk '
    /Failed Tests|^  1\) / { found = 1 }
    found { print; next }
    { tail[NR % 40] = $0 }
    END { if (!found) for (i = NR - 39; i <= NR; i++) if (i > 0) print tail[i % 40] }
  ' | head -n 150
}

part "tools/kube: server, nodes, CRD, kube-controller-manager, RBAC" \
  bash -c 'cd tools/kube && exec pnpm exec vitest run --no-file-parallelism'

# Every workspace package with a test helper or test that asks the test-cluster switch
# (@mgpu/shared/test-tier, or a file still reading MGPU_TEST_KUBECONFIG itself) runs its whole
# vitest suite: the switching ones use the real cluster, the rest are unaffected. The switch's
# own file is not a user: shared's suite never touches a cluster.
mapfile -t packages < <(grep -rlE --include='*.ts' --exclude-dir=node_modules --exclude-dir=dist \
  --exclude=test-tier.ts '@mgpu/shared/test-tier|MGPU_TEST_KUBECONFIG' apps packages e2e 2>/dev/null \
  | sed -E 's#^((apps|packages)/[^/]+|e2e)/.*#\1#' | sort -u)

known="$root/tools/kube/known-differences.txt"
for pkg in "${packages[@]}"; do
  # One file at a time whatever the machine's cores: the files share this one cluster, and the
  # BFF's harness clears what earlier files left before a file starts (bff-harness.ts).
  args=(run --no-file-parallelism)
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
  context="$(sed -n 's/^current-context: //p' "$kubeconfig")"
  # Keep going: one report of every package that differs from real Kubernetes.
  if [[ "$pkg" == e2e ]]; then
    # The Playwright smoke, once its web server passes MGPU_TEST_KUBECONFIG on to the BFF.
    part "e2e against real Kubernetes (kubeconfig context: $context)" \
      env -C e2e MGPU_TEST_KUBECONFIG="$kubeconfig" pnpm run e2e
    # Specs only this tier can serve (--auth oidc through the tier's issuer): a config of their own.
    part "e2e: real-tier-only specs (playwright.real.config.ts)" \
      env -C e2e MGPU_TEST_KUBECONFIG="$kubeconfig" pnpm exec playwright test --config playwright.real.config.ts
  else
    part "$pkg against real Kubernetes (kubeconfig context: $context)" \
      env -C "$pkg" MGPU_TEST_KUBECONFIG="$kubeconfig" pnpm exec vitest "${args[@]}"
  fi
  if [[ -f "$pkg/vitest.real.config.ts" ]]; then
    # Tests only this tier can serve (apps/bff: per-operator sign-in and RBAC, *.real.test.ts).
    part "$pkg: real-tier-only tests (vitest.real.config.ts)" \
      env -C "$pkg" MGPU_TEST_KUBECONFIG="$kubeconfig" pnpm exec vitest run --no-file-parallelism --config vitest.real.config.ts
  fi
done

if ((${#failed[@]} == 0)); then
  log "every part passed against real Kubernetes"
  exit 0
fi
log "FAILED against real Kubernetes: ${#failed[@]} part(s)"
for i in "${!failed[@]}"; do
  log "--- failed: ${failed[$i]}"
  failure_report "${failed_logs[$i]}" >&2
done
log "FAILED against real Kubernetes: $(IFS=';'; printf '%s' "${failed[*]}")"
exit 1
