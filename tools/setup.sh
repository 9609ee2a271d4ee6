#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages that tools/host-files.txt names, if any are
# missing (apt-get as root, sudo otherwise), then checks every file on that
# list and fails naming the first missing file and its package.
set -eu
cd "$(dirname "$0")/.."
LIST=${BOOTHEAP_HOST_FILES:-tools/host-files.txt}     # another list: for setup's own test

# Packages and files to check: skip comments, the parenthesised kinds and
# what a command installs on demand ("?package"), unless ON_DEMAND=1 (that
# command's own run: then those alone, the "?" dropped).
if [ "${ON_DEMAND:-0}" = 1 ]; then
    entries=$(awk '!/^#/ && NF >= 2 && $2 ~ /^\?/ { print $1, substr($2, 2) }' "$LIST")
else
    entries=$(awk '!/^#/ && NF >= 2 && $2 !~ /^[(?]/ { print $1, $2 }' "$LIST")
fi
pkgs=$(printf '%s\n' "$entries" | awk '{ print $2 }' | sort -u)

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
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
fi

# A package can be installed and still lack a file (a renamed path, a file
# removed by hand): check the files themselves.
bad=0
printf '%s\n' "$entries" | {
    while read -r path pkg; do
        if [ ! -e "$path" ]; then
            echo "setup: missing $path (Debian package $pkg): install it with 'apt-get install --reinstall $pkg'" >&2
            bad=1
        fi
    done
    exit $bad
} || exit 1
[ -z "$missing" ] || echo "setup: done"
