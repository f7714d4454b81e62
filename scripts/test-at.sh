#!/usr/bin/env bash
# `pnpm test` with the date moved for the test processes (issue 42): no verdict may depend on the
# day the tests run. The date is moved by libfaketime (Debian's `faketime`, installed when missing),
# for `pnpm test` and every process it starts; the clock keeps running from the date given.
#
#   scripts/test-at.sh +365d                    a year ahead
#   scripts/test-at.sh '@2027-03-01 00:00:05'   from the first second of a quarter's first day
#   scripts/test-at.sh +365d --continue          arguments after the date go to `pnpm test` (turbo)
#
# Redis runs beside the tests on the real clock, as a server of the deployment would (libfaketime
# breaks redis-server's allocator at start): it is started here and handed over as TEST_REDIS_URL.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/test-at.sh <faketime date: +365d | '@YYYY-MM-DD hh:mm:ss'> [pnpm test arguments]" >&2; exit 2; }
at=$1
shift
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
port=${REDIS_PORT:-56380}
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
trap 'kill "$(cat "$dir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$dir"' EXIT
export TEST_REDIS_URL="redis://127.0.0.1:$port"
# Monotonic clocks stay real: timeouts and durations are about the machine, not the date.
export FAKETIME_DONT_FAKE_MONOTONIC=1
echo "pnpm test with the date at $at (now: $(faketime -f "$at" date -u '+%Y-%m-%d %H:%M:%S UTC')), Redis at $TEST_REDIS_URL"
faketime -f "$at" pnpm test "$@"
