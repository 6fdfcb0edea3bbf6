#!/usr/bin/env bash
# Sourced by start.sh and test.sh: brings a fresh machine (Node.js and npm only) to a working
# checkout — the pinned pnpm, then the locked dependencies. Progress goes to stderr.
set -euo pipefail
PNPM_VERSION=12.4.2
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "bootstrap: installing pnpm $PNPM_VERSION with npm" >&2
  npm install --global --save-exact "pnpm@$PNPM_VERSION" >&2
fi
pnpm install --frozen-lockfile >&2
