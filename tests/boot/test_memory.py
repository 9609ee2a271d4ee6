# SPDX-License-Identifier: MIT
"""Memory bring-up on real QEMU maps (issue: memory map, boot allocator,
direct map and frame table). Every figure of the `memory` record is
recomputed here from the `boot` record's raw map and the symbol file
(bootlib.expected_memory), independently of the kernel's sanitiser, and
every heap built on them against the one the host works out from the
memory record (harness.oracle)."""
import pytest

from bootlib import (AUDIT_BLOCKS, KEEP_MAX, MIB, assert_ktap_ok, boot, check_heap, expected_memory,
                     explain, hpet_mapped, record, usable_ram_ranges)

PAGE = 4096


def check_memory(r):
    b, m = record(r, "boot"), record(r, "memory")
    want = expected_memory(b, hpet_mapped(r))
    assert want["heap_pages"] > 0, explain(r)

    # A map with more ranges than the boot allocator keeps loses its smallest
    # ones, every one of them named; most maps lose none.
    assert m["usable_regions"] == want["usable_regions"]
    assert [tuple(x) for x in m["left_out"]] == want["left_out"]
    assert m["left_out_pages"] == sum(e - s for s, e in want["left_out"])

    # What the kernel took, by name, each worked out here.
    took = {x["what"]: x["bytes"] for x in m["reserved"]}
    for what, nbytes in want["loader"].items():
        assert took.get(what, 0) == nbytes, (what, took.get(what), nbytes)
    assert took["page tables"] == want["table_pages"] * PAGE, (took["page tables"], want["table_pages"])
    assert m["direct_map"]["table_pages"] == want["table_pages"]
    assert took["frame table and M2P"] == want["frame_table_bytes"] + want["m2p_bytes"]
    assert took["audit bitmap"] == want["bitmap_pages"] * PAGE, (took["audit bitmap"], want["bitmap_pages"])
    # The peers' page arrays, backed only when a peer will run (not under memonly).
    for what in ("Linux struct page array", "FreeBSD vm_page array"):
        assert took.get(what, 0) == want["peers"].get(what, 0), (what, took.get(what), want["peers"])
    # The other CPUs' stacks, the node map and the parallel init's private
    # heaps come from boot memory too, in pages.
    smp_own = sum(took.get(k, 0) for k in ("CPU stacks and tables", "node map", "parallel init heaps"))
    assert smp_own % PAGE == 0, smp_own
    # Everything usable that the kernel did not take reached the heap.
    assert m["heap_pages"] == want["heap_pages"] - smp_own // PAGE, (m["heap_pages"], want["heap_pages"])
    assert m["ram_bytes"] == sum(hi - lo for lo, hi in usable_ram_ranges(b["mmap"]))

    # Frame table: one 32-byte entry per frame up to the highest usable page,
    # backed per 1 GiB section that holds usable RAM, in 2 MiB steps.
    assert m["max_pfn"] == want["max_pfn"]
    assert m["frame_table"]["entry_bytes"] == 32
    assert m["frame_table"]["sections"] == len(want["sections"])
    assert m["frame_table"]["bytes"] == want["frame_table_bytes"]
    assert m["m2p_bytes"] == want["m2p_bytes"]

    # The direct map reaches every RAM byte, with the page size CPUID allows.
    dm = m["direct_map"]
    assert (dm["page_size"], dm["bytes"]) == (want["direct_map_page"], want["direct_map_bytes"])
    # The boot allocator's regions are exactly the expected ones, less what
    # the kernel allocated: each lies inside an expected region.
    for s, e in m["bootmem"]:
        assert any(rs <= s and e <= re for rs, re in want["regions"]), (s, e)
    return m


# 90G is larger than this machine's free RAM: the harness starts it with
# reserve=off, and only what the kernel touches costs host memory.
@pytest.mark.parametrize("mem", ["128M", "1G", "3584M", "4097M", "16G", "90G"])
def test_memory_summary_pvh(mem):
    r = boot("pvh", mem, f"selftest {AUDIT_BLOCKS}", timeout=900)
    assert_ktap_ok(r, min_tests=9)
    check_memory(r)
    check_heap(r, min_audits=4)


# mm/paging.c's other paths: a CPU without 1 GiB pages maps the direct map
# in 2 MiB pages, one without NX leaves every page executable; an older
# model (core2duo) lacks 1 GiB pages too.
@pytest.mark.parametrize("cpu,gbpages,nx", [("max,-pdpe1gb,-nx", False, False), ("max,-pdpe1gb", False, True),
                                            ("max,-nx", True, False), ("core2duo", False, True)])
def test_paging_without_gbpages_or_nx(cpu, gbpages, nx):
    r = boot("pvh", "1G", "selftest", cpu=cpu)
    results = assert_ktap_ok(r, min_tests=9)
    b = record(r, "boot")
    assert (b["gbpages"], b["nx"]) == (gbpages, nx), explain(r)
    m = check_memory(r)         # the page tables counted for this page size
    page = (1 << 30) if gbpages else (2 << 20)
    assert m["direct_map"]["page_size"] == page
    assert (f"direct map: {m['direct_map']['bytes'] >> 30} GiB with {'1 GiB' if gbpages else '2 MiB'} pages; "
            f"{m['direct_map']['table_pages']} page-table pages") in r.log, explain(r)
    wx = {name: why for _, _, name, why in results}["kernel_is_w_xor_x"]
    assert wx == ("" if nx else "SKIP the CPU has no NX: data cannot be kept from running (text and rodata "
                                "checked read-only)"), explain(r)


