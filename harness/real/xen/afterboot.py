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

from harness.real.xen import carveout, heapdump

# How many merged blocks a record names (all are counted).
NAMED = 8


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
