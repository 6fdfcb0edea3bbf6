# The mGPU Console's image, the one charts/mgpu-console runs: the BFF (apps/bff/dist/main.js)
# serving the built web app, with production dependencies only, as a non-root user, on a
# read-only root filesystem (the chart mounts an emptyDir at /tmp). No HEALTHCHECK: the chart's
# probes (/healthz, /readyz) are the health checks.
#
#   docker build -t mgpu-console:0.1.0 .
#
# NODE_IMAGE: any glibc image with Node.js >= 20.19 on PATH (and npm, for the build stage).
ARG NODE_IMAGE=docker.io/library/node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
ARG PNPM_VERSION=12.4.2
ENV TURBO_TELEMETRY_DISABLED=1 CI=true
RUN npm install --global --save-exact "pnpm@${PNPM_VERSION}"
WORKDIR /src
# The lockfile alone fills pnpm's store, so a change of the sources reuses the download layer.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline \
 && pnpm exec turbo run build --filter=@mgpu/bff --filter=@mgpu/web \
 && pnpm --filter @mgpu/bff deploy --prod --offline /app/apps/bff \
 && mkdir -p /app/apps/web \
 && cp -r apps/web/dist /app/apps/web/dist

FROM ${NODE_IMAGE}
ENV NODE_ENV=production HOME=/tmp TMPDIR=/tmp
WORKDIR /app
# Owned by root and read-only to the console: it writes nothing but /tmp.
COPY --from=build /app /app
# A numeric user, so the kubelet can check runAsNonRoot without reading /etc/passwd.
USER 10001:10001
EXPOSE 8080 9090
ENTRYPOINT ["node", "apps/bff/dist/main.js"]
