# The labelwise network-anchor image.
#
#   docker build -t labelwise/anchor:0.1.0 .
#
# Run it attached to the outside network and to the bridge its backends use, with NET_ADMIN,
# IPv4 forwarding on, and the Docker socket (or a socket proxy via DOCKER_HOST):
#
#   docker run -d --cap-add NET_ADMIN --sysctl net.ipv4.ip_forward=1 \
#     -v /var/run/docker.sock:/var/run/docker.sock:ro \
#     -e ANCHORD_LABEL_SELECTOR=anchord.role=ldap-outpost -e ANCHORD_EXT_NETWORK=dmz \
#     --network dmz labelwise/anchor:0.1.0
#
# The command is `network-anchor`, the original anchord image's, so existing Compose files keep
# working; it runs `labelwise anchor run`. See docs/anchor.md.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends nftables conntrack \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN printf '#!/bin/sh\nexec node /app/bin/labelwise.js anchor run "$@"\n' >/usr/local/bin/network-anchor \
  && chmod 0755 /usr/local/bin/network-anchor
ENV NODE_ENV=production
# /readyz answers 200 once the tables are installed and a reconcile succeeded. The check asks
# the address ANCHORD_METRICS_ADDR names (loopback for a wildcard); with "" it has nothing to ask.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "/app/dist/anchor/io/healthcheck.js"]
STOPSIGNAL SIGTERM
CMD ["network-anchor"]
