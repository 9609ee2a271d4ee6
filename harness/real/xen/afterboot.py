# SPDX-License-Identifier: MIT
"""The heap after boot, as the dom0 boots of `xen-src` leave it
(harness/real/xen/variants.py, functional()). With `heap-dump`, Xen
prints the heap once end_boot_allocator() returns and again once the boot
modules have gone to the heap (4.17's discard_initial_images(), 4.20's and staging's
free_boot_modules()), naming each range it handed over on the way
(heapdump.py reads both dumps). Here each dump is checked against itself,
the boot one against the canonical heap of its regions, the variants of
one build against one another at each stage, and the blocks that merged
across a range's edge are counted.

A block merged across an edge when its pages came over in two hand-overs:
an edge E of one of the boot allocator's regions (end_boot_allocator()
hands each over in calls of its own) or of one of the ranges handed over
after boot lies strictly inside it (mfn < E < mfn + 2^order). Only the
merging of free_heap_pages() (or sweep's sweep_merge()) builds such a
block: the chunks of one range are the largest aligned blocks that fit in
it, and never merge with one another."""
import bisect
import re

from harness.real.xen import carveout, heapdump

# How many merged blocks a record names (all are counted).
NAMED = 8
# patches/xen/staging-parallel's piece, what a CPU marks in a round: 128 MiB.
PIECE_PAGES = 1 << 15


def edges(ranges):
    """Every first and end MFN of the ranges, sorted, each once."""
    return sorted({x for s, e in ranges for x in (s, e)})


def across(blocks, ranges):
    """The blocks [(node, zone, order, mfn, ...)] with an edge of the
    ranges [(s, e)] strictly inside -> [(mfn, order, the lowest such edge)],
    in MFN order."""
    es, out = edges(ranges), []
    for b in blocks:
        order, mfn = b[2], b[3]
        i = bisect.bisect_right(es, mfn)
        if i < len(es) and es[i] < mfn + (1 << order):
            out.append((mfn, order, es[i]))
    return sorted(out)


class Reading:
    """One dom0 boot's heap: boot and after (Dumps), the stage's name, and
    the problems the dumps show of themselves."""

    def __init__(self, boot, after, stage, problems):
        self.boot, self.after, self.stage, self.problems = boot, after, stage, problems

    def merged_at_boot(self):
        return across(self.boot.blocks, self.boot.regions)

    def merged_after(self):
        """The after-boot heap's blocks across the edge of a region or of a range handed over since."""
        return across(self.after.blocks, self.boot.regions + self.after.ranges)

    def as_record(self):
        at_boot, after = self.merged_at_boot(), self.merged_after()
        named = [{"mfn": m, "order": o, "edge": e} for m, o, e in after[:NAMED]]
        return {"stage": self.stage, "ranges": [list(r) for r in self.after.ranges],
                "merges_boot": len(at_boot), "merges_after": len(after), "merged_after": named,
                "boot_dump": self.boot.as_record(), "after_dump": self.after.as_record()}


def read(log, rule="4.17", boot_node=0):
    """A dom0 boot's serial log -> Reading. Raises heapdump.DumpError when
    either dump is missing or cut short (the dump patch or `heap-dump`
    absent, or Xen stopped before its boot modules were freed)."""
    boot = heapdump.parse(log)
    boot.nodes = heapdump.nodes_of(log)
    problems = [f"at boot: {p}" for p in heapdump.check(boot) +
                heapdump.against_oracle(boot, boot.nodes, rule, boot_node)]
    later = heapdump.stages(log)
    if not later:
        raise heapdump.DumpError("the log has the boot dump but no later one ('heapdump: stage'): the "
                                 "dump patch predates it, or Xen stopped before it freed its boot modules")
    after = heapdump.parse(log, later[0])
    problems += [f"after {later[0]}: {p}" for p in heapdump.check(after)]
    if not after.ranges:
        problems.append(f"after {later[0]}: no range handed over is named ('heapdump: range')")
    return Reading(boot, after, later[0], problems)


