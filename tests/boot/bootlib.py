# SPDX-License-Identifier: MIT
"""Shared checks for the QEMU boot tests: boots through harness.boot, KTAP
parsing, and memory arithmetic done independently of the kernel: from the
raw map in the `boot` record and the build's symbol file, what the boot
allocator, the page tables, the frame table and the heap must hold."""
import json
import os
import re
import warnings

import pytest

from harness import ROOT
from harness.qemu import accel
from harness.results import oracle
from harness.qemu import command
from harness.qemu import boot as harness_boot

PAGE = 4096
E820_RAM = 1


def log_dir():
    """build/test-logs, made if need be: each boot's serial log and the notes `make test` sums up."""
    path = os.path.join(ROOT, "build", "test-logs")
    os.makedirs(path, exist_ok=True)
    return path


def boot(mode="pvh", mem="512M", append="", accel=None, timeout=240, **kw):
    """Boots quietly and returns harness.qemu's Result; the serial log is
    kept under build/test-logs/ for a failing test to point at. The
    accelerator is BOOTHEAP_ACCEL's (`make test ACCEL=...`) unless a test
    names one; a guest silent for BOOTHEAP_STALL seconds ends as 'stalled'."""
    accel = accel or command.default_accel()
    logdir = log_dir()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{mode}-{mem}-{append}")[:120]
    r = harness_boot.boot(mode=mode, mem=mem, append=append, accel=accel, timeout=timeout,
                          quiet=True, log_path=os.path.join(logdir, name + ".log"), **kw)
    note_silence(logdir, name, r)
    return r


def kvm_or_skip(mem, append="", mode="pvh"):
    """For a test's [kvm] variant: goes on only where the accelerator verdict
    for this boot's work says KVM (harness/qemu/accel.py, with ACCEL as `make
    test` was given it); anywhere else a skip that quotes the verdict."""
    acc, why, _ = accel.verdict(command.default_accel(), mode,
                                accel.Work.for_boot(command.parse_size(mem), append))
    if acc != "kvm":
        pytest.skip(f"the accelerator verdict for this boot is TCG: {why}")


def note_silence(logdir, name, r):
    """Appends the boot's longest serial silence to build/test-logs/silences.jsonl:
    the figures the default stall limit (harness/qemu/runner.py) is chosen from."""
    gap, after = r.max_gap()
    with open(os.path.join(logdir, "silences.jsonl"), "a") as f:
        f.write(json.dumps({"log": name, "status": r.status, "accel": r.accel,
                            "elapsed_s": round(r.elapsed, 2), "max_gap_s": round(gap, 2),
                            "before": (after or "")[:100]}) + "\n")


def explain(r):
    """Last lines of the log, for assertion messages."""
    stalled = f" (no serial output for {r.stall:g} s)" if r.status == "stalled" else ""
    return (f"status={r.status}{stalled} qemu_rc={r.qemu_rc} accel={r.accel}\n"
            f"--- serial tail ---\n{r.tail()}")


def record(r, rtype):
    """The single record of a type; fails if it is missing or repeated."""
    recs = [x for x in r.records() if x["type"] == rtype]
    assert len(recs) == 1, f"expected one {rtype!r} record, found {len(recs)}\n" + explain(r)
    return recs[0]


def records(r, rtype):
    return [x for x in r.records() if x["type"] == rtype]


def ktap(log):
    """Parses KTAP version 1 from a log: (plan, [(ok, number, name, directive)])."""
    lines = log.splitlines()
    try:
        start = lines.index("KTAP version 1")
    except ValueError:
        return None, []
    plan, results = None, []
    for line in lines[start + 1:]:
        m = re.fullmatch(r"1\.\.(\d+)", line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = re.fullmatch(r"(not ok|ok) (\d+) (\S+)(?: # (.*))?", line)
        if m:
            results.append((m.group(1) == "ok", int(m.group(2)), m.group(3), m.group(4) or ""))
    return plan, results


# A self-test that needed clean samples and got none ends `ok N name # SKIP
# inconclusive: why` (kernel/lib/selftest.h): neither a pass nor a failure.
INCONCLUSIVE = "SKIP inconclusive: "

# The only self-test skips a boot test accepts, each with why it is no
# failure; any other skip fails it: (name, reason as a regular expression
# over the whole reason, why allowed).
ALLOWED_SKIPS = (
    [(f"tsc_{c}_interval", f"the {c} is the source: the check would be circular",
      "the clock the TSC rate came from cannot check that rate") for c in ("pit", "hpet", "pmtimer")]
    + [(f"tsc_{c}_interval", f"the {c} is absent", "a machine without that clock (QEMU's hpet=off)")
       for c in ("hpet", "pmtimer")]
    + [("tsc_pit_interval", r"the pit is dead \(.*\)", "a machine without a working 8254 (QEMU's pit=off)"),
       ("kernel_is_w_xor_x", r"the CPU has no NX: .*",
        "a CPU without NX (QEMU's -cpu max,-nx) cannot keep data from running"),
       ("peers_hand_over_the_same_pages", r"no peer's page array was reserved: .*",
        "a boot whose strategies= names no peer, or a guest with no room for their page arrays")])


def skip_allowed(name, reason):
    """The ALLOWED_SKIPS entry that lets self-test `name` skip for `reason`, or None."""
    for n, why, because in ALLOWED_SKIPS:
        if n == name and re.fullmatch(why, reason):
            return because
    return None


def inconclusive(why):
    """Ends the running test as inconclusive: a visible skip that says so,
    and a line in build/test-logs/inconclusive.jsonl for `make test`'s summary."""
    note_inconclusive(current_test(), why)
    pytest.skip("inconclusive: " + why)


def current_test():
    """The running test's node id, as pytest sets it."""
    return os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]


