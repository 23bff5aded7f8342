#!/usr/bin/env bash
# Builds the anchor image from the repository's Dockerfile, as a user would (`docker build .`),
# tagged LABELWISE_ANCHOR_IMAGE (default labelwise/anchor:ci) for the Compose scenario test.
# No registry serves images here, so the base image the Dockerfile names is seeded first from
# Debian's packages (.ci/seed-base-image.sh). The build uses the host's network, so npm and apt
# inside it reach the same package registries as this machine.
#
# Exits non-zero when the image cannot be built under CI=true; locally it says why and exits 0
# (the scenario test then skips with the reason).
set -uo pipefail
cd "$(dirname "$0")/.."

IMAGE="${LABELWISE_ANCHOR_IMAGE:-labelwise/anchor:ci}"
log() { printf 'build-image: %s\n' "$*"; }
give_up() {
  log "$*"
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
}

if ! timeout 10 docker info >/dev/null 2>&1; then give_up "no Docker Engine: cannot build $IMAGE"; fi
base="$(sed -n 's/^FROM \([^ ]*\).*/\1/p' Dockerfile | sort -u | grep -v '^build$' | head -n 1)"
if ! LABELWISE_BASE_IMAGE="$base" bash .ci/seed-base-image.sh; then
  give_up "cannot seed the base image $base"
fi
log "docker build -t $IMAGE ."
started=$(date +%s)
if ! timeout 1800 docker build --network host -t "$IMAGE" . >/tmp/labelwise-docker-build.log 2>&1; then
  tail -n 40 /tmp/labelwise-docker-build.log
  give_up "docker build failed (log: /tmp/labelwise-docker-build.log)"
fi
log "built $IMAGE in $(($(date +%s) - started)) s"
