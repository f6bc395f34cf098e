# hooksync: built with its dev dependencies, run with its production dependencies only, as a non-root user.
# No `# syntax=` line on purpose: the file needs nothing beyond the builder's own frontend, so a build never
# fetches one from a registry (offline and air-gapped builds work, with the legacy builder or BuildKit).
#   docker build -t hooksync .
#   docker run -p 127.0.0.1:8787:8787 -e HOOKSYNC_API_BASE_URL=https://... -e HOOKSYNC_API_KEY=... \
#     -v hooksync-data:/data hooksync
# Publish on loopback only, with the TLS reverse proxy the service calls in front of it: `-p 8787:8787` would
# publish /metrics, /readyz, /admin and /ui on every interface of the host.
# See docs/operations.md for deploying it beside a stack, on Postgres, with the nightly reconcile.

# ---- build: compile TypeScript and the better-sqlite3 addon ----
FROM node:20-slim AS build
# better-sqlite3 compiles its native addon from source when no prebuilt binary fits: it needs a toolchain.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own `prepare` would build before the sources are copied; the one
# dependency that needs its install script (better-sqlite3) is rebuilt explicitly.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY templates ./templates
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund
# Only the compiled addon is loaded at run time: drop the compiler's objects, the static library, the test
# extension and the bundled SQLite sources (about 25 MB the runtime stage would otherwise carry).
RUN cd node_modules/better-sqlite3 \
 && find build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} + \
 && find build/Release -mindepth 1 -maxdepth 1 ! -name better_sqlite3.node -exec rm -rf {} + \
 && rm -rf deps src \
 && test -f build/Release/better_sqlite3.node

# ---- runtime: node:20-slim, production dependencies, dist/ and templates/ ----
FROM node:20-slim AS runtime
ENV NODE_ENV=production \
    HOOKSYNC_HOST=0.0.0.0 \
    HOOKSYNC_DATABASE_URL=/data/hooksync.db
WORKDIR /app
# Owned by root and read-only to the service user: the running process cannot change its own code.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/templates ./templates
RUN ln -s /app/dist/cli/main.js /usr/local/bin/hooksync \
 && mkdir -p /data \
 && chown node:node /data
# The node image's unprivileged user (uid 1000); /data holds the SQLite file when no Postgres URL is given.
USER node
VOLUME ["/data"]
EXPOSE 8787
# No curl in slim images: Node 20's global fetch asks the receiver's liveness route.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HOOKSYNC_PORT || 8787) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["hooksync"]
CMD ["serve"]
