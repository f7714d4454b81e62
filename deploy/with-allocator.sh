#!/bin/sh
# Runs its arguments (`deploy/with-allocator.sh node apps/api/dist/main.js`) with the memory allocator
# of the deployment (docs/production.md, "Memory"): jemalloc, which gives memory freed under load
# back to the system within about a second; glibc's malloc keeps its high-water mark (bench/load
# measured a Node process's resident set stepping up 10-30 MB under load and holding there, with
# the V8 heap flat). PLATFORM_ALLOCATOR:
#   auto (default)  jemalloc when installed (Debian: libjemalloc2; the image installs it), else glibc's
#   jemalloc        jemalloc, or exit 1 when it is not installed
#   system          glibc's malloc
# An LD_PRELOAD already set is left alone (the caller chose); MALLOC_CONF, when set, replaces the
# settings below.
set -eu
allocator=${PLATFORM_ALLOCATOR:-auto}
case "$allocator" in
  auto | jemalloc | system) ;;
  *) echo "PLATFORM_ALLOCATOR must be auto, jemalloc or system, not '$allocator'" >&2; exit 2 ;;
esac
if [ "$allocator" != system ] && [ -z "${LD_PRELOAD:-}" ]; then
  found=""
  for lib in /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 /usr/local/lib/libjemalloc.so.2; do
    if [ -f "$lib" ]; then found=$lib; break; fi
  done
  if [ -n "$found" ]; then
    export LD_PRELOAD="$found"
    # A background thread returns freed pages after 1 s (jemalloc's default: 10 s, and only when
    # the process allocates again); muzzy pages are dropped at once. Measured in bench/load: the
    # same requests per second as glibc or more, resident set flat over five runs.
    export MALLOC_CONF="${MALLOC_CONF:-background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0}"
  elif [ "$allocator" = jemalloc ]; then
    echo "PLATFORM_ALLOCATOR=jemalloc but libjemalloc.so.2 is not installed (Debian: apt-get install libjemalloc2)" >&2
    exit 1
  fi
fi
exec "$@"
