#!/usr/bin/env bash
# Builds (or reuses) upstream etcd, kube-apiserver, kube-controller-manager and kube-scheduler for
# the tests and benchmarks against real Kubernetes, and helm for the chart's install tests, and
# prints the folder that holds them on stdout (the only stdout line).
#
# The binaries live in a cache OUTSIDE the clone, keyed by the Kubernetes version and a hash of
# go.mod + go.sum + the Go version, so a fresh clone on the same machine reuses them and a change
# of pins rebuilds. A cold build takes a long time on 2 shared cores: it runs at nice 19 with one
# package at a time, so the other engineers keep their CPU. Everything it does goes to stderr.
#
# A cache folder built before a binary joined the list is completed in place: only the missing
# binary is built (the Go build cache already holds most of its packages), and each one lands by
# an atomic rename, so a cluster starting from the same folder meanwhile never sees half a file.
#
# helm is its own Go module (./helm): it needs newer k8s.io modules than the pinned control plane,
# and one module would force both onto one version. It lands in the same folder, so everything the
# real tier runs is on one path, but a change of helm's pins must not rebuild the control plane:
# the folder's key is the control plane's, and helm carries its own stamp (.helm-KEY), keyed by
# helm/go.mod + helm/go.sum + the Go version; a folder whose stamp differs rebuilds helm alone.
#
# Env: MGPU_KUBE_CACHE overrides the cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/mgpu-console);
# GO names the Go command (default: go on PATH).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
mod="$here/go"
log() { printf '[kube-build] %s\n' "$*" >&2; }

# Go from $GO or PATH (find-go.sh, shared with the protobuf schema generator), first on PATH so
# every `go` below is that one.
go_command="$("$here/find-go.sh")"
export PATH="$(dirname "$go_command"):$PATH"
# The machine's Go builds this module; never fetch another toolchain behind our back.
export GOTOOLCHAIN=local
# Release builds of the control plane are static; cgo would also slow the build down.
export CGO_ENABLED=0
# No VCS stamping: a clone in CI or under another user must not fail on git ownership checks.
export GOFLAGS="-p=1 -mod=readonly -trimpath -buildvcs=false"

k8s_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' "$mod/go.mod")"
go_version="$(go env GOVERSION)"
key="$(cat "$mod/go.mod" "$mod/go.sum" "$mod/etcd/main.go" <(echo "$go_version") | sha256sum | cut -c1-12)"
cache_root="${MGPU_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mgpu-console}"
out="$cache_root/kube-$k8s_version-$key"
# Binary name → Go package. kube-scheduler is for the side-by-side scheduling benchmark.
declare -A targets=(
  [etcd]=./etcd
  [kube-apiserver]=k8s.io/kubernetes/cmd/kube-apiserver
  [kube-controller-manager]=k8s.io/kubernetes/cmd/kube-controller-manager
  [kube-scheduler]=k8s.io/kubernetes/cmd/kube-scheduler
)
bins=(etcd kube-apiserver kube-controller-manager kube-scheduler)
helm_mod="$here/helm"
helm_version="$(awk '{ for (i = 1; i < NF; i++) if ($i == "helm.sh/helm/v4") { print $(i + 1); exit } }' "$helm_mod/go.mod")"
helm_key="$(cat "$helm_mod/go.mod" "$helm_mod/go.sum" <(echo "$go_version") | sha256sum | cut -c1-12)"
helm_stamp=".helm-$helm_key"

complete() {
  [[ -f "$out/.complete" ]] || return 1
  local b
  for b in "${bins[@]}"; do [[ -x "$out/$b" ]] || return 1; done
  [[ -x "$out/helm" && -f "$out/$helm_stamp" ]] || return 1
}

if complete; then
  log "reusing $out ($k8s_version, helm $helm_version, $go_version)"
  echo "$out"
  exit 0
fi

mkdir -p "$cache_root"
# Two test runs (or two engineers' clones) may ask at once: only one builds, the other waits.
exec 9>"$cache_root/.kube-$k8s_version-$key.lock"
log "waiting for the build lock $cache_root/.kube-$k8s_version-$key.lock"
flock 9
if complete; then
  log "reusing $out (built by another process while we waited)"
  echo "$out"
  exit 0
fi

major="${k8s_version#v}"
major="${major%%.*}"
minor="${k8s_version#v*.}"
minor="${minor%%.*}"
# Without these the servers report v0.0.0-master, and clients' version checks see a bogus skew.
vpkgs=(k8s.io/component-base/version k8s.io/client-go/pkg/version)
ldflags="-s -w"
for p in "${vpkgs[@]}"; do
  ldflags+=" -X $p.gitVersion=$k8s_version -X $p.gitMajor=$major -X $p.gitMinor=$minor"
  ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done

tmp="$out.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp" "$out"
trap 'rm -rf "$tmp"' EXIT

missing=()
for b in "${bins[@]}"; do [[ -x "$out/$b" ]] || missing+=("$b"); done
start=$(date +%s)
if ((${#missing[@]})); then
  log "building ${missing[*]} ($k8s_version) into $out (go $go_version, nice 19, -p 1; cold: expect tens of minutes)"
  cd "$mod"
  log "go mod download"
  nice -n 19 go mod download
  for name in "${missing[@]}"; do
    target="${targets[$name]}"
    t0=$(date +%s)
    log "go build $target"
    nice -n 19 go build -p 1 -ldflags "$ldflags" -o "$tmp/$name" "$target"
    mv "$tmp/$name" "$out/$name"
    log "built $name in $(($(date +%s) - t0)) s"
  done
fi
# The version the upstream release stamps, so `helm version` tells which helm rendered a chart.
hpkg=helm.sh/helm/v4/internal/version
helm_ldflags="-s -w -X $hpkg.version=$helm_version -X $hpkg.metadata= -X $hpkg.gitTreeState=clean"
if [[ ! -x "$out/helm" || ! -f "$out/$helm_stamp" ]]; then
  log "building helm $helm_version into $out (go $go_version, nice 19, -p 1; cold: expect many minutes)"
  cd "$helm_mod"
  log "go mod download (helm)"
  nice -n 19 go mod download
  t0=$(date +%s)
  nice -n 19 go build -p 1 -ldflags "$helm_ldflags" -o "$tmp/helm" helm.sh/helm/v4/cmd/helm
  mv "$tmp/helm" "$out/helm"
  rm -f "$out"/.helm-*
  echo "$helm_version $go_version $helm_key" >"$tmp/$helm_stamp"
  mv "$tmp/$helm_stamp" "$out/$helm_stamp"
  log "built helm in $(($(date +%s) - t0)) s"
fi
# Written last: a folder is complete only once every binary is in it.
echo "$k8s_version $go_version $key" >"$tmp/.complete"
mv "$tmp/.complete" "$out/.complete"
rm -rf "$tmp"
trap - EXIT
log "done in $(($(date +%s) - start)) s: $out"
echo "$out"
