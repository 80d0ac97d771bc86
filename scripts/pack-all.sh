#!/usr/bin/env bash
# Builds the four published packages and packs each as the registry would get it (`pnpm pack` applies publishConfig
# and turns `workspace:*` into versions) into one folder, then prints the tarballs' paths, one a line.
# Usage: bash scripts/pack-all.sh [DIR]   (default .artifacts/packs; relative to the repository root)
# `npm run pack:all` runs it after setup.sh; packages/demo-editor/test/packages.test.ts runs it and installs what it packs.
set -euo pipefail
cd "$(dirname "$0")/.."
into="${1:-.artifacts/packs}"
mkdir -p "$into"
into="$(cd "$into" && pwd)"
# In dependency order, as a team installs them.
packages=(protocol conformance reference-server widget)

filters=()
for name in "${packages[@]}"; do filters+=(--filter "@canvas-ai/${name}"); done
bash scripts/pnpm.sh "${filters[@]}" build >&2

# Last run's tarballs go first, so the folder holds exactly the four printed below.
rm -f "$into"/canvas-ai-*.tgz
for name in "${packages[@]}"; do
  (cd "packages/${name}" && bash ../../scripts/pnpm.sh pack --pack-destination "$into" >/dev/null)
done
for name in "${packages[@]}"; do
  version=$(node -p "require('./packages/${name}/package.json').version")
  tarball="${into}/canvas-ai-${name}-${version}.tgz"
  [ -f "$tarball" ] || { echo "pack-all: pnpm pack wrote no ${tarball}" >&2; exit 1; }
  echo "$tarball"
done
