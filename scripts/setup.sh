#!/usr/bin/env bash
# Sets up a fresh machine: the workspace's packages, and with --browser (or --redis) the Debian packages tests need.
# Idempotent: each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node-env.sh
echo "setup: Node $(node --version) at $(command -v node)"

need_apt=()
for arg in "$@"; do
  case "$arg" in
    --browser) [ -x /usr/bin/chromium ] || need_apt+=(chromium) ;;
    --redis) command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server) ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} from Debian's packages"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

bash scripts/pnpm.sh install --frozen-lockfile --reporter=append-only
