#!/usr/bin/env bash
# Runs the pinned pnpm without a global install (a fresh machine has only node and npm), under Node >= 22.
set -euo pipefail
source "$(dirname "$0")/node-env.sh"
version=$(node -p "require('${canvas_ai_root}/package.json').packageManager.split('@')[1]")
exec npx -y "pnpm@${version}" "$@"
