#!/usr/bin/env bash
# Prints the Go command the real tier builds with: $GO (a path or a command name) if set, else
# `go` on PATH. One lookup for build.sh and cluster-sim's protobuf schema generator; no install
# location is assumed.
set -euo pipefail
if ! go="$(command -v "${GO:-go}")"; then
  printf 'find-go: no Go found: put go on PATH or set GO=/path/to/go\n' >&2
  exit 1
fi
printf '%s\n' "$go"
