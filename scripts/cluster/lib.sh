# shellcheck shell=bash
# The production topology on one machine (docs/production.md): PostgreSQL, Redis, HAProxy (TLS) in
# front of API replicas, and webhook senders, each a plain process from Debian's packages or this
# repo, all on loopback ports, all state in one folder ($CLUSTER_DIR, kept between starts). Sourced
# by scripts/cluster.sh; the end-to-end suite drives it through that script's commands. Backups,
# restores and deleting the folder: scripts/cluster/data.sh.

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
API_MAIN="$ROOT/apps/api/dist/main.js"
SENDER_MAIN="$ROOT/apps/webhooks/dist/main.js"
# The API replicas and the senders run under the deployment's allocator, as deploy/entry.sh runs them.
WITH_ALLOCATOR="$ROOT/deploy/with-allocator.sh"
MIGRATE_MAIN="$ROOT/packages/db/dist/cli/migrate.js"

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

# Installs what is missing from Debian's packages, as .ci/run does.
install_missing() {
  local missing="" bin
  bin=$(pg_bin || true)
  { [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; } && missing="$missing postgresql"
  command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
  command -v haproxy >/dev/null 2>&1 || missing="$missing haproxy"
  command -v curl >/dev/null 2>&1 || missing="$missing curl"
  command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
  [ -z "$missing" ] && return 0
  [ "$(id -u)" = 0 ] || die "missing Debian packages:$missing (install them, or run this as root)"
  log "installing$missing from Debian's packages..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq $missing >/dev/null
}

# PostgreSQL refuses to run as root: as root, its files belong to `postgres` and it runs as that user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

random_secret() { head -c "$1" /dev/urandom | base64 | tr '+/' '-_' | tr -d '='; }

# Ports (keep them below Linux's ephemeral range, 32768 and up, where an outgoing connection could
# hold one): HAProxy's plain HTTP BASE (store hosts are sent to HTTPS), its statistics page BASE+1,
# PostgreSQL BASE+2, Redis BASE+3, HAProxy's HTTPS BASE+4, API replica N BASE+10+N, sender N's
# metrics BASE+20+N, API replica N's metrics (PLATFORM_METRICS_PORT, no token) BASE+30+N.
# LB_SOURCE: the address HAProxy connects to the replicas from, the only one they believe
# X-Forwarded-* from (decisions §12.6, PLATFORM_TRUST_PROXY). Not 127.0.0.1, which every other
# local client uses; Linux answers on the whole of 127.0.0.0/8.
# A folder used before keeps its secrets (so tokens, cursors and sessions stay valid), its base
# domain (and so its certificate), its database (DB_NAME: another after `restore`) and, unless
# CLUSTER_BASE_PORT says otherwise, its ports; the environment's PLATFORM_OPERATOR_TOKEN,
# PLATFORM_SECRET, PLATFORM_DEMO_TOKEN and PLATFORM_BASE_DOMAIN win over both.
write_env() {
  local old="$CLUSTER_DIR/cluster.env" base
  local OLD_BASE_PORT="" OLD_STATS_PASSWORD="" OLD_OPERATOR_TOKEN="" OLD_SECRET="" OLD_DEMO_TOKEN="" OLD_BASE_DOMAIN="" OLD_DB_NAME=""
  if [ -f "$old" ]; then
    OLD_BASE_PORT=$(sed -n 's/^BASE_PORT=//p' "$old")
    OLD_STATS_PASSWORD=$(sed -n 's/^STATS_PASSWORD=//p' "$old")
    OLD_OPERATOR_TOKEN=$(sed -n 's/^OPERATOR_TOKEN=//p' "$old")
    OLD_SECRET=$(sed -n 's/^SECRET=//p' "$old")
    OLD_DEMO_TOKEN=$(sed -n 's/^DEMO_TOKEN=//p' "$old")
    OLD_BASE_DOMAIN=$(sed -n 's/^BASE_DOMAIN=//p' "$old")
    OLD_DB_NAME=$(sed -n 's/^DB_NAME=//p' "$old")
  fi
  base=${CLUSTER_BASE_PORT:-${OLD_BASE_PORT:-21100}}
  cat >"$old.new" <<EOF
BASE_PORT=$base
LB_PORT=$base
HTTPS_PORT=$((base + 4))
LB_SOURCE=127.0.0.2
STATS_PORT=$((base + 1))
STATS_USER=stats
STATS_PASSWORD=${OLD_STATS_PASSWORD:-$(random_secret 18)}
PG_PORT=$((base + 2))
REDIS_PORT=$((base + 3))
APIS=${CLUSTER_APIS:-2}
SENDERS=${CLUSTER_SENDERS:-2}
BASE_DOMAIN=${PLATFORM_BASE_DOMAIN:-${OLD_BASE_DOMAIN:-platform.localhost}}
DB_NAME=${OLD_DB_NAME:-platform}
DATABASE_URL=postgresql://postgres@127.0.0.1:$((base + 2))/${OLD_DB_NAME:-platform}
REDIS_URL=redis://127.0.0.1:$((base + 3))
OPERATOR_TOKEN=${PLATFORM_OPERATOR_TOKEN:-${OLD_OPERATOR_TOKEN:-$(random_secret 24)}}
SECRET=${PLATFORM_SECRET:-${OLD_SECRET:-$(random_secret 32)}}
DEMO_TOKEN=${PLATFORM_DEMO_TOKEN:-${OLD_DEMO_TOKEN:-$(random_secret 32)}}
EOF
  chmod 600 "$old.new"
  mv "$old.new" "$old"
}

load_env() {
  [ -f "$CLUSTER_DIR/cluster.env" ] || die "no cluster in $CLUSTER_DIR (run scripts/cluster.sh first)"
  # shellcheck disable=SC1091
  . "$CLUSTER_DIR/cluster.env"
  # A folder started by release 1.0.0's scripts/cluster.sh (the upgrade rehearsal's) has none of the
  # later settings: its HAProxy connects to the replicas from 127.0.0.1 (1.0.0 believed X-Forwarded-*
  # from everyone), serves no HTTPS, asks no statistics password, and its replicas used the API's
  # default base domain and the database `platform`.
  LB_SOURCE=${LB_SOURCE:-127.0.0.1}
  BASE_DOMAIN=${BASE_DOMAIN:-localhost}
  DB_NAME=${DB_NAME:-platform}
  HTTPS_PORT=${HTTPS_PORT:-}
  STATS_USER=${STATS_USER:-}
  STATS_PASSWORD=${STATS_PASSWORD:-}
}

# Sets KEY=VALUE in cluster.env (what the next command and the next start read).
set_env() {
  local file="$CLUSTER_DIR/cluster.env"
  grep -v "^$1=" "$file" >"$file.new" || true
  echo "$1=$2" >>"$file.new"
  chmod 600 "$file.new"
  mv "$file.new" "$file"
}

# The PLATFORM_* and LOG_LEVEL variables a start was given reach every replica and sender it starts;
# they are kept (passed.env, mode 0600: they may hold secrets) so that a replica or sender started
# again by a command from another shell (start-api, restore) gets them too. The command's own
# environment wins.
save_passed_env() {
  export -p | grep -E '^declare -x (PLATFORM_[A-Za-z0-9_]*|LOG_LEVEL)=' >"$CLUSTER_DIR/passed.env.new" || true
  chmod 600 "$CLUSTER_DIR/passed.env.new"
  mv "$CLUSTER_DIR/passed.env.new" "$CLUSTER_DIR/passed.env"
}

load_passed_env() {
  [ -f "$CLUSTER_DIR/passed.env" ] || return 0
  local line name
  while IFS= read -r line; do
    name=${line#declare -x }
    name=${name%%=*}
    [ -n "${!name+x}" ] || eval "$line"
  done <"$CLUSTER_DIR/passed.env"
}

api_port() { echo $((BASE_PORT + 10 + $1)); }

# Waits until `curl` of $1 succeeds, at most $2 seconds.
wait_http() {
  local url=$1 seconds=$2 i
  for ((i = 0; i < seconds * 10; i++)); do
    curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

pg_init() {
  local bin
  bin=$(pg_bin)
  mkdir -p "$CLUSTER_DIR/pg"
  [ "$(id -u)" = 0 ] && chown postgres: "$CLUSTER_DIR/pg"
  as_pg "$bin/initdb" -D "$CLUSTER_DIR/pg/data" -A trust -U postgres >/dev/null
}

pg_start() {
  as_pg "$(pg_bin)/pg_ctl" -D "$CLUSTER_DIR/pg/data" -l "$CLUSTER_DIR/pg/log" -w \
    -o "-p $PG_PORT -k $CLUSTER_DIR/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
}

# `fast`: clients are disconnected, the server shuts down cleanly (what an operator's restart does).
pg_stop() { as_pg "$(pg_bin)/pg_ctl" -D "$CLUSTER_DIR/pg/data" -m "${1:-fast}" -w stop >/dev/null 2>&1 || true; }

psql_admin() { as_pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qAtc "$1"; }

redis_start() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --dir "$CLUSTER_DIR" --pidfile "$CLUSTER_DIR/redis.pid" --logfile "$CLUSTER_DIR/redis.log" >/dev/null
  local i
  for ((i = 0; i < 50; i++)); do
    redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "Redis did not start (see $CLUSTER_DIR/redis.log)"
}

# SIGSTOP: Redis stalled, its connections open and nothing answered (decisions §12.7); SIGCONT resumes it.
redis_pause() { kill -STOP "$(cat "$CLUSTER_DIR/redis.pid")"; }
redis_resume() { kill -CONT "$(cat "$CLUSTER_DIR/redis.pid")"; }

# kill -9: Redis lost at once, as in a crash.
redis_stop() {
  [ -f "$CLUSTER_DIR/redis.pid" ] || return 0
  kill -9 "$(cat "$CLUSTER_DIR/redis.pid")" 2>/dev/null || true
  rm -f "$CLUSTER_DIR/redis.pid"
}

# What both programs get: the caller's PLATFORM_*, LOG_LEVEL, ... pass through; these win.
common_env() {
  echo DATABASE_URL="$DATABASE_URL" PLATFORM_MIGRATE=check PLATFORM_SECRET="$SECRET" PLATFORM_BASE_DOMAIN="$BASE_DOMAIN"
}

migrate_once() {
  # shellcheck disable=SC2046
  env $(common_env) node "$MIGRATE_MAIN" >>"$CLUSTER_DIR/migrate.log" 2>&1 || die "migrate failed: $(tail -n 1 "$CLUSTER_DIR/migrate.log")"
}

# API replica N in the background (a SIGTERM keeps it serving, not ready, for 3 s before it closes its
# listener: HAProxy takes it out after 2 failed checks, 500 ms then 250 ms apart, each given up to
# 500 ms, so within 1.75 s; with 2 s a loaded machine left too thin a margin, and a request HAProxy
# sent as the listener closed came back 502 in the upgrade rehearsal): log in api<N>.log, the node
# process's pid in api<N>.pid, its exit status in api<N>.exit once it ends (what a supervisor would see).
api_start() {
  local n=$1
  rm -f "$CLUSTER_DIR/api$n.exit" "$CLUSTER_DIR/api$n.pid"
  # shellcheck disable=SC2046
  env $(common_env) HOST=127.0.0.1 PORT="$(api_port "$n")" REDIS_URL="$REDIS_URL" PLATFORM_SENDER=off \
    PLATFORM_OPERATOR_TOKEN="$OPERATOR_TOKEN" PLATFORM_DEMO_TOKEN="$DEMO_TOKEN" PLATFORM_TRUST_PROXY="$LB_SOURCE" \
    PLATFORM_METRICS_PORT=$((BASE_PORT + 30 + n)) PLATFORM_DRAIN_DELAY_MS="${PLATFORM_DRAIN_DELAY_MS:-3000}" \
    nohup bash -c '"$3" node "$1" & echo $! >"$2.pid"; wait $!; echo $? >"$2.exit"' _ "$API_MAIN" "$CLUSTER_DIR/api$n" "$WITH_ALLOCATOR" \
    >>"$CLUSTER_DIR/api$n.log" 2>&1 &
  local i
  for ((i = 0; i < 50; i++)); do [ -s "$CLUSTER_DIR/api$n.pid" ] && break; sleep 0.1; done
  wait_http "http://127.0.0.1:$(api_port "$n")/readyz" 60 || die "API replica $n did not become ready (see $CLUSTER_DIR/api$n.log)"
}

sender_start() {
  local n=$1
  # shellcheck disable=SC2046
  env $(common_env) PLATFORM_SENDER_METRICS_PORT=$((BASE_PORT + 20 + n)) \
    nohup "$WITH_ALLOCATOR" node "$SENDER_MAIN" >>"$CLUSTER_DIR/sender$n.log" 2>&1 &
  echo $! >"$CLUSTER_DIR/sender$n.pid"
}

# Whether this folder's PostgreSQL runs (a start in it is up, or was killed without stopping it).
pg_running() { [ -d "$CLUSTER_DIR/pg/data" ] && as_pg "$(pg_bin)/pg_ctl" -D "$CLUSTER_DIR/pg/data" status >/dev/null 2>&1; }

# Sends $2 (a signal) to the process of pid file $1 and waits for it to end, at most $3 seconds.
stop_process() {
  local file=$1 signal=$2 seconds=$3 pid i
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  kill "-$signal" "$pid" 2>/dev/null || { rm -f "$file"; return 0; }
  for ((i = 0; i < seconds * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$file"
}

# A folder used before keeps its database: only new migrations are applied.
cluster_up() {
  load_env
  local fresh=0
  [ -d "$CLUSTER_DIR/pg/data" ] || { pg_init; fresh=1; }
  pg_start
  if [ "$fresh" = 1 ]; then psql_admin "CREATE DATABASE $DB_NAME" >/dev/null; fi
  redis_start
  migrate_once
  local n
  # One replica first: it seeds the demo store (once), the others then find it.
  for ((n = 1; n <= APIS; n++)); do api_start "$n"; done
  for ((n = 1; n <= SENDERS; n++)); do sender_start "$n"; done
  haproxy_start
  wait_http "http://127.0.0.1:$LB_PORT/readyz" 30 || die "HAProxy does not answer on $LB_PORT"
}

cluster_down() {
  [ -f "$CLUSTER_DIR/cluster.env" ] || return 0
  load_env
  local n
  for ((n = 1; n <= APIS; n++)); do stop_process "$CLUSTER_DIR/api$n.pid" TERM 15 & done
  for ((n = 1; n <= SENDERS; n++)); do stop_process "$CLUSTER_DIR/sender$n.pid" TERM 15 & done
  wait
  stop_process "$CLUSTER_DIR/haproxy.pid" TERM 5
  redis_stop
  pg_stop fast
}

# shellcheck source=scripts/cluster/haproxy.sh
. "$ROOT/scripts/cluster/haproxy.sh"
# shellcheck source=scripts/cluster/data.sh
. "$ROOT/scripts/cluster/data.sh"
# shellcheck source=scripts/cluster/upgrade.sh
. "$ROOT/scripts/cluster/upgrade.sh"
