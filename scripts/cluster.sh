#!/usr/bin/env bash
# The production topology on this machine, without containers (docs/production.md):
#   scripts/cluster.sh            PostgreSQL, Redis, migrate once, 2 API replicas behind HAProxy
#                                 (TLS, checked on /readyz), 2 webhook senders; prints the URLs,
#                                 the CA file to trust and the tokens; Ctrl-C or SIGTERM stops
#                                 everything and removes the folder.
# Environment: CLUSTER_BASE_PORT (21100; the ports used are listed in scripts/cluster/lib.sh),
# PLATFORM_BASE_DOMAIN (platform.localhost: two labels, see scripts/cluster/haproxy.sh),
# CLUSTER_DIR (a new folder under /tmp), CLUSTER_KEEP=1 (keep the folder: its CA, certificate,
# secrets and database serve the next start in it), CLUSTER_APIS,
# CLUSTER_SENDERS (2 each), CLUSTER_SKIP_BUILD=1 (use the built dist/ as it is). Every other
# variable (PLATFORM_*, LOG_LEVEL) is passed to the API replicas and the senders.
#
# Commands on a running cluster (the end-to-end suite uses them), with CLUSTER_DIR set:
#   scripts/cluster.sh start-api N | stop-pg | start-pg | stop-redis | start-redis | pause-redis |
#                      resume-redis | down
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/cluster/lib.sh
. "$ROOT/scripts/cluster/lib.sh"

command=${1:-up}
if [ "$command" != up ]; then
  [ -n "${CLUSTER_DIR:-}" ] || die "CLUSTER_DIR: the folder of the running cluster"
  load_env
  case "$command" in
    start-api) api_start "${2:?replica number}" ;;
    stop-pg) pg_stop fast ;;
    start-pg) pg_start ;;
    stop-redis) redis_stop ;;
    start-redis) redis_start ;;
    pause-redis) redis_pause ;;
    resume-redis) redis_resume ;;
    down) cluster_down ;;
    *) die "unknown command: $command" ;;
  esac
  exit 0
fi

install_missing
if [ "${CLUSTER_SKIP_BUILD:-}" != 1 ]; then
  cd "$ROOT"
  command -v pnpm >/dev/null 2>&1 || npm install --global pnpm@10.34.9 >/dev/null
  [ -d node_modules ] || npm_config_nodedir="${npm_config_nodedir:-/usr}" pnpm install --frozen-lockfile >/dev/null
  TURBO_TELEMETRY_DISABLED=1 pnpm exec turbo run build --output-logs=errors-only >/dev/null
fi

CLUSTER_DIR=${CLUSTER_DIR:-$(mktemp -d /tmp/platform-cluster.XXXXXX)}
mkdir -p "$CLUSTER_DIR"
chmod 711 "$CLUSTER_DIR"
export CLUSTER_DIR

stopped=0
stop_all() {
  [ "$stopped" = 1 ] && return
  stopped=1
  log "stopping..."
  cluster_down
  if [ "${CLUSTER_KEEP:-}" = 1 ]; then log "kept $CLUSTER_DIR"; else rm -rf "$CLUSTER_DIR"; fi
  log "stopped"
}
trap stop_all EXIT
trap 'exit 0' INT TERM

write_env
cluster_up
load_env

cat <<EOF

Cluster is up ($APIS API replicas behind HAProxy, $SENDERS webhook senders, PostgreSQL, Redis)
  URL:             https://$BASE_DOMAIN:$HTTPS_PORT   (Admin API: /admin/openapi/<version>/..., reference: /docs)
  Store hosts:     https://<handle>.$BASE_DOMAIN:$HTTPS_PORT   (merchant admin; plain HTTP on $LB_PORT answers 308 to these)
  CA to trust:     $CLUSTER_DIR/tls/ca.pem   (throwaway, this folder's only: curl --cacert, or your browser's certificate settings)
  Plain HTTP:      http://127.0.0.1:$LB_PORT   (by address, not redirected: health checks, local tools)
  HAProxy stats:   http://127.0.0.1:$STATS_PORT/stats   (user $STATS_USER, password $STATS_PASSWORD)
  Operator token:  $OPERATOR_TOKEN
  Demo token:      $DEMO_TOKEN   (store demo)
  PostgreSQL:      $DATABASE_URL
  Redis:           $REDIS_URL
  Folder:          $CLUSTER_DIR   (logs: api<N>.log, sender<N>.log, pg/log, redis.log)
Ctrl-C stops everything.
EOF

# Waits for Ctrl-C / SIGTERM; a replica dying does not stop the rest (the balancer routes around it).
while true; do sleep 1 & wait $! || true; done