def note_inconclusive(test, why):
    with open(os.path.join(log_dir(), "inconclusive.jsonl"), "a") as f:
        f.write(json.dumps({"test": test, "why": why}) + "\n")


def assert_ktap_ok(r, min_tests=1):
    """Fails on a missing or short plan, any 'not ok', a skip that
    ALLOWED_SKIPS does not allow, a summary that does not add up, a panic or
    a timeout. Inconclusive self-tests count as neither pass nor fail: each
    is noted for the summary and shown as a warning."""
    assert r.status != "timeout", "boot timed out\n" + explain(r)
    assert "panic:" not in r.log, "kernel panicked\n" + explain(r)
    plan, results = ktap(r.log)
    assert plan is not None, "no KTAP plan\n" + explain(r)
    assert plan >= min_tests, f"KTAP plan {plan} is below the {min_tests} tests expected\n" + explain(r)
    assert len(results) == plan, f"KTAP plan says {plan}, {len(results)} results\n" + explain(r)
    assert [n for _, n, _, _ in results] == list(range(1, plan + 1)), "KTAP numbering broken"
    bad = [name for ok, _, name, _ in results if not ok]
    assert not bad, f"self-tests failed: {bad}\n" + explain(r)
    unsure = [(name, d[len(INCONCLUSIVE):]) for _, _, name, d in results if d.startswith(INCONCLUSIVE)]
    skipped = [(name, d[len("SKIP "):]) for _, _, name, d in results
               if d.startswith("SKIP ") and not d.startswith(INCONCLUSIVE)]
    for name, why in skipped:
        assert skip_allowed(name, why), \
            f"self-test {name} skipped ({why}): no entry of bootlib.ALLOWED_SKIPS allows it\n" + explain(r)
    counts = (plan - len(skipped) - len(unsure), 0, len(skipped), len(unsure))
    assert f"# selftests: {counts[0]} passed, 0 failed, {counts[2]} skipped, {counts[3]} inconclusive" \
        in r.log, f"the kernel's summary does not say {counts}\n" + explain(r)
    assert r.status == "ok", "self-tests passed but the run did not exit ok\n" + explain(r)
    for name, why in unsure:
        note_inconclusive(f"{current_test()}: self-test {name}", why)
        warnings.warn(Inconclusive(f"self-test {name} inconclusive: {why}"))
    return results


class Inconclusive(UserWarning):
    """A self-test that had no clean samples: neither passed nor failed."""


# Lists every free block in each audit record, for check_heap(): enough for
# the guests these tests boot (a few hundred blocks), the kernel's maximum.
AUDIT_BLOCKS = "audit_blocks=4096"


def check_heap(r, min_audits=1):
    """Every audit record of r (booted with AUDIT_BLOCKS) against the heap
    harness.oracle works out from the memory record alone: each block, the
    counts per order and the digest. Returns the audit records."""
    audits = [a for a in records(r, "audit") if "kernel" not in a]     # Xen's heaps, not the peers'
    assert len(audits) >= min_audits, f"{len(audits)} audit records, {min_audits} wanted\n" + explain(r)
    problems = oracle.check_records(r.records())
    assert not problems, "\n".join(problems[:6]) + "\n" + explain(r)
    return audits


def ram_pages_in(entries):
    """Whole pages of type-1 RAM in a raw map, overlaps with other types and
    with each other resolved, the first MiB excluded - computed here without
    the kernel's sanitiser."""
    points = sorted({e["addr"] for e in entries} | {e["addr"] + e["len"] for e in entries})
    total = 0
    for lo, hi in zip(points, points[1:]):
        covering = [e["type"] for e in entries if e["addr"] <= lo and e["addr"] + e["len"] >= hi]
        if covering and all(t == E820_RAM for t in covering):
            total += hi - lo
    return total


