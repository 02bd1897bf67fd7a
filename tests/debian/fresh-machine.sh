#!/usr/bin/env bash
# The README's test command on a fresh Debian 12 machine, as a newcomer runs it: a minbase root
# (mmdebstrap: no compiler, no Python, no Node), a clone of this checkout in it, and
# `bash scripts/test.sh` run there as root, every stage. It shows that the project's own scripts
# install what each stage needs. Not part of CI: it takes Debian's mirror, npm's registry and
# about 40 minutes on 2 cores; run it when install-deps.sh or what a stage needs changes
# (docs/ci.md). Needs root.
#
#   tests/debian/fresh-machine.sh [WORKDIR]        default /var/tmp/gate-fresh-machine
#   GATE_FRESH_REUSE=1 ...   run again in the root made last time, the clone moved to this
#                            checkout's HEAD (what the first run installed and built stays)
#   GATE_FRESH_COMMAND=...   run that in the root instead of scripts/test.sh (one stage again)
# The machine's own trust (a network's TLS-inspecting CA, as corporate and sandboxed networks
# have) is handed to npm in the root: a newcomer's machine on that network has it too.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-/var/tmp/gate-fresh-machine}"
rootfs="$work/rootfs"
mounts=(proc sys dev run)

unmount_all() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount -l "$rootfs/${mounts[$i]}" 2>/dev/null || true
  done
  umount -l "$rootfs" 2>/dev/null || true
}
trap unmount_all EXIT
unmount_all
if [ "${GATE_FRESH_REUSE:-0}" = 1 ] && [ -d "$rootfs/src/gate/.git" ]; then
  git -C "$rootfs/src/gate" fetch --quiet "$root" HEAD
  git -C "$rootfs/src/gate" reset --quiet --hard FETCH_HEAD
else
  rm -rf "$work"
  mkdir -p "$work"
  echo "fresh-machine: a minbase Debian 12 root in $rootfs" >&2
  mmdebstrap --quiet --variant=minbase bookworm "$rootfs"
  git clone --quiet "$root" "$rootfs/src/gate" # what is committed, as a newcomer's clone has it
fi
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/machine-ca.crt"
# The root a mount of its own, as a machine's / is: systemd-nspawn (the systemd stage) makes
# it a slave mount, which a plain directory cannot be.
mount --bind "$rootfs" "$rootfs"
for m in "${mounts[@]}"; do # with what is mounted below (the cgroup hierarchy under /sys)
  mount --rbind "/$m" "$rootfs/$m"
  mount --make-rslave "$rootfs/$m"
done
echo "fresh-machine: bash scripts/test.sh in it" >&2
chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  NODE_EXTRA_CA_CERTS=/etc/machine-ca.crt npm_config_cafile=/etc/machine-ca.crt \
  /bin/bash -c "cd /src/gate && ${GATE_FRESH_COMMAND:-bash scripts/test.sh}"
