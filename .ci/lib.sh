# shellcheck shell=bash
# What the image scripts (.ci/build-image.sh, .ci/build-cli-image.sh) share; sourced, not run.
# Sourcing it moves to the repository root and defines:
#   log MESSAGE…              one line prefixed with the script's name
#   give_up MESSAGE…          logs, then exits 1 under CI=true and 0 locally (the test that
#                             needs the image skips with the reason)
#   need_docker IMAGE         gives up when no Docker Engine answers
#   seed_base_of DOCKERFILE   seeds the image DOCKERFILE builds on (.ci/seed-base-image.sh)
#   build_image IMAGE CONTEXT LOG [docker build options…]
#                             docker build on the host's network (npm and apt inside reach the
#                             registries this machine does), bounded; gives up with the log's tail
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CI_SCRIPT="$(basename "$0" .sh)"
log() { printf '%s: %s\n' "$CI_SCRIPT" "$*"; }
give_up() {
  log "$*"
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
}

need_docker() {
  if ! timeout 10 docker info >/dev/null 2>&1; then give_up "no Docker Engine: cannot build $1"; fi
}

# The registry image a Dockerfile builds on: its first FROM image that is not one of its own
# stages (`FROM build` after `FROM … AS build`).
base_image_of() {
  awk '
    toupper($1) == "FROM" {
      i = 2
      while ($i ~ /^--/) i++
      image = $i
      if (!(image in stages)) print image
      for (j = i + 1; j < NF; j++) if (toupper($j) == "AS") stages[$(j + 1)] = 1
    }' "$1" | head -n 1
}

seed_base_of() {
  local base
  base="$(base_image_of "$1")"
  if [ -z "$base" ]; then give_up "$1 names no base image"; fi
  if ! LABELWISE_BASE_IMAGE="$base" bash .ci/seed-base-image.sh; then
    give_up "cannot seed the base image $base"
  fi
}

build_image() {
  local image="$1" context="$2" build_log="$3" started
  shift 3
  log "docker build -t $image${*:+ $*} $context"
  started=$(date +%s)
  if ! timeout 1800 docker build --network host -t "$image" "$@" "$context" >"$build_log" 2>&1; then
    tail -n 40 "$build_log"
    give_up "docker build failed (log: $build_log)"
  fi
  log "built $image in $(($(date +%s) - started)) s"
}
