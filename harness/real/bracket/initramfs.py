# SPDX-License-Identifier: MIT
"""dom0's initramfs for the functional boot of a source-built Xen
(harness/real/xen/dom0.py): a gzip'd cpio (newc) archive written here, with no
cpio binary and no root (the console's device node is only an archive
entry), holding Debian's static busybox and an /init that prints a line,
dom0's MemTotal and the result of a tmpfs fill-and-check, then powers off.
The same inputs give the same bytes."""
import gzip
import hashlib
import re
import shlex
import struct

INIT_LINE = "bootheap-dom0: init reached"
TAG = "bootheap-dom0:"          # every line /init prints starts with it
MEMTEST_MIB = 16                # tmpfs fill and check: about 5 s under TCG
FILL_WORD = b"bootheap-dom0\n"  # what `yes bootheap-dom0` writes, over and over

# The busybox applets /init calls, each a link to /bin/busybox in the archive
APPLETS = ("sh", "mount", "umount", "mkdir", "grep", "head", "yes", "md5sum", "rm",
           "uname", "sync", "poweroff", "cat")

# cpio mode bits (<sys/stat.h>)
S_IFDIR, S_IFREG, S_IFLNK, S_IFCHR = 0o040000, 0o100000, 0o120000, 0o020000

# The archive's fixed metadata: the same inputs give the same bytes.
FIXED_MTIME = 0
FIXED_UID = FIXED_GID = 0


def fill_md5(nbytes):
    """md5 of the first nbytes of `yes bootheap-dom0`: what /init must read back."""
    period = FILL_WORD * 65536          # whole words: the stream repeats it exactly
    whole, rest = divmod(nbytes, len(period))
    h = hashlib.md5()
    for _ in range(whole):
        h.update(period)
    h.update(period[:rest])
    return h.hexdigest()


def init_script(line=INIT_LINE, memtest_mib=MEMTEST_MIB, tag=TAG):
    """The /init shell script (busybox ash); every line it prints after
    `line` starts with `tag`."""
    if "\n" in line or not line.strip():
        raise ValueError(f"init line {line!r}: give one non-empty line")
    if not re.fullmatch(r"[A-Za-z0-9_-]+:", tag):
        raise ValueError(f"init tag {tag!r}: give a word and a colon")
    nbytes = memtest_mib << 20
    md5 = fill_md5(nbytes)
    return f"""#!/bin/sh
# bootheap dom0 init: prove that dom0 runs and that its memory holds data.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs -o size=90% tmpfs /tmp
echo {shlex.quote(line)}" ($(uname -r))"
echo "{tag} $(grep MemTotal: /proc/meminfo)"
yes bootheap-dom0 | head -c {nbytes} > /tmp/fill
got=$(md5sum < /tmp/fill)
got=${{got%% *}}
if [ "$got" = "{md5}" ]; then
    echo "{tag} memtest {memtest_mib} MiB ok"
else
    echo "{tag} memtest {memtest_mib} MiB FAILED: md5 $got, expected {md5}"
fi
rm -f /tmp/fill
echo "{tag} $(grep MemFree: /proc/meminfo)"
echo "{tag} powering off"
sync
poweroff -f
echo "{tag} poweroff returned"
"""


def _pad4(n):
    return (4 - n % 4) % 4


def cpio_entry(ino, name, mode, data=b"", nlink=1, rdev=(0, 0)):
    """One newc entry: the 110-byte header, the name, its NUL and padding, the
    data and its padding (both to 4 bytes)."""
    raw_name = name.encode() + b"\0"
    fields = (ino, mode, FIXED_UID, FIXED_GID, nlink, FIXED_MTIME, len(data),
              0, 0, rdev[0], rdev[1], len(raw_name), 0)
    head = b"070701" + b"".join(b"%08X" % f for f in fields)
    return (head + raw_name + b"\0" * _pad4(len(head) + len(raw_name)) +
            data + b"\0" * _pad4(len(data)))


def cpio_newc(entries):
    """A newc archive of entries [(name, mode, data, rdev)] in order, inodes
    numbered from 1, and the trailer. Directories come before what they hold."""
    out = []
    for ino, (name, mode, data, rdev) in enumerate(entries, 1):
        nlink = 2 if mode & 0o170000 == S_IFDIR else 1
        out.append(cpio_entry(ino, name, mode, data, nlink, rdev))
    out.append(cpio_entry(0, "TRAILER!!!", 0))
    return b"".join(out)


def initramfs_entries(busybox_bytes, line=INIT_LINE, memtest_mib=MEMTEST_MIB, tag=TAG):
    """The archive's entries: directories, /dev/console (char 5,1, mode 600),
    /bin/busybox, applet links, /init."""
    e = [(d, S_IFDIR | 0o755, b"", (0, 0)) for d in ("bin", "dev", "proc", "sys", "tmp")]
    e.append(("dev/console", S_IFCHR | 0o600, b"", (5, 1)))
    e.append(("bin/busybox", S_IFREG | 0o755, busybox_bytes, (0, 0)))
    e += [(f"bin/{a}", S_IFLNK | 0o777, b"busybox", (0, 0)) for a in APPLETS]
    e.append(("init", S_IFREG | 0o755, init_script(line, memtest_mib, tag).encode(), (0, 0)))
    return e


def is_static_elf(data):
    """A 64-bit little-endian ELF with no PT_INTERP (no dynamic loader)."""
    if data[:6] != b"\x7fELF\x02\x01":
        return False
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    return all(struct.unpack_from("<I", data, phoff + i * phentsize)[0] != 3 for i in range(phnum))


def initramfs(path, busybox="/bin/busybox", line=INIT_LINE, memtest_mib=MEMTEST_MIB, tag=TAG):
    """Writes dom0's initramfs (gzip'd newc cpio) to path -> its sha256.
    busybox must be a static binary (Debian's busybox-static): the archive
    has no libraries."""
    with open(busybox, "rb") as f:
        bb = f.read()
    if not is_static_elf(bb):
        raise ValueError(f"{busybox} is not a static ELF binary: install busybox-static")
    data = gzip.compress(cpio_newc(initramfs_entries(bb, line, memtest_mib, tag)),
                         compresslevel=9, mtime=0)
    with open(path, "wb") as f:
        f.write(data)
    return hashlib.sha256(data).hexdigest()
