# One image for every program of the platform (docs/production.md): `api`, `sender`, `migrate`.
# Not built in CI here (no image registry is reachable from it); the tested topology is
# scripts/cluster.sh's, which runs the same programs and the same deploy/entry.sh commands.
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles from source against the image's own Node headers.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/* && npm install --global pnpm@10.34.9
ENV npm_config_nodedir=/usr/local TURBO_TELEMETRY_DISABLED=1
WORKDIR /app
COPY . .
RUN pnpm install --frozen-lockfile \
  && pnpm exec turbo run build --filter=@platform/api... --filter=@platform/webhooks... \
  && pnpm install --frozen-lockfile --prod

FROM node:20-bookworm-slim
# PLATFORM_TRUST_PROXY is the deployment's to set: its balancer's addresses (decisions §12.6).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 PLATFORM_MIGRATE=check PLATFORM_SENDER=off \
    PLATFORM_SEED_DEMO=false PLATFORM_DRAIN_DELAY_MS=5000
# jemalloc: the allocator the API and the sender run with (deploy/with-allocator.sh, docs/production.md).
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=root:root /app /app
# The code is read-only for the service's user; only data/ (a SQLite DATABASE_URL's default folder,
# for a single-container trial: production uses PostgreSQL) is its own.
RUN mkdir -p /app/data && chown node:node /app/data && chmod 700 /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["/app/deploy/entry.sh", "health"]
ENTRYPOINT ["/app/deploy/entry.sh"]
CMD ["api"]
