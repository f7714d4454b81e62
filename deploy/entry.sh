#!/bin/sh
# The image's commands (Dockerfile, docs/production.md): api, sender, migrate, health. Also runs
# outside a container from the repository root, with the same meaning.
set -eu
cd "$(dirname "$0")/.."
case "${1:-}" in
  # The long-running programs under the deployment's allocator (deploy/with-allocator.sh).
  api) exec deploy/with-allocator.sh node apps/api/dist/main.js ;;
  sender) exec deploy/with-allocator.sh node apps/webhooks/dist/main.js ;;
  migrate) exec node packages/db/dist/cli/migrate.js ;;
  # HEALTHCHECK: the API is healthy while /readyz answers 200 (a degraded Redis still does); a
  # sender container sets PLATFORM_HEALTH_URL to its /readyz (PLATFORM_SENDER_METRICS_PORT).
  health)
    url=${PLATFORM_HEALTH_URL:-http://127.0.0.1:${PORT:-3000}/readyz}
    exec node -e "fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$url" ;;
  *) echo "usage: entry.sh api|sender|migrate|health" >&2; exit 2 ;;
esac