def usable_ram_ranges(entries):
    """Sorted, merged [start, end) byte ranges that are RAM and nothing else."""
    points = sorted({e["addr"] for e in entries} | {min(e["addr"] + e["len"], 2**64) for e in entries})
    out = []
    for lo, hi in zip(points, points[1:]):
        covering = [e["type"] for e in entries if e["addr"] <= lo and e["addr"] + e["len"] >= hi]
        if covering and all(t == E820_RAM for t in covering):
            if out and out[-1][1] == lo:
                out[-1][1] = hi
            else:
                out.append([lo, hi])
    return out


# ---- what the kernel must have done with the map ---------------------------

MIB = 1 << 20
SECTION_PAGES = 1 << 18
LIMIT_PFN = 1 << 32                 # 16 TiB: the kernel's MAX_PHYS_ADDR
KEEP_MAX = 240                      # ranges the boot allocator keeps (docs/design.md, "How a run goes")
DIRECTMAP_BASE = 0xffff800000000000
FRAMETABLE_BASE = 0xffffc00000000000
M2P_BASE = 0xffffc80000000000
IOMAP_BASE = 0xffffd00000000000
PAGE_INFO_BYTES, M2P_ENTRY_BYTES = 32, 8
# The peers' page arrays (mm/peers/peer.h): base, entry bytes, the memory summary's name, their strategies.
PEER_LAYOUTS = {
    "linux": (0xffffd80000000000, 64, "Linux struct page array", ("linux", "linux_deferred", "linux612")),
    "freebsd": (0xffffe00000000000, 88, "FreeBSD vm_page array", ("freebsd_lazy", "freebsd_lazy0")),
}


def peer_layouts_wanted(cmdline):
    """The peers' layouts a boot backs: those its strategies= names (all without
    the option), none with memonly (kernel/main.c)."""
    words = cmdline.split()
    if "memonly" in words:
        return []
    chosen = next((w.split("=", 1)[1].split(",") for w in words if w.startswith("strategies=")), None)
    return [name for name, (_, _, _, strategies) in PEER_LAYOUTS.items()
            if chosen is None or any(s in chosen for s in strategies)]


