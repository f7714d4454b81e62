#!/usr/bin/env bash
# A test command with the date moved for the test processes (issue 42): no verdict may depend on
# the day the tests run. The date is moved by libfaketime (Debian's `faketime`, installed when
# missing) for the command and every process it starts; the clock keeps running from the date given.
#
#   scripts/test-at.sh +365d                           `pnpm test` a year ahead
#   scripts/test-at.sh '@2027-03-01 00:00:05' .ci/run  CI from the first second of a quarter's first day
#   scripts/test-at.sh +365d pnpm test --continue      any command after the date
#
# Redis runs beside the tests on the real clock, as a server of the deployment would (libfaketime
# breaks the allocator of redis-server and redis-cli at start: they hang): every `redis-server` and
# `redis-cli` the tests and scripts/cluster.sh start is found first in a folder of this script's,
# which starts the real one without libfaketime.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/test-at.sh <faketime date: +365d | '@YYYY-MM-DD hh:mm:ss'> [command, default: pnpm test]" >&2; exit 2; }
at=$1
shift
[ $# -ge 1 ] || set -- pnpm test
missing=""
command -v faketime >/dev/null 2>&1 || missing="$missing faketime"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
if [ -n "$missing" ]; then
  echo "Installing$missing from Debian's packages..."
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
dir=$(mktemp -d /tmp/platform-test-at.XXXXXX)
trap 'rm -rf "$dir"' EXIT
for program in redis-server redis-cli; do
  real=$(command -v "$program")
  printf '#!/bin/sh\nunset LD_PRELOAD FAKETIME\nexec %s "$@"\n' "$real" >"$dir/$program"
  chmod +x "$dir/$program"
done
export PATH="$dir:$PATH"
# Monotonic clocks stay real: timeouts and durations are about the machine, not the date.
export FAKETIME_DONT_FAKE_MONOTONIC=1
# The servers the tests run beside keep the real date, as a deployment's would: PostgreSQL under
# libfaketime never fires its lock_timeout (the migration tests wait forever), and HAProxy's and
# the PostgreSQL tools' dates are theirs. Tests that compare with the database's clock take its
# now() (apps/webhooks/test/lease-counts.e2e.test.ts).
export FAKETIME_SKIP_CMDS=postgres,pg_ctl,initdb,pg_isready,psql,pg_dump,pg_restore,createdb,redis-server,redis-cli,haproxy
# '@<date>' starts the clock of each process at that date when it starts, so processes started
# later (replicas, senders) would disagree with the test and each other: it becomes the offset to
# that date from now, one clock for every process.
if [ "${at#@}" != "$at" ]; then
  target=$(date -u -d "${at#@}" +%s) || { echo "test-at.sh: not a date: ${at#@}" >&2; exit 2; }
  offset=$((target - $(date -u +%s)))
  at=$([ "$offset" -ge 0 ] && echo "+$offset" || echo "$offset")
fi
echo "$* with the date at $at (now: $(faketime -f "$at" date -u '+%Y-%m-%d %H:%M:%S UTC'))"
faketime -f "$at" "$@"
