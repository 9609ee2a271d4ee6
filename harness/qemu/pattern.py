# SPDX-License-Identifier: MIT
"""Guest RAM that starts on a pattern, not on zeros: QEMU's own RAM starts
zeroed, so a struct page the guest never wrote reads as one it zeroed. A
file-backed memory backend mapped private (share=off: the guest's writes
stay in QEMU, the file keeps its pattern) starts every page of the guest
on the file's bytes instead.

The file holds one 64-byte line (a struct page's size, each of its eight
words a different value: SHA-512 of a fixed text) over and over, so that
every word of a struct page nobody wrote reads as that word's garbage. One
file is made a node size, once, in build/guest-ram/, and reused by every
boot and node of that size (a private mapping leaves it as it was).
Writing it whole costs a second or two a GiB the first time and its size
on disk; the pages a boot never touches cost it nothing but the page
cache (checked: docs/results-linux-src.md's dump runs)."""
import errno
import hashlib
import os

from harness import ROOT

FOLDER = os.path.join(ROOT, "build", "guest-ram")
LINE = hashlib.sha512(b"bootheap: guest RAM that no one wrote").digest()
CHUNK = 16 << 20


class PatternError(Exception):
    """A pattern file that cannot be made: one line naming the size needed."""


def path_for(mib, folder=None):
    return os.path.join(folder or FOLDER, f"pattern-{mib}M.bin")


def ensure(mib, folder=None, free=None):
    """The pattern file of `mib` MiB, made when it is not there yet -> its
    path. PatternError, naming the size needed and the room there, when the
    folder's file system has no room for it (free: its free bytes, for
    tests) or a write fails for want of it; nothing is left half-made."""
    folder = folder or FOLDER
    path = path_for(mib, folder)
    size = mib << 20
    if os.path.isfile(path) and os.path.getsize(path) == size:
        return path
    os.makedirs(folder, exist_ok=True)
    if free is None:
        st = os.statvfs(folder)
        free = st.f_bavail * st.f_frsize
    if free < size:
        raise PatternError(f"guest RAM on a pattern needs a {mib} MiB file in {os.path.relpath(folder, ROOT)}: "
                           f"{free >> 20} MiB free there")
    tmp = f"{path}.{os.getpid()}.tmp"
    block = LINE * (CHUNK // len(LINE))
    try:
        with open(tmp, "wb") as f:
            left = size
            while left:
                left -= f.write(block[:min(left, CHUNK)])
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise PatternError(f"guest RAM on a pattern needs a {mib} MiB file in "
                               f"{os.path.relpath(folder, ROOT)}: {e.strerror}")
        raise
    return path


def backend(ident, mib, folder=None):
    """QEMU's -object for `mib` MiB of guest RAM on the pattern, id `ident`."""
    return f"memory-backend-file,id={ident},size={mib}M,mem-path={ensure(mib, folder)},share=off"
