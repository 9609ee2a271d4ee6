#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-fresh: the README's set-up, build and one TCG boot, run inside a
# minimal Debian 12 made by debootstrap under build/fresh/, on a clean clone
# of the current commit. Needs root; /proc, /dev and /sys are unmounted again
# whatever happens.
set -eu
cd "$(dirname "$0")/.."
TOP=$(pwd)
WORK="$TOP/build/fresh"
ROOTFS="$WORK/rootfs"
SOURCES=/etc/apt/sources.list.d/debian.sources
SUITE=bookworm

say() { echo "check-fresh: $*"; }
[ "$(id -u)" -eq 0 ] || { say "needs root (debootstrap, chroot and mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null || { say "needs debootstrap: run 'make setup'" >&2; exit 1; }
# The same mirror as this host's apt.
MIRROR=$(awk '/^URIs:/ { print $2; exit }' "$SOURCES" 2>/dev/null || true)
[ -n "$MIRROR" ] || { say "no URIs: line in $SOURCES to take the mirror from" >&2; exit 1; }

unmount_all() {
    for m in sys dev proc; do
        if mountpoint -q "$ROOTFS/$m" 2>/dev/null; then
            umount "$ROOTFS/$m" || umount -l "$ROOTFS/$m"
        fi
    done
}
trap unmount_all EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
lap() { echo "$(( $(date +%s) - start ))"; }
unmount_all
rm -rf --one-file-system "$WORK"     # never into a mount left by a killed run
mkdir -p "$WORK"
say "debootstrap $SUITE (minbase) from $MIRROR into $ROOTFS"
debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 || {
    tail -20 "$WORK/debootstrap.log" >&2; say "debootstrap failed (log: $WORK/debootstrap.log)" >&2; exit 1; }
say "minimal Debian ready after $(lap) s"

commit=$(git rev-parse HEAD)
git clone -q "$TOP" "$ROOTFS/root/bootheap"
git -C "$ROOTFS/root/bootheap" checkout -q --detach "$commit"
say "clean clone of $commit in /root/bootheap"

cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
# No services start inside the chroot.
printf '#!/bin/sh\nexit 101\n' > "$ROOTFS/usr/sbin/policy-rc.d"
chmod +x "$ROOTFS/usr/sbin/policy-rc.d"
mount -t proc proc "$ROOTFS/proc"
mount --bind /dev "$ROOTFS/dev"
mount -t sysfs sysfs "$ROOTFS/sys"

# README.md, "Two commands": make first, then make setup and the build, then
# one boot under TCG that must end ok.
say "inside: apt-get install make; make setup; make; make run ACCEL=tcg"
chroot "$ROOTFS" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    sh -ec '
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends make >/dev/null
        cd /root/bootheap
        make setup
        echo "check-fresh: set-up done"
        make -j2 all iso >fresh-build.log 2>&1 || { tail -30 fresh-build.log; exit 1; }
        echo "check-fresh: build done"
        make run ACCEL=tcg MEM=1G ARGS="runs=1"
    ' 2>&1 | tee "$WORK/inside.log"
status=$(grep -c "^harness: pvh boot under TCG ended: ok" "$WORK/inside.log" || true)
unmount_all
if [ "$status" != 1 ]; then
    say "FAILED after $(lap) s: the boot did not end ok (log: $WORK/inside.log)" >&2
    exit 1
fi
say "PASSED in $(lap) s: fresh Debian $SUITE, set-up, build and a TCG boot that ended ok"
