#!/usr/bin/env bash
# The real-Kubernetes tier of the root test (scripts/test.sh): builds or reuses upstream etcd,
# kube-apiserver and kube-controller-manager (a cold build is most of this tier's time), then
# runs run-real-suites.sh against one cluster:real.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
log() { printf '[test-real] %s\n' "$*" >&2; }

start=$SECONDS
bash tools/kube/build.sh >/dev/null
log "control-plane binaries built after $((SECONDS - start)) s"
cluster_start=$SECONDS
bash tools/kube/with-real-cluster.sh bash tools/kube/run-real-suites.sh
log "real tier passed in $((SECONDS - start)) s (cluster and suites: $((SECONDS - cluster_start)) s)"
