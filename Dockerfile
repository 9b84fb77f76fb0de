# syntax=docker/dockerfile:1
# The hub's image, one image for every process of the stack (hub, gateway, worker, migrations):
#   docker build -t telemetry-hub:0.1.0 .
# The steps are test/deploy/production-install.test.ts's: build and `npm pack` the project, then
# install the packed project with production dependencies only, from the lockfile.
ARG NODE_VERSION=24

# 1. Build: every dependency, the TypeScript build and the dashboard (prepack), packed.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /out && mv /out/telemetry-hub-*.tgz /out/telemetry-hub.tgz

# 2. Install: the packed files (package.json `files`) and production dependencies only. No
#    install script runs: none of the runtime dependencies needs one.
FROM node:${NODE_VERSION}-bookworm-slim AS install
WORKDIR /app
COPY --from=build /out/telemetry-hub.tgz /tmp/telemetry-hub.tgz
COPY package-lock.json ./
RUN tar -xzf /tmp/telemetry-hub.tgz --strip-components=1 \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# 3. Run: the installed tree, owned by root and read-only to the process, which runs as `node`
#    (uid 1000, as the Kubernetes manifests expect). Writable: the embedded database's and the
#    firmware's default directories (mount volumes there; with PostgreSQL ./data stays empty).
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=install /app ./
RUN mkdir data firmware && chown node:node data firmware
USER node
EXPOSE 8080
# The liveness endpoint on the configured port (Http:Port, or its alias PORT).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.Http__Port ?? process.env.PORT ?? 8080}/health/live`).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself; the hub drains and exits within
# Host:ShutdownTimeoutSeconds. It starts no child process, so no init is needed to reap any
# (`docker run --init` / compose `init: true` add one if you prefer).
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