def compare(readings, boot_node=0):
    """{variant: Reading} of one build -> (problems, notes). At boot as
    make xen-src holds its boots (heapdump.compare(), the carve-out rules'
    named case a note); after boot chunk and sweep entry for entry, list
    order included, and every other variant to chunk's digests. A variant
    whose boot heap was a named case may differ after boot too: a note
    saying so, with the first difference."""
    if len(readings) < 2:
        return [], []
    notes = []
    boots = {v: r.boot for v, r in readings.items()}
    nodes = next(iter(boots.values())).nodes
    problems = [f"at boot: {p}" for p in heapdump.compare(boots, nodes, boot_node, notes)]
    named = {v for v in readings if any(n.startswith(f"{v} and ") for n in notes)}
    ref = "chunk" if "chunk" in readings else next(iter(readings))
    for v, r in readings.items():
        if v == ref:
            continue
        diff = heapdump.compare({ref: readings[ref].after, v: r.after})
        stage = r.stage if r.stage == readings[ref].stage else f"{readings[ref].stage}/{r.stage}"
        if not diff:
            continue
        if v in named:
            notes.append(f"after {stage}: {v} differs from {ref} as its boot heap did, where "
                         f"{carveout.RULE_OF.get(v, '4.17')}'s carve-out rule explains it: {diff[0]}")
        else:
            problems.append(f"after {stage}: {diff[0]}")
    return problems, notes


# patches/xen/staging-parallel's line for what it gives a node back, the
# top block (or what it kept of one) of what it kept back, for its
# allocations before SMP bring-up, handed over last in end_boot_allocator().
KEPT_LINE = re.compile(r"Heap: node (\d+): block (0x[0-9a-f]+) kept for allocations before SMP bring-up")


def runs(blocks):
    """Blocks [(node, zone, order, mfn, ...)] -> the runs of MFNs they
    hold [(s, e)], sorted, touching ones joined."""
    out = []
    for s, e in sorted((b[3], b[3] + (1 << b[2])) for b in blocks):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def minus(a, b):
    """The MFNs of runs `a` not in runs `b` (both as runs() makes them) -> runs."""
    out, j = [], 0
    for s, e in a:
        while j < len(b) and b[j][1] <= s:
            j += 1
        k = j
        while s < e and k < len(b) and b[k][0] < e:
            if b[k][0] > s:
                out.append((s, b[k][0]))
            s = max(s, b[k][1])
            k += 1
        if s < e:
            out.append((s, e))
    return out


def unmerged(blocks, top):
    """The blocks below order `top` whose buddy is listed at their order on
    their node and zone -> {(node, zone, order, mfn)}: a pair merge_free_chunk()
    would have merged."""
    have = {b[:4] for b in blocks}
    return {(n, z, o, m) for n, z, o, m in have if o < top and (n, z, o, m ^ (1 << o)) in have}


def kept_back(series, on, handed_pages, top, kept=()):
    """The serial heap at boot (`series`: heap-init-smp=0's) against
    heap-init-smp=1's (`on`) -> [problem]. The pages `on` lists free are
    the serial heap's less what was kept back: runs of whole aligned pieces
    (patches/xen/staging-parallel keeps back PIECE_PAGES at a time), as many
    pages as its initcall says it handed over after SMP bring-up. Each MFN
    `kept` (what the boot log says a node was given back) is listed. And
    `on` is merged as far as it goes: no two of its blocks are buddies that
    the serial heap leaves apart too."""
    out = []
    have, want = runs(on.blocks), runs(series.blocks)
    extra = minus(have, want)
    if extra:
        out.append(f"{sum(e - s for s, e in extra)} pages free at boot that the serial heap does not list, the "
                   f"first at mfn 0x{extra[0][0]:x}")
    out += [f"block 0x{m:x}, said kept for allocations before SMP bring-up, is not listed at boot"
            for m in kept if not any(s <= m < e for s, e in have)]
    pairs = sorted(unmerged(on.blocks, top) - unmerged(series.blocks, top), key=lambda b: b[3])
    if pairs:
        n, z, o, m = pairs[0]
        out.append(f"{len(pairs)} blocks at boot listed beside their free buddy, the first node {n} zone {z} "
                   f"order {o} mfn 0x{m:x}")
    lacking = minus(want, have)
    odd = [(s, e) for s, e in lacking if s % PIECE_PAGES or e % PIECE_PAGES]
    if odd:
        out.append(f"{len(odd)} runs the serial boot heap lists and heap-init-smp=1 kept back are not whole "
                   f"{PIECE_PAGES >> 8} MiB pieces, the first [0x{odd[0][0]:x}, 0x{odd[0][1]:x})")
    if sum(e - s for s, e in lacking) != handed_pages:
        out.append(f"the serial heap lists {sum(e - s for s, e in lacking)} pages at boot that heap-init-smp=1 "
                   f"does not, and it said it handed {handed_pages} over after SMP bring-up")
    return out


