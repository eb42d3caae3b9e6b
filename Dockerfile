# syntax=docker/dockerfile:1
# cngn-desk on Node 24 LTS. Both stages run scripts/release.sh, whose steps test/release.test.ts runs
# outside a container (docs/container.md says what was tested where).
ARG NODE_IMAGE=node:24-slim

# Build: every dependency as locked, the production bundle, then production dependencies only.
FROM ${NODE_IMAGE} AS build
# sqlite3 is native: its install fetches a prebuilt binary, and compiles with these when none fits.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
RUN install -d -o node -g node /src /release
WORKDIR /src
COPY --chown=node:node . .
USER node
RUN sh scripts/release.sh build /release

# Run: the release alone (dist/, production node_modules, package.json, the script), owned by root so
# the bot cannot change its own code; the default SQLite store lives in the /app/data volume.
FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=build --chown=root:root /release /app
RUN install -d -o node -g node /app/data
USER node
ENV PORT=3000
EXPOSE 3000
VOLUME /app/data
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["sh", "/app/scripts/release.sh", "check"]
STOPSIGNAL SIGTERM
CMD ["sh", "/app/scripts/release.sh", "start"]
