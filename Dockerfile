FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY sql ./sql
COPY src ./src
COPY web ./web
EXPOSE 1317 3000 26657
CMD ["node", "--import", "tsx", "src/main.ts"]
