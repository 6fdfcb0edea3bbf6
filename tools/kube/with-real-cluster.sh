#!/usr/bin/env bash
# One suite, two targets: runs CMD against a fresh real control plane (upstream etcd,
# kube-apiserver, kube-controller-manager + the project's mGPU scheduler and node agents).
#
#   bash tools/kube/with-real-cluster.sh pnpm --filter @mgpu/cluster-sim exec vitest run
#
# Starts cluster:real (building the binaries first on a cold machine), waits for its `ready`
# line, exports MGPU_TEST_KUBECONFIG (tests use that cluster instead of starting the embedded
# one) and the test OIDC issuer kube-apiserver trusts as MGPU_TEST_OIDC_* (issuer URL, client id
# and secret, CA file, the login page's user and password, the username and groups
# kube-apiserver gives that user: tools/kube/src/oidc-issuer.ts), runs CMD, and stops the cluster whatever CMD did. Exits with CMD's status.
#
# Env: MGPU_KUBE_READY_TIMEOUT seconds to wait for ready (default 5400: covers a cold build).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
log() { printf '[with-real-cluster] %s\n' "$*" >&2; }
if [[ $# -eq 0 ]]; then
  log "usage: with-real-cluster.sh CMD [ARGS...]"
  exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/mgpu-with-real-XXXXXX")"
kubeconfig="$work/kubeconfig"
launcher=""
stop_cluster() {
  if [[ -n "$launcher" ]] && kill -0 "$launcher" 2>/dev/null; then
    log "stopping cluster:real (pid $launcher)"
    kill -TERM "$launcher" 2>/dev/null || true
    # The launcher stops its processes with bounded grace (5 s each); past a minute it's hung.
    for _ in $(seq 1 600); do
      kill -0 "$launcher" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$launcher" 2>/dev/null; then
      log "cluster:real did not stop in 60 s: SIGKILL (its exit hook cannot run now)"
      kill -KILL -- "-$launcher" 2>/dev/null || true
    fi
    wait "$launcher" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop_cluster EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cd "$root"
# Not through pnpm: one node process (tsx as a loader, not a wrapper) in its own session, so
# the signal reaches the launcher itself and nothing sits between.
setsid node --conditions=source --import tsx tools/kube/src/cluster-real-main.ts \
  --kubeconfig "$kubeconfig" --oidc-env "$work/oidc.env" >"$work/stdout" 2> >(tee "$work/stderr" >&2) &
launcher=$!

deadline=$((SECONDS + ${MGPU_KUBE_READY_TIMEOUT:-5400}))
until grep -q ready "$work/stdout" 2>/dev/null; do
  if ! kill -0 "$launcher" 2>/dev/null; then
    log "cluster:real exited before ready"
    exit 1
  fi
  if ((SECONDS > deadline)); then
    log "cluster:real not ready after ${MGPU_KUBE_READY_TIMEOUT:-5400} s"
    exit 1
  fi
  sleep 0.5
done
cat "$work/stdout" >&2

export MGPU_TEST_KUBECONFIG="$kubeconfig"
set -a
# shellcheck source=/dev/null
. "$work/oidc.env"
set +a
# Both streams of cluster:real, for cluster-real.test.ts to check that only the last line says ready.
export MGPU_TEST_CLUSTER_OUTPUT="$work"
status=0
"$@" || status=$?
exit "$status"
