#!/usr/bin/env bash
# Sourced by setup.sh and pnpm.sh: puts a Node.js >= 22 first on PATH, so every script of the project runs under it.
# A machine whose own node is older gets the pinned Node LTS from the npm registry (the `node` package installs the
# platform's official binary package) into .tools/node; nothing is downloaded from anywhere else.
canvas_ai_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
canvas_ai_node_version="$(tr -d ' \n' <"${canvas_ai_root}/.node-version")"
canvas_ai_node_dir="${canvas_ai_root}/.tools/node"
canvas_ai_node_bin="${canvas_ai_node_dir}/node_modules/node/bin"

node_major() { "${1:-node}" --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'; }

if [ "$(node_major)" -lt 22 ] 2>/dev/null || ! command -v node >/dev/null 2>&1; then
  if [ "$("${canvas_ai_node_bin}/node" --version 2>/dev/null)" != "v${canvas_ai_node_version}" ]; then
    echo "setup: node $(node --version 2>/dev/null || echo 'missing') is older than 22; installing Node ${canvas_ai_node_version} from the npm registry into .tools/node" >&2
    rm -rf "${canvas_ai_node_dir}"
    mkdir -p "${canvas_ai_node_dir}"
    npm install --prefix "${canvas_ai_node_dir}" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "node@${canvas_ai_node_version}" >&2
    if [ "$("${canvas_ai_node_bin}/node" --version 2>/dev/null)" != "v${canvas_ai_node_version}" ]; then
      echo "setup: the npm package node@${canvas_ai_node_version} did not install a working node binary in ${canvas_ai_node_bin}" >&2
      exit 1
    fi
  fi
  export PATH="${canvas_ai_node_bin}:${PATH}"
fi
