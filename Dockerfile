# cngn-desk on Node 24 LTS, pinned to a release of the official image (Debian 12). Both stages run
# scripts/release.sh, whose steps test/release.test.ts runs outside a container; `npm run test:image`
# builds this file and runs the image (docs/container.md).
ARG NODE_IMAGE=node:24.22.3-bookworm-slim

# Build: every dependency as locked (a layer of its own, kept until the lock changes), the production
# bundle, then production dependencies only.
FROM ${NODE_IMAGE} AS build
# sqlite3 is native: its install fetches a prebuilt binary, and compiles with these when none fits,
# against the base image's own Node headers (nothing downloaded).
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local npm_config_update_notifier=false
RUN install -d -o 1000 -g 1000 /src /release
WORKDIR /src
USER 1000:1000
COPY --chown=1000:1000 package.json package-lock.json ./
COPY --chown=1000:1000 scripts/release.sh scripts/
RUN sh scripts/release.sh deps
COPY --chown=1000:1000 . .
# The context has no .git: the commit comes as a build argument, into the release's REVISION file.
ARG REVISION=unknown
RUN CNGN_DESK_COMMIT="$REVISION" sh scripts/release.sh build /release

# Run: the release alone (dist/, production node_modules, package.json, the script), owned by root so
# the bot cannot change its own code, on the base without npm, corepack or yarn (the bot needs none).
# State lives in /app/data: compose.yaml and the Kubernetes manifests mount a named volume there.
FROM ${NODE_IMAGE}
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
    /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
  && install -d -o 1000 -g 1000 /app/data
WORKDIR /app
COPY --from=build --chown=root:root /release /app
ARG VERSION=unknown
ARG REVISION=unknown
ARG SOURCE=unknown
ARG NODE_IMAGE
LABEL org.opencontainers.image.title="cngn-desk" \
  org.opencontainers.image.description="Slack chat-ops for a cNGN treasury, with maker-checker approval of every money movement" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.revision="${REVISION}" \
  org.opencontainers.image.source="${SOURCE}" \
  org.opencontainers.image.base.name="${NODE_IMAGE}"
USER 1000:1000
# Probes and metrics on the admin port, on every interface of the container (the orchestrator asks
# from outside it); Slack, webhooks and approver pages on PORT.
ENV PORT=3000 ADMIN_HOST=0.0.0.0 ADMIN_PORT=9091
EXPOSE 3000 9091
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["sh", "/app/scripts/release.sh", "check"]
STOPSIGNAL SIGTERM
CMD ["sh", "/app/scripts/release.sh", "start"]
