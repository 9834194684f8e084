# The durable-agent worker. The agent's tools run here: bash, git and a C toolchain are part of
# the image because the model's commands (builds, tests, git) need them; bubblewrap confines each
# session's commands to its workspace (the container must allow user namespaces, e.g.
# `security_opt: [seccomp=unconfined]` or a profile that allows clone(CLONE_NEWUSER)), and socat
# bridges a sandbox's own network namespace to the worker's egress proxy.
# The build: TypeScript (a dev dependency) compiles src/ to dist/; only dist/ goes on to the image.
# No install scripts here: tsc needs none of the native parts the image below installs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts/build.js ./scripts/build.js
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash bubblewrap socat git ca-certificates python3 build-essential ripgrep \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY bin ./bin
COPY scripts/build.js ./scripts/build.js
# Its `prepare` finds no TypeScript (and no sources yet) and builds nothing: dist/ comes from above.
RUN npm ci --omit=dev
COPY tsconfig.json ./
COPY src ./src
COPY --from=build /app/dist ./dist
# The workflow code is bundled once here, so a worker starts (or restarts) without bundling.
RUN npm run bundle
# The worker's build id under Worker Versioning (the image has no .git): docker build --build-arg AGENT_BUILD_ID=1.4.0
ARG AGENT_BUILD_ID=
ENV NODE_ENV=production \
    AGENT_CONTENT_DIR=/data/content \
    AGENT_BUILD_ID=${AGENT_BUILD_ID}
# Repositories the agent works on are mounted under /workspace (see docker-compose.yml).
VOLUME ["/data", "/workspace"]
# npm run worker's command: the compiled worker (bin/worker.js checks it is a build of these sources).
CMD ["node", "bin/worker.js"]
