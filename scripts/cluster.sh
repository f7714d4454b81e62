#!/usr/bin/env bash
# The production topology on this machine, without containers (docs/production.md):
#   scripts/cluster.sh            PostgreSQL, Redis, migrate once, 2 API replicas behind HAProxy
#                                 (TLS, checked on /readyz), 2 webhook senders; prints the URLs,
#                                 the CA file to trust, the tokens and a merchant sign-in link;
#                                 Ctrl-C or SIGTERM stops everything. The folder (PostgreSQL's data,
#                                 secrets, CA, logs) is kept: the next start carries on with it.
#   scripts/cluster.sh delete     deletes the folder, after saying what goes with it.
#   scripts/cluster.sh backup FILE          pg_dump of the cluster's database (running cluster)
#   scripts/cluster.sh restore FILE [NAME]  restores FILE into a new database and moves the
#                                           running cluster onto it, one process at a time
#   scripts/cluster.sh link [HANDLE]        a one-time sign-in link to a store's merchant admin (demo)
#   scripts/cluster.sh upgrade [REF|FOLDER] a rolling upgrade of the running cluster to a build (this
#                                           tree's, a built folder, or a git ref built in a worktree):
#                                           its migrations, then each API replica, then each sender
# Environment: CLUSTER_DIR (the folder: .cluster in the repository), CLUSTER_KEEP=0 (a throwaway
# folder: removed when the start stops; the cluster suite's), CLUSTER_BASE_PORT (21100; the ports
# used are listed in scripts/cluster/lib.sh), PLATFORM_BASE_DOMAIN (platform.localhost: two labels,
# see scripts/cluster/haproxy.sh), CLUSTER_APIS, CLUSTER_SENDERS (2 each), CLUSTER_SKIP_BUILD=1
# (use the built dist/ as it is), CLUSTER_PARENT_PID (a process id: the start stops, as on SIGTERM,
# once that process is gone; the test suites and benchmarks give their own, so one killed leaves no
# cluster running). Every other variable (PLATFORM_*, LOG_LEVEL) is passed to the API
# replicas and the senders (and kept for the commands below that start them again).
#
# Commands on a running cluster (the end-to-end suite uses them):
#   scripts/cluster.sh start-api N | stop-pg | start-pg | stop-redis | start-redis | pause-redis |
#                      resume-redis | down
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/cluster/lib.sh
. "$ROOT/scripts/cluster/lib.sh"

CLUSTER_DIR=${CLUSTER_DIR:-$ROOT/.cluster}
export CLUSTER_DIR

command=${1:-up}
if [ "$command" = delete ]; then
  cluster_delete
  exit 0
fi
if [ "$command" != up ]; then
  load_env
  load_passed_env
  case "$command" in
    start-api) api_start "${2:?replica number}" ;;
    stop-pg) pg_stop fast ;;
    start-pg) pg_start ;;
    stop-redis) redis_stop ;;
    start-redis) redis_start ;;
    pause-redis) redis_pause ;;
    resume-redis) redis_resume ;;
    down) cluster_down ;;
    backup) cluster_backup "${2:?the file to write the dump to}" ;;
    restore) cluster_restore "${2:?the dump to restore}" "${3:-}" ;;
    upgrade) cluster_upgrade "${2:-}" ;;
    link)
      url=$(sign_in_link "${2:-demo}")
      [ -n "$url" ] || die "no sign-in link: no store '${2:-demo}', or the cluster does not answer on $HTTPS_PORT"
      echo "$url"
      ;;
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

reused=0
[ -f "$CLUSTER_DIR/cluster.env" ] && reused=1
mkdir -p "$CLUSTER_DIR"
chmod 711 "$CLUSTER_DIR"
# As root PostgreSQL runs as `postgres`, which must reach its data folder inside this one.
if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$CLUSTER_DIR"; then
  die "the postgres user cannot reach $CLUSTER_DIR (a parent folder is closed to it): set CLUSTER_DIR to a folder it can reach, e.g. /var/tmp/platform-cluster"
fi
pg_running && die "a cluster already runs in $CLUSTER_DIR: stop it (Ctrl-C where it was started; if that start is gone: scripts/cluster.sh down) or use another CLUSTER_DIR"

stopped=0
stop_all() {
  [ "$stopped" = 1 ] && return
  stopped=1
  log "stopping..."
  cluster_down
  if [ "${CLUSTER_KEEP:-1}" = 0 ]; then
    rm -rf "$CLUSTER_DIR"
  else
    log "kept $CLUSTER_DIR: the next scripts/cluster.sh carries on with its data (scripts/cluster.sh delete removes it)"
  fi
  log "stopped"
}
trap stop_all EXIT
trap 'exit 0' INT TERM

write_env
save_passed_env
cluster_up
load_env
[ "$reused" = 1 ] && data="kept from an earlier start" || data="new"
sign_in=$(sign_in_link demo)

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
  Folder:          $CLUSTER_DIR   (data $data; logs: api<N>.log, sender<N>.log, pg/log, redis.log)
EOF
if [ -n "$sign_in" ]; then
  cat <<EOF
  Merchant admin:  $sign_in
                   one-time sign-in link to the store demo: works once, within 10 minutes; a new one: scripts/cluster.sh link
EOF
fi
if [ "${CLUSTER_KEEP:-1}" = 0 ]; then
  echo "Ctrl-C stops everything and removes the folder (CLUSTER_KEEP=0)."
else
  echo "Ctrl-C stops everything; the folder is kept for the next start (scripts/cluster.sh delete removes it)."
fi

# Waits for Ctrl-C / SIGTERM (or for CLUSTER_PARENT_PID to end); a replica dying does not stop the
# rest (the balancer routes around it).
while true; do
  sleep 1 &
  wait $! || true
  if [ -n "${CLUSTER_PARENT_PID:-}" ] && ! kill -0 "$CLUSTER_PARENT_PID" 2>/dev/null; then
    # Whoever read this script's output went with it: writing there now would end the script
    # (SIGPIPE) before it takes the cluster down.
    exec >/dev/null 2>&1
    exit 0
  fi
done
