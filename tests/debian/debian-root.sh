# shellcheck shell=bash
# Sourced by the Debian package tests: a fresh Debian 12 root for the packages to be
# installed in. mmdebstrap, minbase, plus systemd (as on any Debian 12 machine) and the
# packages' Depends; made once and cached as a tar keyed by what it includes, so a rerun
# only unpacks it. Needs root and, for the first run, Debian's mirror.

# debian_root CACHE ROOTFS PACKAGE...: ROOTFS emptied and made the root.
debian_root() {
  local cache=$1 rootfs=$2
  shift 2
  local depends include key
  depends="$(for p in "$@"; do dpkg-deb -f "$p" Depends; done | tr ',' '\n' |
    sed -e 's/(.*)//' -e 's/ //g' | sort -u | paste -sd, -)"
  include="systemd,$depends"
  key="$(printf 'bookworm minbase %s\n' "$include" | sha256sum | cut -c1-16)"
  mkdir -p "$cache"
  if [ ! -f "$cache/$key.tar" ]; then
    find "$cache" -maxdepth 1 -name '*.tar' -delete
    echo "debian-root: making the Debian 12 root (mmdebstrap, cached as $cache/$key.tar)" >&2
    mmdebstrap --quiet --variant=minbase --format=tar --include="$include" bookworm "$cache/$key.tar.part"
    mv "$cache/$key.tar.part" "$cache/$key.tar"
  fi
  rm -rf "$rootfs"
  mkdir -p "$rootfs"
  tar -C "$rootfs" -xf "$cache/$key.tar"
}
