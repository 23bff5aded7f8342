#!/usr/bin/env bash
# Builds the CLI image (Dockerfile.cli) from the package tarball, as a user would
# (`npm pack && docker build -f Dockerfile.cli .`), tagged LABELWISE_CLI_IMAGE (default
# labelwise-cli:ci), then runs it on the example the way the docs say: read-only source mount,
# --out on a mounted folder, non-root, no network. The base image is seeded from Debian's
# packages first (.ci/seed-base-image.sh); the build uses the host's network for npm.
#
# Exits non-zero when the image cannot be built or the run fails under CI=true; locally it says
# why and exits 0 (test/install/cli-image.test.ts then skips with the reason).
# shellcheck source=.ci/lib.sh
source "$(dirname "$0")/lib.sh"

IMAGE="${LABELWISE_CLI_IMAGE:-labelwise-cli:ci}"
need_docker "$IMAGE"
seed_base_of Dockerfile.cli
context="$(mktemp -d /tmp/labelwise-cli-context.XXXXXX)"
out="$(mktemp -d /tmp/labelwise-cli-out.XXXXXX)"
trap 'rm -rf "$context" "$out"' EXIT
log "npm pack"
if ! npm pack --silent --pack-destination "$context" >"$context/pack.log" 2>&1; then
  tail -n 40 "$context/pack.log"
  give_up "npm pack failed"
fi
cp Dockerfile.cli "$context/Dockerfile"
build_image "$IMAGE" "$context" /tmp/labelwise-cli-build.log

# The run the docs show, on the example: the output folder is writable by the image's user.
chmod 0777 "$out"
log "docker run $IMAGE build /repo --out /out/build (read-only, no network)"
if ! timeout 600 docker run --rm --network none --read-only \
  -v "$PWD/examples/homelab:/repo:ro" -v "$out:/out" "$IMAGE" build /repo --out /out/build; then
  give_up "the image did not build the example"
fi
if [ ! -f "$out/build/report.json" ]; then give_up "the image wrote no report.json"; fi
log "the image built the example: $(ls "$out/build" | wc -l) entries in --out"