def hold_parallel(logs, said_re, top=18):
    """The serial logs of one case's dump boots {stock, series, smp-off,
    smp-on} (harness/real/xen/smp/boots.py, dump_boots()) -> {problems,
    said, ...}. Each heap holds together (check()) and, but smp-on's, is
    the canonical heap of its regions at boot (read()). Stock and the series
    are one heap, entry for entry, at boot and after the boot modules went
    (compare()). The parallel build, one page larger, has other regions, so
    it is held to itself: with heap-init-smp=1 its heap at boot is its
    heap-init-smp=0 heap less the pieces kept back (kept_back()). After the
    boot modules went the two are one heap where Xen's allocations in
    between took the same pages, and differ where one took them from
    another node (seen on several nodes: 6 GiB, 4 vCPUs, two nodes, 1,667
    pages from node 0 with the deferral off and from node 1 with it on,
    27 blocks not in both: alloc_domheap_pages() prefers memory above the
    DMA width on any node, and node 0's there was kept back). So there they
    must hold the same number of free pages to within one 128 MiB piece,
    the least a piece or block lost or listed twice would move, and what
    differs is said."""
    problems, said, readings = [], [], {}
    for side in ("stock", "series", "smp-off"):
        try:
            readings[side] = read(logs[side])
        except heapdump.DumpError as e:
            problems.append(f"{side}: {e}")
            continue
        problems += [f"{side} {p}" for p in readings[side].problems]
    out = {"problems": problems, "said": said}
    if "stock" in readings and "series" in readings:
        differ = compare({k: readings[k] for k in ("stock", "series")})[0]
        problems += differ
        boot = readings["series"].boot
        # The regions the proposal's heap_run_pages() cuts at a node's edge.
        out["regions_across_nodes"] = sum(1 for s, e in boot.regions if any(s < a < e for a, _, _ in boot.nodes))
        if not differ:
            said.append(f"stock and the series one heap, {out['regions_across_nodes']} region(s) across a node's "
                        "edge")
    m = said_re.search(logs["smp-on"])
    try:
        boot, later = heapdump.parse(logs["smp-on"]), heapdump.stages(logs["smp-on"])
        after = heapdump.parse(logs["smp-on"], later[0]) if later else None
    except heapdump.DumpError as e:
        problems.append(f"smp-on: {e}")
        return out
    if after is None or not m:
        problems.append("smp-on: " + ("no dump after the boot modules went" if after is None else
                                      "no line saying what was handed over after SMP bring-up"))
        return out
    problems += [f"smp-on at boot: {p}" for p in heapdump.check(boot)]
    problems += [f"smp-on after {later[0]}: {p}" for p in heapdump.check(after)]
    out.update(handed_mib=int(m.group(1)), on_cpus=int(m.group(2)), rounds=int(m.group(3)))
    off = readings.get("smp-off")
    if off is None:
        return out
    kept = [int(k.group(2), 16) for k in KEPT_LINE.finditer(logs["smp-on"])]
    problems += [f"smp-on at boot: {p}" for p in kept_back(off.boot, boot, int(m.group(1)) << 8, top, kept)]
    moved = len(off.after.block_set() ^ after.block_set())
    differ = heapdump.compare({"smp-off": off.after, "smp-on": after})
    if abs(after.total - off.after.total) >= PIECE_PAGES:
        problems.append(f"smp-on after {later[0]}: {after.total} pages free, heap-init-smp=0 {off.after.total}: "
                        "more apart than a piece of 128 MiB")
    # Staging's node_avail_pages[], which check() has held to the lists.
    by_node = {"on": after.node_avail, "off": off.after.node_avail}
    moved_nodes = {n: by_node["on"].get(n, 0) - by_node["off"].get(n, 0)
                   for n in sorted(set(by_node["on"]) | set(by_node["off"]))}
    kept_runs = len(minus(runs(off.boot.blocks), runs(boot.blocks)))
    out.update(kept_runs=kept_runs, moved_blocks=moved, same_after=not differ,
               free_after={"on": after.total, "off": off.after.total}, kept_for_early=kept,
               free_after_by_node={k: {str(n): v for n, v in d.items()} for k, d in by_node.items()})
    said.append(f"{m.group(1)} MiB kept back at boot in {kept_runs} run(s) and handed over on {m.group(2)} CPUs "
                f"in {m.group(3)} rounds; after {later[0]} "
                + (f"{len(after.blocks)} blocks, entry for entry heap-init-smp=0's" if not differ else
                   f"{after.total} pages free against {off.after.total}, {moved} blocks not in both, "
                   "free pages a node, on less off: " + ", ".join(f"node {n} {d:+d}" for n, d in moved_nodes.items())))
    return out
