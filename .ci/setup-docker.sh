#!/usr/bin/env bash
# Installs and starts what the anchor integration tests need: a Docker Engine, nftables,
# conntrack, busybox-static and iproute2, and builds the tiny local test image
# `labelwise-test/busybox:latest` from the busybox-static binary (no registry is reachable).
#
# Also installs Debian's docker-compose (the Compose scenario runs the project with it) and
# debootstrap (the base image of the Dockerfile is seeded from Debian's packages), and
# dnsmasq-base (the real DHCP server of the dhcp-refresh test, test/anchor/dhcp/dnsmasq.test.ts).
#
# Contract: never hangs (every wait is bounded). Under CI=true, an engine that cannot be brought
# up is a failure (exit 1): CI must not pass with the integration tests skipped. Locally it
# prints why and exits 0, and the integration tests report themselves skipped with the reason.
set -u

log() { printf 'setup-docker: %s\n' "$*"; }
give_up() {
  log "$*"
  if [ "${CI:-}" = "true" ]; then
    log "CI=true: the Docker Engine is required"
    exit 1
  fi
  exit 0
}
export DEBIAN_FRONTEND=noninteractive

IMAGE="${LABELWISE_TEST_IMAGE:-labelwise-test/busybox:latest}"
DOCKERD_LOG="${DOCKERD_LOG:-/tmp/labelwise-dockerd.log}"

if [ "$(id -u)" != "0" ]; then
  give_up "not root: skipping Docker/nftables setup (integration tests will report skipped)"
fi

need_install=0
for bin in dockerd nft conntrack ip docker-compose debootstrap dnsmasq; do
  command -v "$bin" >/dev/null 2>&1 || need_install=1
done
# The test image needs the static busybox: a dynamic one would not run in an empty rootfs.
if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then need_install=1; fi
if [ "$need_install" = 1 ]; then
  log "installing docker.io docker-compose nftables conntrack busybox-static iproute2 debootstrap dnsmasq-base"
  if ! timeout 600 apt-get update -qq >/dev/null; then
    log "apt-get update failed; continuing with what is installed"
  fi
  if ! timeout 900 apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
    docker.io docker-compose nftables conntrack busybox-static iproute2 debootstrap dnsmasq-base \
    >/tmp/labelwise-apt.log 2>&1; then
    tail -n 20 /tmp/labelwise-apt.log
    give_up "apt-get install failed (see /tmp/labelwise-apt.log); integration tests will skip"
  fi
fi

# The docker.io package's CLI may be shadowed by another one on PATH; both speak the same API.
if ! command -v dockerd >/dev/null 2>&1; then
  give_up "dockerd not found after install; integration tests will skip"
fi

if ! timeout 10 docker info >/dev/null 2>&1; then
  log "starting dockerd (log: $DOCKERD_LOG)"
  # setsid so dockerd is not tied to this shell's process group; CI ends it with the machine.
  # --live-restore keeps containers running while dockerd restarts (integration scenario 4).
  setsid dockerd --live-restore >"$DOCKERD_LOG" 2>&1 </dev/null &
  dockerd_pid=$!
  ok=0
  for _ in $(seq 1 60); do
    if timeout 5 docker info >/dev/null 2>&1; then ok=1; break; fi
    if ! kill -0 "$dockerd_pid" 2>/dev/null; then log "dockerd exited"; break; fi
    sleep 1
  done
  if [ "$ok" != 1 ]; then
    tail -n 30 "$DOCKERD_LOG" 2>/dev/null
    give_up "dockerd did not become ready within 60 s; integration tests will skip (log above)"
  fi
fi
log "dockerd is ready: $(timeout 10 docker version --format '{{.Server.Version}}' 2>/dev/null)"

if ! timeout 10 nft list tables >/dev/null 2>&1; then
  log "nft cannot list tables here; integration tests will skip the kernel checks"
fi

if ! timeout 20 docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "building $IMAGE from /bin/busybox"
  rootfs="$(mktemp -d)"
  trap 'rm -rf "$rootfs"' EXIT
  mkdir -p "$rootfs/bin" "$rootfs/tmp" "$rootfs/www" "$rootfs/etc" "$rootfs/proc" "$rootfs/sys" "$rootfs/dev"
  cp /bin/busybox "$rootfs/bin/busybox"
  for applet in sh ls cat echo sleep httpd wget nc ip ifconfig route timeout kill ps \
    mkdir rm true false printf grep sed tr head tail seq date env hostname id; do
    ln -sf busybox "$rootfs/bin/$applet"
  done
  echo 'root:x:0:0:root:/:/bin/sh' >"$rootfs/etc/passwd"
  echo 'root:x:0:' >"$rootfs/etc/group"
  if ! tar -C "$rootfs" -c . | timeout 120 docker import \
    -c 'ENV PATH=/bin' -c 'CMD ["/bin/sh"]' - "$IMAGE" >/dev/null; then
    give_up "docker import failed; integration tests will skip"
  fi
fi
log "test image $IMAGE ready"
exit 0
