# syntax=docker/dockerfile:1
#
# Zulip-API-compatible chat server (NestJS, TypeORM, PostgreSQL).
#
#   docker build -t zulip-ts .
#   docker run -p 9991:9991 -e DATABASE_URL=postgres://... -e SECRET_KEY=... zulip-ts
#
# or, with a PostgreSQL container alongside: see docker-compose.yml and deploy/README.md.
#
# Build args:
#   NODE_IMAGE      base image of every stage (default node:20-bookworm-slim)
#   PROD_NPM_FLAGS  extra flags for the runtime `npm ci --omit=dev` (default
#                   --ignore-scripts: re2's native binary is copied from the deps
#                   stage instead). Optional dependencies stay: sharp's prebuilt libvips
#                   binary for the platform (@img/sharp-*, custom emoji) is one.
#   KEEP_EMBEDDED_POSTGRES  1 keeps embedded-postgres' PostgreSQL binaries (~60 MB,
#                   used only when DATABASE_URL is unset, which never happens in a
#                   container); by default they are removed from the runtime image.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- deps: every dependency, dev included, for the build ----------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
# re2 (linkifier patterns) is a native addon: its install script downloads a prebuilt binary or,
# failing that, compiles RE2 with node-gyp, which needs a compiler and Python.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci \
 && node -e "require('re2')"

# ---- build: compile TypeScript to dist/ ---------------------------------------
FROM deps AS build
COPY . .
RUN npm run build \
 && test -f dist/src/main.js

# ---- prod-deps: production dependencies only ---------------------------------
FROM ${NODE_IMAGE} AS prod-deps
ARG PROD_NPM_FLAGS="--ignore-scripts"
ARG KEEP_EMBEDDED_POSTGRES=0
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
# sharp must load its prebuilt binary here, or the image would fail on the first emoji upload.
RUN npm ci --omit=dev ${PROD_NPM_FLAGS} \
 && if [ "$KEEP_EMBEDDED_POSTGRES" != 1 ]; then rm -rf node_modules/@embedded-postgres; fi \
 && node -e "require('sharp')" \
 && npm cache clean --force
# re2's binary, built (or downloaded) by its install script in the deps stage.
COPY --from=deps /app/node_modules/re2/build/Release/re2.node ./node_modules/re2/build/Release/re2.node
RUN node -e "require('re2')"

# ---- runtime -----------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=9991 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app

# Application files stay root-owned (read-only for the server); only the data
# directory belongs to the unprivileged `node` user (uid 1000) of the base image.
COPY package.json package-lock.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data

USER node
EXPOSE 9991

# The slim image has no curl: probe with Node's built-in fetch.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||9991)+'/health/ready',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

CMD ["node", "dist/src/main.js"]
