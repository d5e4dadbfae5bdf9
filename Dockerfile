# syntax=docker/dockerfile:1
# The runbooks' image: the worker by default (`node dist/worker/main.js`); the same image runs the CLI and the simulator.

# Build: all dependencies, the TypeScript build and the workflow bundle.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: `prepare` would build before the sources are here.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY contracts ./contracts
COPY api ./api
COPY runbooks ./runbooks
COPY steps ./steps
COPY runtime ./runtime
COPY history ./history
COPY operator ./operator
COPY worker ./worker
COPY cli ./cli
COPY console ./console
COPY demo ./demo
COPY simulator ./simulator
COPY bench ./bench
# A fresh build has nothing stale to clean (prebuild): its scripts/ is not copied in.
RUN npm run build --ignore-scripts
# Bundled once here, as in Temporal's production sample: workers start without webpack.
RUN node dist/worker/bundle-workflows.js dist/workflow-bundle.js

# Production dependencies only.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    RUNBOOKS_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js \
    RUNBOOKS_DATA_DIR=/home/node/.runbooks \
    RUNBOOKS_OUTPUT_DIR=/var/lib/runbooks/output
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# Volumes mounted here start with these owners and modes, so the non-root user can write them and nobody else can
# read them. The worker creates what it needs below them (credentials/, keys/, output/) itself, mode 0700.
RUN mkdir -p /var/lib/runbooks/output /data /home/node/.runbooks \
    && chown -R node:node /var/lib/runbooks /data /home/node/.runbooks \
    && chmod 0700 /var/lib/runbooks /var/lib/runbooks/output /data /home/node/.runbooks
USER node
EXPOSE 9464
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/worker/healthcheck.js"]
CMD ["node", "dist/worker/main.js"]
