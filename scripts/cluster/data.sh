# shellcheck shell=bash
# The cluster's data (issue 44 §4, decisions §12.8): a backup with PostgreSQL's own pg_dump, a
# restore into a new database that the running cluster is then moved onto one process at a time,
# deleting the folder, and merchant sign-in links. Sourced by scripts/cluster/lib.sh; the commands
# are docs/production.md's "Backups" runbook, and the cluster suite runs them (restore.cluster.test.ts).

pg_url() { echo "postgresql://postgres@127.0.0.1:$PG_PORT/$1"; }

# pg_dump's custom format: one consistent snapshot (a single transaction, so it runs beside the
# writes), restorable table by table. Mode 0600: it holds app secrets and token hashes.
cluster_backup() {
  local file=$1
  pg_running || die "PostgreSQL of $CLUSTER_DIR does not run (start the cluster first)"
  (umask 077 && "$(pg_bin)/pg_dump" --format=custom --file="$file.partial" "$DATABASE_URL") ||
    { rm -f "$file.partial"; die "pg_dump failed"; }
  mv "$file.partial" "$file"
  log "backed up database $DB_NAME to $file ($(du -h "$file" | cut -f1))"
}

# Restores a dump into a NEW database of the cluster's PostgreSQL (the current one is left as it
# is), brings it to this release's migrations, then moves the API replicas (one at a time: the
# balancer keeps serving from the others) and the senders onto it. Every later command and start
# of the folder uses it (DB_NAME in cluster.env).
cluster_restore() {
  local file=$1 name=${2:-platform_restored_$(date +%Y%m%d%H%M%S)} n
  [ -r "$file" ] || die "no dump to restore at $file"
  [[ "$name" =~ ^[a-z_][a-z0-9_]{0,62}$ ]] || die "database name: lower-case letters, digits and _ (got '$name')"
  pg_running || die "PostgreSQL of $CLUSTER_DIR does not run (start the cluster first)"
  [ -z "$(psql_admin "SELECT 1 FROM pg_database WHERE datname = '$name'")" ] || die "database $name exists: name another"
  psql_admin "CREATE DATABASE $name" >/dev/null
  "$(pg_bin)/pg_restore" --no-owner --exit-on-error --dbname="$(pg_url "$name")" "$file" ||
    { psql_admin "DROP DATABASE $name" >/dev/null; die "pg_restore failed: database $name dropped, the cluster still runs on $DB_NAME"; }
  local previous=$DB_NAME
  DB_NAME=$name
  DATABASE_URL=$(pg_url "$name")
  # A dump of an earlier release gets this release's migrations; one of this release, none.
  migrate_once
  set_env DB_NAME "$DB_NAME"
  set_env DATABASE_URL "$DATABASE_URL"
  log "restored $file into database $name; moving the replicas and senders onto it..."
  roll_processes "runs on $name"
  log "the cluster runs on database $name; $previous is kept (drop it once it is of no use: psql -h 127.0.0.1 -p $PG_PORT -U postgres -c 'DROP DATABASE $previous')"
}

# Deletes the folder, after saying what goes with it. Refused while the cluster in it runs, and on a
# folder that is not a cluster's (no cluster.env: CLUSTER_DIR pointing somewhere else by mistake).
cluster_delete() {
  if [ ! -e "$CLUSTER_DIR" ]; then
    log "nothing to delete: $CLUSTER_DIR does not exist"
    return 0
  fi
  [ -f "$CLUSTER_DIR/cluster.env" ] || die "$CLUSTER_DIR holds no cluster (no cluster.env): not deleting it"
  load_env
  pg_running && die "the cluster in $CLUSTER_DIR runs: stop it first (Ctrl-C where it was started), then delete"
  log "deleting $CLUSTER_DIR ($(du -sh "$CLUSTER_DIR" | cut -f1)):"
  log "  PostgreSQL's data (pg/): every store, app, token, product, webhook delivery (database $DB_NAME and any other in it)"
  log "  its secrets (cluster.env): the operator and demo tokens and PLATFORM_SECRET (cursors and sessions signed with it)"
  log "  its throwaway CA and certificate (tls/): a browser trusting ca.pem will not trust the next one"
  log "  logs; dumps written inside the folder (keep backups elsewhere). Redis keeps nothing (rate-limit buckets only)."
  rm -rf "$CLUSTER_DIR"
  log "deleted $CLUSTER_DIR; the next scripts/cluster.sh starts empty"
}

# A one-time sign-in link to a store's merchant admin (decisions §10), made by the operator API
# through the balancer over HTTPS, so the link is on the store's HTTPS host. Empty when there is no
# such store.
sign_in_link() {
  local handle=$1 answer
  answer=$(curl -sS --max-time 10 --cacert "$CLUSTER_DIR/tls/ca.pem" --resolve "$BASE_DOMAIN:$HTTPS_PORT:127.0.0.1" \
    -X POST -H "Authorization: Bearer $OPERATOR_TOKEN" "https://$BASE_DOMAIN:$HTTPS_PORT/platform/v1/stores/$handle/admin_sessions" \
    -w '\n%{http_code}') || return 0
  [ "${answer##*$'\n'}" = 201 ] || return 0
  printf '%s\n' "${answer%$'\n'*}" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p'
}
