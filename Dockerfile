# Hubgraph's production image: compiled JavaScript on Node 24 LTS, no TypeScript, no Prisma CLI, run as the
# unprivileged `node` user.
#
#   docker build -t hubgraph .
#   docker run --init -p 3000:3000 -v hubgraph-data:/app/data hubgraph          # embedded PGlite in the volume
#   docker run --init -p 3000:3000 -e DATABASE_URL=postgres://… hubgraph          # PostgreSQL
#
# compose.yaml runs it with PostgreSQL. Configuration is the environment (README, "Configuration").
# Pin the base image by digest for reproducible production builds.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts off, as npm 11 runs them for this project (package.json "allowScripts"): the Prisma
# engines' download is not needed with the JS engine, and the client is generated below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
COPY src ./src
COPY rest-facade ./rest-facade
RUN npx prisma generate && npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# CACHE_DIR=off: node_modules is root's and the server runs as node, so it could not keep a template of a
# new database there; a container makes its database once per volume anyway.
ENV NODE_ENV=production \
    CACHE_DIR=off \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The embedded database (when DATABASE_URL is unset) lives in a volume the node user can write.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
# Liveness: /health answers 200 as soon as the server serves HTTP, migrations running or not (src/http/health.ts),
# so a slow first migration does not mark the container unhealthy. Readiness (/ready: 503 until migrated and
# while stopping) is for load balancers and Kubernetes' readinessProbe, not for this check.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is the process that receives SIGTERM (no npm or shell in between) and stops gracefully:
# running requests get 10 s, then the database is closed. `docker run --init` (compose: init: true) adds
# a minimal init as PID 1 that forwards signals and reaps child processes.
STOPSIGNAL SIGTERM
# The node flags of `npm start` (package.json), for the resident set under sustained load
# (docs/performance.md, "Memory under load").
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "dist/src/main.js"]
