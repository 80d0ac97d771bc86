#!/usr/bin/env bash
# Runs the pinned pnpm without a global install: a fresh machine has only node and npm.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version=$(node -p "require('${root}/package.json').packageManager.split('@')[1]")
exec npx -y "pnpm@${version}" "$@"