def test_memory_summary_uefi_fragmented_map():
    # OVMF's map: many entries, GRUB's type 20, ACPI and NVS among the RAM.
    r = boot("iso-uefi", "1G", f"selftest {AUDIT_BLOCKS}", timeout=300)
    assert_ktap_ok(r, min_tests=9)
    check_heap(r, min_audits=4)
    b = record(r, "boot")
    assert len(b["mmap"]) > 10, "expected OVMF's fragmented map\n" + explain(r)
    assert any(e["type"] not in (1, 2, 3, 4, 5) for e in b["mmap"]) or \
        any(e["type"] == 4 for e in b["mmap"])
    check_memory(r)


def cutmem_holes(n, base=64 * MIB, step=128 << 10, hole=4 << 10):
    """GRUB commands cutting n holes of `hole` bytes, `step` apart, from RAM at base."""
    return [f"cutmem {(base + i * step) >> 10}K {(base + i * step + hole) >> 10}K" for i in range(n)]


def test_map_larger_than_the_boot_allocator():
    # GRUB's cutmem punches 300 holes: more RAM ranges than the boot
    # allocator's 256 entries, which Xen and this kernel until now could only
    # panic on. The kernel keeps the largest, names the rest, and every audit
    # counts the pages left out.
    r = boot("iso-bios", "1G", f"runs=1 strategies=chunk,lazy {AUDIT_BLOCKS}",
             grub_cmds=cutmem_holes(300), timeout=300)
    assert r.status == "ok", explain(r)
    m = check_memory(r)
    assert m["usable_regions"] > 256 and len(m["left_out"]) == m["usable_regions"] - KEEP_MAX
    assert f"boot allocator keeps the {KEEP_MAX} largest: {len(m['left_out'])} regions, " \
           f"{m['left_out_pages']} pages" in r.log, explain(r)
    assert f"note: {m['left_out_pages']} pages of RAM in {len(m['left_out'])} regions were left out" \
        in r.log, explain(r)
    audits = check_heap(r, min_audits=2)
    assert all(a["ok"] and a["expected_pages"] == m["heap_pages"] for a in audits)


def test_too_little_ram_is_a_clean_failure():
    # 8 MiB leaves no room for the 2 MiB-aligned frame table and M2P chunks:
    # a panic that names what ran out, a fail record, a failure exit.
    r = boot("pvh", "8M", "", timeout=60)
    assert r.status == "fail", explain(r)
    assert "panic: out of boot memory for the" in r.log, explain(r)
    done = record(r, "done")
    assert done["status"] == "fail" and "out of boot memory" in done["reason"]


# ---- the lazy self-test on a guest too small for the largest orders ----------

MAX_ORDER = 18


def buddy_blocks(regions):
    """(zone, order) of each block of the canonical buddy decomposition of
    frame regions [s, e): the largest naturally aligned block that fits, at
    most MAX_ORDER; a block's zone is its first frame's bit width."""
    out = []
    for s, e in regions:
        while s < e:
            order = min(MAX_ORDER, (e - s).bit_length() - 1, (s & -s).bit_length() - 1)
            out.append((s.bit_length(), order))
            s += 1 << order
    return out


def orders_refused(blocks):
    """The orders 0..MAX_ORDER that a heap of these free blocks refuses when
    each is asked for in turn and held: a request takes a block of the
    highest zone that has one large enough, the smallest there, and keeps
    the halves it splits off (Xen's get_free_buddy() and alloc_heap_pages())."""
    free, refused = list(blocks), []
    for want in range(MAX_ORDER + 1):
        fit = [b for b in free if b[1] >= want]
        if not fit:
            refused.append(want)
            continue
        zone, order = max(fit, key=lambda b: (b[0], -b[1]))
        free.remove((zone, order))
        free += [(zone, o) for o in range(want, order)]
    return refused


def test_lazy_selftest_names_the_orders_a_small_guest_lacks():
    r = boot("pvh", "256M", "selftest selftest_only=lazy_allocates_every_order")
    assert_ktap_ok(r)
    m = record(r, "memory")
    assert sum(e - s for s, e in m["bootmem"]) == m["heap_pages"], explain(r)
    refused = orders_refused(buddy_blocks(m["bootmem"]))
    # 256 MiB holds fewer than 2^16 free pages: order 16 at least is missing.
    assert refused and refused == list(range(refused[0], MAX_ORDER + 1)) and refused[0] <= 16, refused
    assert (f"# lazy_allocates_every_order: orders {refused[0]}-{MAX_ORDER} not checked: the heap of "
            f"{m['heap_pages']} pages has no block of order {refused[0]} or more") in r.log, explain(r)
