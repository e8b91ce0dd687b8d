# The service, run as the unprivileged `node` user, with a healthcheck on /api/health.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# patch-package applies patches/ (a postgres.js fix the service needs) on install
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund
COPY sql ./sql
COPY src ./src
COPY scripts/healthcheck.mjs ./scripts/healthcheck.mjs
# DATA_DIR (./data): the embedded database and the built-in devnet's chain, owned by the service's user
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 1317 3000 26657
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "scripts/healthcheck.mjs"]
CMD ["node", "--import", "tsx", "src/main.ts"]