def symbols():
    """Every symbol of the build's symbol map, by name."""
    syms = {}
    with open(os.path.join(ROOT, "build", "bootheap.sym")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                syms[parts[2]] = int(parts[0], 16)
    return syms


def kernel_image(load_addr=None):
    """[start, end) of the image, from the symbol map: where it was linked,
    or where it was loaded when load_addr (the boot record's) says."""
    syms = symbols()
    start, end = syms["__kernel_phys_start"], syms["__kernel_phys_end"]
    if load_addr is None:
        return start, end
    return load_addr, load_addr + end - start


def subtract(regions, start, end):
    """Page regions [s, e) minus the pages touching bytes [start, end), and
    how many pages that removed."""
    s_pfn, e_pfn = start // PAGE, -(-end // PAGE)
    out, removed = [], 0
    for s, e in regions:
        if e <= s_pfn or s >= e_pfn:
            out.append((s, e))
            continue
        removed += min(e, e_pfn) - max(s, s_pfn)
        if s < s_pfn:
            out.append((s, s_pfn))
        if e > e_pfn:
            out.append((e_pfn, e))
    return out, removed


def direct_map_top(entries):
    """The end of the highest RAM, ACPI or NVS range, at least 4 GiB, at most 16 TiB."""
    points = sorted({e["addr"] for e in entries} | {e["addr"] + e["len"] for e in entries})
    top = 1 << 32
    for lo, hi in zip(points, points[1:]):
        covering = [e["type"] for e in entries if e["addr"] <= lo and e["addr"] + e["len"] >= hi]
        if covering and all(t in (1, 3, 4) for t in covering):
            top = max(top, hi)
    return min(top, LIMIT_PFN * PAGE)


def table_pages(mappings):
    """Page-table pages (PML4 included) to map [(va, bytes, page_shift)]."""
    pdpt, pd, pt = set(), set(), set()
    for va, size, shift in mappings:
        for a in range(va, va + size, 1 << shift):
            pdpt.add(a >> 39)
            if shift < 30:
                pd.add(a >> 30)
            if shift < 21:
                pt.add(a >> 21)
    return 1 + len(pdpt) + len(pd) + len(pt)


def expected_memory(boot_rec, hpet_mapped=True):
    """What the `memory` record must say, worked out from the raw map, the
    loader's reservations and the symbol file alone."""
    syms = symbols()
    regions = []
    for lo, hi in usable_ram_ranges(boot_rec["mmap"]):
        s, e = -(-lo // PAGE), min(hi // PAGE, LIMIT_PFN)
        if s < e:
            regions.append((s, e))
    taken = {}
    for what, start, end in [("first MiB", 0, MIB),
                             ("kernel image and stacks", *kernel_image(boot_rec["load_addr"]))] + \
            [(x["what"], x["start"], x["end"]) for x in boot_rec["reserved"]]:
        regions, removed = subtract(regions, start, end)
        taken[what] = taken.get(what, 0) + removed * PAGE
    # More ranges than the boot allocator keeps: the largest stay (the lower
    # address first among equal sizes), the others are left out.
    usable_regions = len(regions)
    ranked = sorted(regions, key=lambda r: (-(r[1] - r[0]), r[0]))
    regions, left_out = sorted(ranked[:KEEP_MAX]), sorted(ranked[KEEP_MAX:])
    free = sum(e - s for s, e in regions)
    max_pfn = regions[-1][1]

    # Frame table and M2P: per 1 GiB section holding usable RAM, in 2 MiB steps.
    sections = sorted({p // SECTION_PAGES for s, e in regions
                       for p in range(s - s % SECTION_PAGES, e, SECTION_PAGES) if p + SECTION_PAGES > s})
    ft = m2p = 0
    maps = []
    for sec in sections:
        frames = min(max_pfn - sec * SECTION_PAGES, SECTION_PAGES)
        f = -(-frames * PAGE_INFO_BYTES // (2 * MIB)) * 2 * MIB
        m = -(-frames * M2P_ENTRY_BYTES // (2 * MIB)) * 2 * MIB
        maps += [(FRAMETABLE_BASE + sec * SECTION_PAGES * PAGE_INFO_BYTES, f, 21),
                 (M2P_BASE + sec * SECTION_PAGES * M2P_ENTRY_BYTES, m, 21)]
        ft, m2p = ft + f, m2p + m

    # The peers' arrays, per section as the frame table, and Linux's
    # pageblock bits (4 per 512 pages, whole 8-byte words, whole pages).
    peers = {}
    for name in peer_layouts_wanted(boot_rec.get("cmdline", "")):
        base, entry, what, _ = PEER_LAYOUTS[name]
        total = 0
        for sec in sections:
            frames = min(max_pfn - sec * SECTION_PAGES, SECTION_PAGES)
            b = -(-frames * entry // (2 * MIB)) * 2 * MIB
            maps.append((base + sec * SECTION_PAGES * entry, b, 21))
            total += b
        if name == "linux":
            pageblocks = -(-max_pfn // 512)
            total += -(-(-(-pageblocks // 16) * 8) // PAGE) * PAGE
        peers[what] = total

    # Page tables: the direct map, the kernel W^X in 4 KiB pages, the frame
    # table and M2P in 2 MiB pages, and the HPET's registers in a device page.
    dm_page = 1 << 30 if boot_rec["gbpages"] else 2 * MIB
    dm_bytes = -(-direct_map_top(boot_rec["mmap"]) // dm_page) * dm_page
    maps.append((DIRECTMAP_BASE, dm_bytes, 30 if boot_rec["gbpages"] else 21))
    for lo, hi in (("__text_start", "__text_end"), ("__rodata_start", "__rodata_end"),
                   ("__data_start", "__bss_end")):
        start = syms[lo]
        maps.append((start, -(-(syms[hi] - start) // PAGE) * PAGE, 12))
    if hpet_mapped:
        maps.append((IOMAP_BASE, PAGE, 12))
    tables = table_pages(maps)
    bitmap_pages = -(-(-(-max_pfn // 64) * 8) // PAGE)
    return {
        "regions": regions, "usable_regions": usable_regions, "left_out": left_out,
        "max_pfn": max_pfn, "sections": sections, "loader": taken,
        "frame_table_bytes": ft, "m2p_bytes": m2p, "direct_map_bytes": dm_bytes,
        "direct_map_page": dm_page, "table_pages": tables, "bitmap_pages": bitmap_pages,
        "peers": peers,
        "heap_pages": free - tables - (ft + m2p) // PAGE - bitmap_pages - sum(peers.values()) // PAGE,
    }


def hpet_mapped(r):
    """Whether the kernel mapped an HPET: the ACPI tables described one."""
    cal = [x for x in r.records() if x["type"] == "calibration"]
    return bool(cal) and any(c["name"] == "hpet" and c["status"] != "absent"
                             for c in cal[0]["checks"])
