# shellcheck shell=bash
# The rolling upgrade of a running cluster (issue 44 §3, decisions §12.8; docs/production.md,
# "Upgrading"): `scripts/cluster.sh upgrade [<ref-or-folder>]` applies the new build's migrations
# while the running release serves (they are additive: its code keeps working on them), then replaces
# API replica 1..N and sender 1..N one at a time with the new build's programs. Sourced by
# scripts/cluster/lib.sh; the upgrade rehearsal (apps/api/release-test/rolling.release.test.ts, in
# .ci/run) runs it on a cluster started by the previous release's own scripts/cluster.sh.

# Stops each API replica (SIGTERM: it answers /readyz 503 for PLATFORM_DRAIN_DELAY_MS while HAProxy
# takes it out, then finishes what it was answering) and starts it again with the programs of
# API_MAIN, waiting until HAProxy routes to it before the next one; then each sender (SIGTERM: it
# stops claiming, gives back what it holds and waits for the attempts in flight to be recorded, so
# no delivery is sent twice), waiting until the new one answers /metrics. $1 ends each log line.
roll_processes() {
  local what=$1 n started=$SECONDS
  for ((n = 1; n <= APIS; n++)); do
    log "stopping API replica $n ($((SECONDS - started)) s)"
    stop_process "$CLUSTER_DIR/api$n.pid" TERM 15
    api_start "$n"
    haproxy_wait_up "$n"
    log "API replica $n $what ($((SECONDS - started)) s)"
  done
  for ((n = 1; n <= SENDERS; n++)); do
    log "stopping sender $n ($((SECONDS - started)) s)"
    stop_process "$CLUSTER_DIR/sender$n.pid" TERM 15
    sender_start "$n"
    wait_http "http://127.0.0.1:$((BASE_PORT + 20 + n))/metrics" 30 || die "sender $n did not start (see $CLUSTER_DIR/sender$n.log)"
    log "sender $n $what ($((SECONDS - started)) s)"
  done
}

# The build to upgrade to: a folder holding a built tree, or a git ref (a release's version or tag,
# a branch, a commit) built by scripts/release.sh in a worktree. Default: this tree (built).
upgrade_programs() {
  local target=$1 dir
  if [ -d "$target" ]; then
    dir=$(cd "$target" && pwd)
  else
    dir=$("$ROOT/scripts/release.sh" build "$target" | tail -n 1) || die "could not build $target"
    dir=${dir#built: }
  fi
  local file
  for file in apps/api/dist/main.js apps/webhooks/dist/main.js packages/db/dist/cli/migrate.js deploy/with-allocator.sh; do
    [ -e "$dir/$file" ] || die "$dir is not a built tree ($file is missing: run pnpm build there, or name a git ref)"
  done
  echo "$dir"
}

cluster_upgrade() {
  local dir version
  dir=$(upgrade_programs "${1:-$ROOT}")
  pg_running || die "PostgreSQL of $CLUSTER_DIR does not run (start the cluster first)"
  API_MAIN="$dir/apps/api/dist/main.js"
  SENDER_MAIN="$dir/apps/webhooks/dist/main.js"
  MIGRATE_MAIN="$dir/packages/db/dist/cli/migrate.js"
  WITH_ALLOCATOR="$dir/deploy/with-allocator.sh"
  version=$(node -p "require('$dir/package.json').version")
  log "upgrading the cluster in $CLUSTER_DIR to $version ($dir)"
  migrate_once
  log "migrations: $(tail -n 1 "$CLUSTER_DIR/migrate.log")"
  roll_processes "runs $version"
  log "the cluster runs $version; a replica or sender started later by this script runs this tree's build"
}
