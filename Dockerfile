# syntax=docker/dockerfile:1
# The production image of jobledger (docs/deploy.md). Two stages: the first installs the production
# dependencies only (no dev tools, and none of the optional packages: no embedded PostgreSQL and no
# bundled Node.js binary; the image's Node.js 24 runs the TypeScript sources directly); the second
# copies them next to the sources and runs as the unprivileged `node` user.
# Measured: node_modules 459 MB (npm ci), 374 MB (--omit=dev), 123 MB (--omit=dev --omit=optional).

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/package.json
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force

FROM node:24-slim AS runtime
# NODE_OPTIONS: V8's young generation capped at 32 MB instead of 128 MB under load, as `npm start`
# runs it (README, "In production"; bench/README.md "Memory soak").
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=16 \
    HOST=0.0.0.0 \
    PORT=8080 \
    JOBLEDGER_DATA_DIR=/var/lib/jobledger
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/package.json
COPY bin ./bin
COPY src ./src
COPY fixtures ./fixtures
COPY docs ./docs
RUN mkdir -p /var/lib/jobledger && chown node:node /var/lib/jobledger
USER node
EXPOSE 8080 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/jobledger.js"]
CMD ["serve", "--no-worker"]
