#!/usr/bin/env bash
# The README's two commands: `./dev.sh start` and `./dev.sh test`; and `./dev.sh link [handle]`, a
# fresh sign-in link to a store's merchant admin while `./dev.sh start` runs (default: demo).
# Installs the pinned pnpm when missing (corepack cannot verify signatures on this network),
# installs dependencies, then runs `pnpm start` or `pnpm test`.
set -euo pipefail
cd "$(dirname "$0")"
PNPM_VERSION=10.34.9
# A link asks the running API (scripts/sign-in-link.mjs, Node's built-ins only): nothing to install or
# build first, so Node runs it at once (pnpm's own start and version check cost about 2 s of CPU).
if [ "${1:-}" = link ]; then shift; exec node scripts/sign-in-link.mjs "$@"; fi
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  npm install --global "pnpm@$PNPM_VERSION" >/dev/null
fi
export TURBO_TELEMETRY_DISABLED=1
# native addons build against the local Node headers (no header download on a closed network)
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
pnpm install --frozen-lockfile
# The tests use real servers from Debian's packages: Redis (rate-limit buckets, the SDK's token
# store) and Chromium's headless shell (the merchant pages). Installed here when missing, as root with apt-get.
need_debian_packages() {
  local missing=""
  command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
  [ -x /usr/bin/chromium-headless-shell ] || missing="$missing chromium-headless-shell"
  [ -n "$missing" ] || return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing$missing from Debian's packages (the tests run them; about a minute)..."
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  else
    echo "The tests need Debian's packages$missing: install them (sudo apt-get install$missing) and run again." >&2
    exit 1
  fi
}
case "${1:-}" in
  # node itself, not `pnpm start`: a start that ends with a one-line reason (a port in use) or on
  # Ctrl-C is not followed by pnpm's "ELIFECYCLE Command failed" box.
  start) shift; exec node scripts/start.mjs "$@" ;;
  test) shift; need_debian_packages; exec pnpm test "$@" ;;
  *) echo "usage: ./dev.sh start|test|link [handle]" >&2; exit 2 ;;
esac
