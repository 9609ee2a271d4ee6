# SPDX-License-Identifier: MIT
"""Boot-info facts only a real boot shows: QEMU's PVH module reaches the boot
record and the reserved ranges, and the heap is built around it."""
import os

import pytest

from bootlib import AUDIT_BLOCKS, ROOT, boot, check_heap, explain, record

MIB = 1 << 20
BUILD = os.path.join(ROOT, "build")


@pytest.mark.parametrize("size", [12345, MIB + 1])
def test_pvh_module_is_reserved(size):
    path = os.path.join(BUILD, "test-initrd", f"initrd-{size}.bin")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(bytes(i * 7 % 251 for i in range(size)))

    r = boot("pvh", "256M", f"runs=1 {AUDIT_BLOCKS}", extra=["-initrd", path], timeout=60)
    assert r.status == "ok", explain(r)
    b = record(r, "boot")
    assert b["loader"] == "pvh", explain(r)
    assert b["modules"] == 1, explain(r)
    mods = [x for x in b["reserved"] if x["what"] == "PVH module"]
    assert len(mods) == 1, b["reserved"]
    start, end = mods[0]["start"], mods[0]["end"]
    assert end - start == size, (start, end, size)
    # QEMU loads the module into RAM that the map lists as such.
    assert any(e["type"] == 1 and e["addr"] <= start and end <= e["addr"] + e["len"]
               for e in b["mmap"]), (start, end, b["mmap"])
    # One 32-byte module list entry, and the console line agrees.
    lists = [x for x in b["reserved"] if x["what"] == "PVH module list"]
    assert [x["end"] - x["start"] for x in lists] == [32], b["reserved"]
    assert f"module 0: [{start:#x}, {end:#x}) " in r.log, explain(r)
    # Every heap is the one the memory record defines, and no free block
    # reaches into the module.
    for a in check_heap(r, min_audits=4):
        assert not [b for b in a["block_list"]
                    if b[0] * 4096 < end and (b[0] + (1 << b[1])) * 4096 > start], a["block_list"]
