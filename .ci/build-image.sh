#!/usr/bin/env bash
# Builds the anchor image from the repository's Dockerfile, as a user would (`docker build .`),
# tagged LABELWISE_ANCHOR_IMAGE (default labelwise/anchor:ci) for the Compose scenario test.
# No registry serves images here, so the base image the Dockerfile names is seeded first from
# Debian's packages (.ci/seed-base-image.sh). The build uses the host's network, so npm and apt
# inside it reach the same package registries as this machine.
#
# Exits non-zero when the image cannot be built under CI=true; locally it says why and exits 0
# (the scenario test then skips with the reason).
# shellcheck source=.ci/lib.sh
source "$(dirname "$0")/lib.sh"

IMAGE="${LABELWISE_ANCHOR_IMAGE:-labelwise/anchor:ci}"
need_docker "$IMAGE"
seed_base_of Dockerfile
build_image "$IMAGE" . /tmp/labelwise-docker-build.log
