#!/usr/bin/env bash
# The README's two commands: `./dev.sh start` and `./dev.sh test`.
# Installs the pinned pnpm when missing (corepack cannot verify signatures on this network),
# installs dependencies, then runs `pnpm start` or `pnpm test`.
set -euo pipefail
cd "$(dirname "$0")"
PNPM_VERSION=10.34.9
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  npm install --global "pnpm@$PNPM_VERSION" >/dev/null
fi
export TURBO_TELEMETRY_DISABLED=1
# native addons build against the local Node headers (no header download on a closed network)
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
pnpm install --frozen-lockfile
case "${1:-}" in
  start) shift; exec pnpm start "$@" ;;
  test) shift; exec pnpm test "$@" ;;
  *) echo "usage: ./dev.sh start|test" >&2; exit 2 ;;
esac
