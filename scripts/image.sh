#!/usr/bin/env bash
# The platform's image, built and run on this machine with Debian's podman, runc and debootstrap and
# no image registry (docs/production.md, "The image"):
#   scripts/image.sh base    the local base images (cached: made once per machine)
#   scripts/image.sh build   the base, then the root Dockerfile on it; the last line is `image: <name>:<tag>`
#   scripts/image.sh test [<name>:<tag>]   migrate, two API containers and a sender from the image
#                            against a throwaway PostgreSQL and Redis (docs/production.md)
set -euo pipefail
# shellcheck source=scripts/image/lib.sh
. "$(dirname "$0")/image/lib.sh"
cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  base) image_tools; node_base; echo "base: $NODE_BASE" ;;
  build) image_tools; image_build "$@" ;;
  test) image_tools; image_test "$@" ;;
  *) echo "usage: scripts/image.sh base|build|test [image]" >&2; exit 2 ;;
esac
