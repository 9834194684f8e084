# The durable-agent worker. The agent's tools run here: bash, git and a C toolchain are part of
# the image because the model's commands (builds, tests, git) need them; bubblewrap confines each
# session's commands to its workspace (the container must allow user namespaces, e.g.
# `security_opt: [seccomp=unconfined]` or a profile that allows clone(CLONE_NEWUSER)), and socat
# bridges a sandbox's own network namespace to the worker's egress proxy.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash bubblewrap socat git ca-certificates python3 build-essential ripgrep \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY tsconfig.json ./
COPY src ./src
COPY bin ./bin
# The workflow code is bundled once here, so a worker starts (or restarts) without bundling.
RUN npm run bundle
# The worker's build id under Worker Versioning (the image has no .git): docker build --build-arg AGENT_BUILD_ID=1.4.0
ARG AGENT_BUILD_ID=
ENV NODE_ENV=production \
    AGENT_CONTENT_DIR=/data/content \
    AGENT_BUILD_ID=${AGENT_BUILD_ID}
# Repositories the agent works on are mounted under /workspace (see docker-compose.yml).
VOLUME ["/data", "/workspace"]
CMD ["node", "--import", "tsx", "src/worker.ts"]
