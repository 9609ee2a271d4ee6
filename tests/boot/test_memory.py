# SPDX-License-Identifier: MIT
"""Memory bring-up on real QEMU maps (issue: memory map, boot allocator,
direct map and frame table). The expected figures are computed here from the
`boot` record's raw map, independently of the kernel's sanitiser."""
import os

import pytest

from bootlib import ROOT, assert_ktap_ok, boot, explain, record, usable_ram_ranges

PAGE = 4096
MIB = 1 << 20
SECTION_PAGES = 1 << 18
LIMIT_PFN = 1 << 32          # 16 TiB: the kernel's MAX_PHYS_ADDR


def kernel_image():
    """[start, end) of the loaded image, from the build's symbol map."""
    syms = {}
    with open(os.path.join(ROOT, "build", "bootheap.sym")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                syms[parts[2]] = int(parts[0], 16)
    return syms["__kernel_phys_start"], syms["__kernel_phys_end"]


def subtract(regions, start, end):
    """Page regions [s, e) minus the pages touching bytes [start, end)."""
    s_pfn, e_pfn = start // PAGE, -(-end // PAGE)
    out = []
    for s, e in regions:
        if e <= s_pfn or s >= e_pfn:
            out.append((s, e))
            continue
        if s < s_pfn:
            out.append((s, s_pfn))
        if e > e_pfn:
            out.append((e_pfn, e))
    return out


def expected_free(boot_rec):
    """Page regions the boot allocator should start with: whole pages of RAM
    below 16 TiB, minus the first MiB, the kernel image and loader data."""
    regions = []
    for lo, hi in usable_ram_ranges(boot_rec["mmap"]):
        s, e = -(-lo // PAGE), min(hi // PAGE, LIMIT_PFN)
        if s < e:
            regions.append((s, e))
    regions = subtract(regions, 0, MIB)
    regions = subtract(regions, *kernel_image())
    for r in boot_rec["reserved"]:
        regions = subtract(regions, r["start"], r["end"])
    return sorted(regions)


def check_memory(r):
    b, m = record(r, "boot"), record(r, "memory")
    regions = expected_free(b)
    pages = sum(e - s for s, e in regions)
    assert pages > 0, explain(r)

    # Everything usable either reached the heap or went to the kernel's own
    # tables, and the summary accounts for each of those bytes.
    took = {x["what"]: x["bytes"] for x in m["reserved"]}
    own = took["page tables"] + took["frame table and M2P"] + took["audit bitmap"]
    assert own % PAGE == 0
    assert m["heap_pages"] + own // PAGE == pages, (m["heap_pages"], own // PAGE, pages)
    assert m["ram_bytes"] == sum(hi - lo for lo, hi in usable_ram_ranges(b["mmap"]))

    # Frame table: one 32-byte entry per frame up to the highest usable page,
    # backed per 1 GiB section that holds usable RAM, in 2 MiB steps.
    max_pfn = regions[-1][1]
    assert m["max_pfn"] == max_pfn
    sections = sorted({p // SECTION_PAGES for s, e in regions
                       for p in range(s - s % SECTION_PAGES, e, SECTION_PAGES) if p + SECTION_PAGES > s})
    ft = m2p = 0
    for sec in sections:
        frames = min(max_pfn - sec * SECTION_PAGES, SECTION_PAGES)
        ft += -(-frames * 32 // (2 * MIB)) * 2 * MIB
        m2p += -(-frames * 8 // (2 * MIB)) * 2 * MIB
    assert m["frame_table"]["entry_bytes"] == 32
    assert m["frame_table"]["sections"] == len(sections)
    assert m["frame_table"]["bytes"] == ft
    assert m["m2p_bytes"] == m2p
    assert took["frame table and M2P"] == ft + m2p

    # The direct map reaches every RAM byte, with the page size CPUID allows.
    top = max([e["addr"] + e["len"] for e in b["mmap"] if e["type"] in (1, 3, 4)] + [1 << 32])
    dm = m["direct_map"]
    assert dm["page_size"] == (1 << 30 if b["gbpages"] else 2 * MIB)
    assert dm["bytes"] >= min(top, 1 << 44) and dm["bytes"] % dm["page_size"] == 0
    # The boot allocator's regions are exactly the expected ones, less what
    # the kernel allocated: each lies inside an expected region.
    for s, e in m["bootmem"]:
        assert any(rs <= s and e <= re for rs, re in regions), (s, e)
    return m


# 90G is larger than this machine's free RAM: the harness starts it with
# reserve=off, and only what the kernel touches costs host memory.
@pytest.mark.parametrize("mem", ["128M", "1G", "3584M", "4097M", "16G", "90G"])
def test_memory_summary_pvh(mem):
    r = boot("pvh", mem, "selftest", timeout=900)
    assert_ktap_ok(r, min_tests=9)
    check_memory(r)


def test_memory_summary_uefi_fragmented_map():
    # OVMF's map: many entries, GRUB's type 20, ACPI and NVS among the RAM.
    r = boot("iso-uefi", "1G", "selftest", timeout=300)
    assert_ktap_ok(r, min_tests=9)
    b = record(r, "boot")
    assert len(b["mmap"]) > 10, "expected OVMF's fragmented map\n" + explain(r)
    assert any(e["type"] not in (1, 2, 3, 4, 5) for e in b["mmap"]) or \
        any(e["type"] == 4 for e in b["mmap"])
    check_memory(r)


def test_too_little_ram_is_a_clean_failure():
    # 8 MiB leaves no room for the 2 MiB-aligned frame table and M2P chunks:
    # a panic that names what ran out, a fail record, a failure exit.
    r = boot("pvh", "8M", "", timeout=60)
    assert r.status == "fail", explain(r)
    assert "panic: out of boot memory for the" in r.log, explain(r)
    done = record(r, "done")
    assert done["status"] == "fail" and "out of boot memory" in done["reason"]
