#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages bootheap needs, if any are missing: apt-get as
# root, sudo otherwise, or a message naming them. Quiet when all are there.
set -eu

PKGS="gcc make binutils nasm clang libclang-rt-14-dev libcmocka-dev \
qemu-system-x86 qemu-system-data grub-common grub-pc-bin grub-efi-amd64-bin \
xorriso mtools ovmf kbd gnuplot-nox python3 python3-pytest python3-pytest-xdist \
bear gdb"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "setup: installing missing Debian packages:$missing"
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "setup: not root and no sudo; please install:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
# shellcheck disable=SC2086
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: apt-get failed; see above" >&2
    exit 1
fi
rm -f "$log"
echo "setup: done"
