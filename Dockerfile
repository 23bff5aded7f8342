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
# As in anchord's image, the ENTRYPOINT takes the mode as its first argument, so Compose files
# written for anchord keep working: `command: [network-anchor]`, `command: [service-anchor]`.
# Without one, ANCHORD_MODE decides (default network-anchor). See docs/anchor.md.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/clean-dist.mjs ./scripts/clean-dist.mjs
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends nftables conntrack iproute2 \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# labelwise-anchor MODE… runs `labelwise anchor MODE…`; network-anchor stays as a command for
# images that ran it directly.
RUN printf '#!/bin/sh\nexec node /app/bin/labelwise.js anchor "$@"\n' >/usr/local/bin/labelwise-anchor \
  && printf '#!/bin/sh\nexec node /app/bin/labelwise.js anchor network-anchor "$@"\n' >/usr/local/bin/network-anchor \
  && chmod 0755 /usr/local/bin/labelwise-anchor /usr/local/bin/network-anchor
ENV NODE_ENV=production
# /readyz answers 200 once the tables are installed and a reconcile succeeded. The check asks
# the address ANCHORD_METRICS_ADDR names (loopback for a wildcard); with "" it has nothing to ask.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "/app/dist/anchor/io/healthcheck.js"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/labelwise-anchor"]
CMD ["run"]
