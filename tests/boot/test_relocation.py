# SPDX-License-Identifier: MIT
"""The image loads wherever the firmware leaves room: with the relocatable
tag's preference high, GRUB places it far from its 2 MiB link address under
SeaBIOS and under OVMF, and the kernel runs, reserves and reports the memory
it really occupies there. (The benchmark runs on the relocated image in
tests/boot/test_screen.py, which checks the placement with check_placement.)"""
import pytest

from bootlib import (AUDIT_BLOCKS, assert_ktap_ok, boot, check_heap, explain, kernel_image, record,
                     usable_ram_ranges)
from test_memory import check_memory

MIB = 1 << 20
GIB = 1 << 30


def check_placement(r):
    """The image sits on a 2 MiB boundary, away from 2 MiB, high in the RAM
    below 4 GiB, and the console says where. Returns its [start, end)."""
    b = record(r, "boot")
    link_start, _ = kernel_image()
    start, end = kernel_image(b["load_addr"])
    assert start != link_start, f"GRUB left the image at its link address\n" + explain(r)
    assert start % (2 * MIB) == 0 and start >= 2 * MIB and end <= 4 * GIB, hex(start)
    top = max(hi for lo, hi in usable_ram_ranges(b["mmap"]) if lo < 4 * GIB)
    assert start > min(top, 4 * GIB) // 2, f"image at {start:#x} is not high below {top:#x}"
    assert f"image: loaded at {start:#x} (linked at {link_start:#x})" in r.log, explain(r)
    return start, end


@pytest.mark.parametrize("mode", ["iso-bios", "iso-uefi"])
def test_relocated_image_selftests_and_memory(mode):
    r = boot(mode, "1G", f"selftest {AUDIT_BLOCKS}", timeout=300)
    assert_ktap_ok(r, min_tests=9)
    check_heap(r, min_audits=4)
    start, end = check_placement(r)
    # The memory summary reserves the image where it is (check_memory
    # computes the free pages with it there), and the link address's pages
    # went to the heap.
    m = check_memory(r)
    link_start, link_end = kernel_image()
    assert not any(s * 4096 < end and e * 4096 > start for s, e in m["bootmem"]), m["bootmem"]
    assert any(s * 4096 < link_end and e * 4096 > link_start for s, e in m["bootmem"]), m["bootmem"]

