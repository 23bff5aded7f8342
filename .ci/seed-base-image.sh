#!/usr/bin/env bash
# Seeds the base image the Dockerfile names (node:20-bookworm-slim) when no registry is reachable:
# a Debian bookworm root file system from Debian's own packages (debootstrap, minbase), plus this
# machine's Node.js 20 and npm, imported as that tag. The real `docker build` then runs on it
# unchanged. Does nothing when the image is already there (pulled, or seeded before).
#
# The Debian mirror is the one this machine's apt uses for bookworm (/etc/apt/sources.list, its
# .list files, or deb822 /etc/apt/sources.list.d/*.sources), so a machine behind its own mirror
# or proxy seeds from it; LABELWISE_DEBIAN_MIRROR overrides it.
#
# Exits non-zero when it cannot seed the image; every wait is bounded.
set -euo pipefail

IMAGE="${LABELWISE_BASE_IMAGE:-node:20-bookworm-slim}"
SUITE=bookworm
APT_DIR="${LABELWISE_APT_DIR:-/etc/apt}"
log() { printf 'seed-base-image: %s\n' "$*"; }

# The first enabled `deb` source of $SUITE in one-line files: `deb [options] URI SUITE COMPONENTS…`.
mirror_from_lists() {
  local files=() f
  [ -f "$APT_DIR/sources.list" ] && files+=("$APT_DIR/sources.list")
  for f in "$APT_DIR"/sources.list.d/*.list; do [ -f "$f" ] && files+=("$f"); done
  [ "${#files[@]}" -gt 0 ] || return 0
  awk -v suite="$SUITE" '
    $1 == "deb" {
      i = 2
      if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
      if ($(i + 1) == suite) { print $i; exit }
    }' "${files[@]}"
}

# The same from deb822 stanzas: Types with deb, Suites with $SUITE, not `Enabled: no`.
mirror_from_sources() {
  local files=() f
  for f in "$APT_DIR"/sources.list.d/*.sources; do [ -f "$f" ] && files+=("$f"); done
  [ "${#files[@]}" -gt 0 ] || return 0
  awk -v suite="$SUITE" '
    BEGIN { RS = ""; FS = "\n" }
    {
      deb = 0; has = 0; off = 0; uri = ""
      for (j = 1; j <= NF; j++) {
        if ($j ~ /^Types:/ && $j ~ /[ \t]deb([ \t]|$)/) deb = 1
        if ($j ~ /^Suites:/ && (" " substr($j, 8) " ") ~ ("[ \t]" suite "[ \t]")) has = 1
        if ($j ~ /^Enabled:[ \t]*no/) off = 1
        if ($j ~ /^URIs:/) { n = split(substr($j, 6), u, /[ \t]+/); for (k = 1; k <= n; k++) if (u[k] != "" && uri == "") uri = u[k] }
      }
      if (deb && has && !off && uri != "") { print uri; exit }
    }' "${files[@]}"
}

MIRROR="${LABELWISE_DEBIAN_MIRROR:-}"
if [ -z "$MIRROR" ]; then MIRROR="$(mirror_from_lists)"; fi
if [ -z "$MIRROR" ]; then MIRROR="$(mirror_from_sources)"; fi
if [ "${1:-}" = "--print-mirror" ]; then
  [ -n "$MIRROR" ] && printf '%s\n' "$MIRROR"
  exit 0
fi

if timeout 20 docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "$IMAGE is present"
  exit 0
fi
if [ -z "$MIRROR" ]; then
  log "no deb source for $SUITE in $APT_DIR/sources.list or $APT_DIR/sources.list.d/; set LABELWISE_DEBIAN_MIRROR"
  exit 1
fi
node_bin="$(command -v node)"
node_major="$("$node_bin" -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" != "20" ]; then
  log "this machine's node is $("$node_bin" --version), not 20: cannot stand in for $IMAGE"
  exit 1
fi
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
if ! command -v debootstrap >/dev/null 2>&1; then
  timeout 600 apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 \
    debootstrap >/dev/null
fi

rootfs="$(mktemp -d /tmp/labelwise-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
log "debootstrap bookworm (minbase) from $MIRROR"
if ! timeout 1200 debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" \
  >/tmp/labelwise-debootstrap.log 2>&1; then
  log "debootstrap failed; last lines of /tmp/labelwise-debootstrap.log:"
  tail -n 20 /tmp/labelwise-debootstrap.log
  exit 1
fi
# What the official image holds besides Debian: node and npm under /usr/local.
install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
# The machine's trust store: where registries are reached through a TLS proxy with its own CA,
# npm inside the build must trust the same CAs as npm here.
ca_env=()
ca_file="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
if [ -n "$ca_file" ] && [ -f "$ca_file" ]; then
  install -D -m 0644 "$ca_file" "$rootfs/etc/ssl/certs/labelwise-extra-ca.crt"
  ca_env=(-c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/labelwise-extra-ca.crt')
fi
if ! env -u NODE_EXTRA_CA_CERTS chroot "$rootfs" /usr/local/bin/node -e 'process.exit(0)'; then
  log "node does not run in the seeded root file system"
  exit 1
fi
log "importing as $IMAGE"
tar -C "$rootfs" -c . | timeout 600 docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c "ENV NODE_VERSION=$("$node_bin" -p process.versions.node)" "${ca_env[@]}" \
  -c 'CMD ["node"]' - "$IMAGE" >/dev/null
log "$IMAGE seeded ($("$node_bin" --version), Debian bookworm)"
