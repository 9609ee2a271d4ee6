# SPDX-License-Identifier: MIT
"""What a source-built Xen's heap dump says, and the checks on it.

The dump patch (patches/xen/<release>/, the series' last patch, a measuring
aid applied to every variant alike) prints, outside the bracket, the boot
allocator's regions before end_boot_allocator() and the whole heap after
it, each line "heapdump: ...":

  region <i> <first mfn> <end mfn>                   (end exclusive)
  block <node> <zone> <order> <mfn> <PFN_ORDER> <first_dirty>
        [<need_tlbflush> <scrub_state>]             (list order)
  avail <node> <zone> <pages>                        (non-zero entries)
  node <node> need_scrub <pages>
  node_avail <node> <pages>                          (staging: node_avail_pages[])
  total_avail_pages <pages> listed <pages> blocks <n> notfree <n>
  digest blocks <hex> pages <hex>
  fields <hex>

and again after boot, when the boot modules have gone to the heap: each
range handed over on the way ("range <first mfn> <end mfn>"), then
"stage <name>" and the same dump (4.17's discard_initial_images(), 4.20's
free_boot_modules()). The fields digest (the free word, the order word,
the TLB-flush stamp and the owner of every listed page) is Xen's alone.

The block digest is the sum modulo 2^64 over the blocks of
mix(mfn ^ mix(node << 48 | zone << 40 | order << 32 | first_dirty)), with
mix() the SplitMix64 finaliser; the page digest sums mix(mfn ^
mix(count_info)) over every page of every block. Both are order-free:
variants list blocks in different orders and must agree on everything else.

Here the block digest is worked out again from the block lines (so a dump
that lost a line fails), the dump is checked against itself (counters,
orders, no overlap), variants are held to one another (the first differing
block named), and the blocks to harness/results/oracle.py's canonical
decomposition of the regions, by node (Xen's SRAT or faked node lines)."""
import re

from harness.real.xen import carveout
from harness.results import oracle

MASK = (1 << 64) - 1
LINE = re.compile(r"heapdump: (.*)$")
# A node's SRAT range: "SRAT: Node" until Xen 4.17, "NUMA: Node" since.
SRAT = re.compile(r"(?:SRAT|NUMA): Node (\d+) PXM \d+ \[([0-9a-fA-F]+), ([0-9a-fA-F]+)\]")
FAKED = re.compile(r"Faking a node at ([0-9a-fA-F]+)-([0-9a-fA-F]+)")
PAGE_SHIFT = 12


class DumpError(ValueError):
    """A heap dump that is missing, cut short, or wrong in itself."""


def mix(x):
    """SplitMix64's finaliser, as the dump patch computes it."""
    x ^= x >> 30
    x = (x * 0xbf58476d1ce4e5b9) & MASK
    x ^= x >> 27
    x = (x * 0x94d049bb133111eb) & MASK
    x ^= x >> 31
    return x


def block_hash(node, zone, order, mfn, first_dirty):
    return mix(mfn ^ mix((node << 48) | (zone << 40) | (order << 32) | first_dirty))


class Dump:
    """regions [(s, e)]; blocks [(node, zone, order, mfn, pfn_order,
    first_dirty)] in list order; avail {(node, zone): pages}; need_scrub
    {node: pages}; total, listed, nblocks, notfree; digest_blocks and
    digest_pages as Xen printed them (ints)."""

    def __init__(self):
        self.regions, self.blocks, self.avail, self.need_scrub = [], [], {}, {}
        self.total = self.listed = self.nblocks = self.notfree = None
        self.digest_blocks = self.digest_pages = None
        # (need_tlbflush, scrub_state) of each block's head, in list order,
        # and the fields digest: None from a dump that predates them.
        self.heads, self.fields = [], None
        # The ranges handed over since the dump before (a later stage's).
        self.ranges = []
        self.nodes = None               # [(s, e, node)] when the caller read them from the log
        self.node_avail = {}            # {node: node_avail_pages[node]}, where the tree has it

    def digest(self):
        """(block digest, page digest) as hex, Xen's."""
        return f"{self.digest_blocks:016x}", f"{self.digest_pages:016x}"

    def block_set(self):
        """{(node, zone, order, mfn, first_dirty)}: the blocks without their list order."""
        return {(n, z, o, m, d) for n, z, o, m, _, d in self.blocks}

    def as_record(self):
        return {"digest_blocks": self.digest()[0], "digest_pages": self.digest()[1], "blocks": self.nblocks,
                "listed": self.listed, "total_avail_pages": self.total, "notfree": self.notfree,
                "avail": {f"{n}/{z}": p for (n, z), p in sorted(self.avail.items())},
                "need_scrub": {str(n): p for n, p in sorted(self.need_scrub.items())},
                "regions": [[s, e] for s, e in self.regions],
                "fields": None if self.fields is None else f"{self.fields:016x}",
                "node_avail": {str(n): p for n, p in sorted(self.node_avail.items())}}


def _ints(fields, what, line):
    try:
        return [int(f, 0) for f in fields]
    except ValueError:
        raise DumpError(f"a heap dump line with a bad {what}: {line!r}")


BOOT = "boot"


def parse(log, stage=BOOT):
    """The heap dump of a serial log at `stage` -> Dump: "boot" (the dump
    after end_boot_allocator(), before any "stage" line), or a stage the
    dump patch names ("discard_initial_images"). Raises DumpError naming
    what is missing: no dump at all (the patch or `heap-dump` absent), or
    one cut short before its digest line."""
    d, seen, at, pending = Dump(), False, BOOT, []
    for raw in log.splitlines():
        m = LINE.search(raw)
        if not m:
            continue
        f = m.group(1).split()
        kind = f[0] if f else ""
        if kind == "range" and len(f) == 3:
            pending.append(tuple(_ints(f[1:], "range", raw)))
            continue
        if kind == "stage" and len(f) == 2:
            at = f[1]
            if at == stage:
                d.ranges = pending
            pending = []
            continue
        if at != stage:
            continue
        seen = True
        if kind == "region" and len(f) == 4:
            d.regions.append(tuple(_ints(f[2:], "region", raw)))
        elif kind == "block" and len(f) in (7, 9):
            v = _ints(f[1:], "block", raw)
            d.blocks.append(tuple(v[:6]))
            if len(v) == 8:
                d.heads.append(tuple(v[6:]))
        elif kind == "avail" and len(f) == 4:
            n, z, p = _ints(f[1:], "avail entry", raw)
            d.avail[(n, z)] = p
        elif kind == "node" and len(f) == 4 and f[2] == "need_scrub":
            n, p = _ints([f[1], f[3]], "need_scrub", raw)
            d.need_scrub[n] = p
        elif kind == "node_avail" and len(f) == 3:
            n, p = _ints(f[1:], "node_avail entry", raw)
            d.node_avail[n] = p
        elif kind == "total_avail_pages" and len(f) == 8:
            d.total, d.listed, d.nblocks, d.notfree = _ints(f[1::2], "total line", raw)
        elif kind == "digest" and len(f) == 5:
            d.digest_blocks, d.digest_pages = int(f[2], 16), int(f[4], 16)
        elif kind == "fields" and len(f) == 2:
            d.fields = int(f[1], 16)
        else:
            raise DumpError(f"a heap dump line of no known kind: {raw!r}")
    if not seen:
        raise DumpError("the log has no heap dump (heapdump: lines)" + ("" if stage == BOOT else f" at {stage}")
                        + ": the dump patch or the heap-dump option is missing")
    if d.digest_blocks is None or d.total is None:
        raise DumpError(f"the heap dump is cut short: {len(d.blocks)} blocks and no "
                        f"{'total' if d.total is None else 'digest'} line")
    return d


def stages(log):
    """The names of the log's later dumps, in the order Xen printed them."""
    return [m.group(1) for m in re.finditer(r"heapdump: stage (\S+)", log)]


def check(d, xenheap_zone=False):
    """The dump against itself -> [problem]: the block digest worked out
    again from the block lines, the counts Xen printed against the blocks,
    every head's order and zone, every page free, no block overlapping
    another, each node's node_avail_pages[] (where printed) the sum of its
    avail[]. xenheap_zone: a build with CONFIG_SEPARATE_XENHEAP (Arm32),
    whose xenheap pages are listed in zone 0 (MEMZONE_XEN) whatever their
    MFN."""
    out = []
    mine = sum(block_hash(n, z, o, m, fd) for n, z, o, m, _, fd in d.blocks) & MASK
    if mine != d.digest_blocks:
        out.append(f"the block digest of the {len(d.blocks)} block lines is {mine:016x}, Xen printed "
                   f"{d.digest_blocks:016x}: lines lost or misread")
    pages = sum(1 << o for _, _, o, _, _, _ in d.blocks)
    if len(d.blocks) != d.nblocks or pages != d.listed:
        out.append(f"{len(d.blocks)} block lines of {pages} pages, Xen counted {d.nblocks} blocks of "
                   f"{d.listed} pages")
    if d.listed != d.total or sum(d.avail.values()) != d.total:
        out.append(f"total_avail_pages {d.total}, pages listed {d.listed}, avail[] sums to "
                   f"{sum(d.avail.values())}")
    for n, p in sorted(d.node_avail.items()):
        if p != sum(v for (m, _), v in d.avail.items() if m == n):
            out.append(f"node {n}'s node_avail_pages[] is {p}, its avail[] sums to "
                       f"{sum(v for (m, _), v in d.avail.items() if m == n)}")
    if d.notfree:
        out.append(f"{d.notfree} listed pages are not in the free state")
    for n, z, o, m, pfn_order, _ in d.blocks:
        if pfn_order != o or m & ((1 << o) - 1) or (oracle.zone(m) != z and not (xenheap_zone and z == 0)):
            out.append(f"block 0x{m:x} on the order-{o} list of node {n}, zone {z}: its head says "
                       f"order {pfn_order}" + ("" if not m & ((1 << o) - 1) else ", and it is not aligned"))
            break
    spans = sorted((m, m + (1 << o)) for _, _, o, m, _, _ in d.blocks)
    for (a, b), (c, _) in zip(spans, spans[1:]):
        if c < b:
            out.append(f"blocks at 0x{a:x} and 0x{c:x} overlap")
            break
    return out


def first_difference(a, b):
    """The first block, in MFN order, that one dump has and the other has not."""
    only_a, only_b = sorted(a.block_set() - b.block_set(), key=lambda x: x[3]), \
        sorted(b.block_set() - a.block_set(), key=lambda x: x[3])
    first = min(only_a[:1] + only_b[:1], key=lambda x: x[3], default=None)
    if first is None:
        return None
    side = "only the first" if first in only_a else "only the second"
    n, z, o, m, fd = first
    return f"node {n} zone {z} order {o} at mfn 0x{m:x} first_dirty 0x{fd:x} ({side} has it)"


# Variants that claim chunk's free lists in order, entry for entry; stock and
# series: a tree as it is and with its proposal series (harness/real/xen/arm.py).
ORDERED = ("chunk", "sweep", "stock", "series", "smp-off", "smp-on")


def first_order_difference(a, b):
    """The first list entry (in the order Xen walked the lists) where two dumps differ, or None."""
    for i, (x, y) in enumerate(zip(a.blocks, b.blocks)):
        if x != y:
            return (f"entry {i} of the lists is node {x[0]} zone {x[1]} order {x[2]} mfn 0x{x[3]:x} "
                    f"first_dirty 0x{x[5]:x} in the first, node {y[0]} zone {y[1]} order {y[2]} mfn "
                    f"0x{y[3]:x} first_dirty 0x{y[5]:x} in the second")
    if len(a.blocks) != len(b.blocks):
        return f"{len(a.blocks)} entries against {len(b.blocks)}"
    return None


def carve_note(name, d, ref_name, ref, nodes, boot_node):
    """Why a variant of another release's carve-out rule built another heap
    (a note), or None when the rules do not explain it."""
    rule, ref_rule = carveout.RULE_OF.get(name, "4.17"), carveout.RULE_OF.get(ref_name, "4.17")
    if nodes is None or rule == ref_rule:
        return None
    if against_oracle(d, nodes, rule, boot_node) or against_oracle(ref, nodes, ref_rule, boot_node):
        return None
    mine, theirs = (carveout.carve_outs(d.regions, nodes, boot_node, r) for r in (rule, ref_rule))
    moved = [n for n in sorted(mine) if mine[n] != theirs.get(n)]
    if not moved:
        return None
    return (f"{name} and {ref_name} differ only where {rule} and {ref_rule} place init_node_heap()'s "
            "metadata: " + "; ".join(f"node {n} at [0x{mine[n][0]:x}, 0x{mine[n][1]:x}) against "
                                     f"[0x{theirs[n][0]:x}, 0x{theirs[n][1]:x})" for n in moved))


def compare(dumps, nodes=None, boot_node=0, notes=None):
    """{variant: Dump} of one build at one size -> [problem]. Against chunk
    (else the first variant): the ORDERED variants list the same entries in
    the same order with the same heads; every other variant has the same
    digests, counters and scrub counts, or (given the nodes) differs only
    where its release's carve-out rule puts a node's metadata, which goes
    to `notes` as a named case."""
    out = []
    names = list(dumps)
    ref_name = "chunk" if "chunk" in dumps else names[0]
    ref = dumps[ref_name]
    for name in names:
        d = dumps[name]
        if name == ref_name:
            continue
        if name in ORDERED and ref_name in ORDERED and d.block_set() == ref.block_set():
            diff = first_order_difference(ref, d)
            if diff:
                out.append(f"{name} lists {ref_name}'s blocks in another order: {diff}")
                continue
            if d.heads != ref.heads or d.fields != ref.fields:
                out.append(f"{name} lists {ref_name}'s blocks in its order, but the heads' need_tlbflush "
                           "or scrub_state, or the fields digest, differ")
                continue
        if (d.digest() != ref.digest() or d.avail != ref.avail or d.need_scrub != ref.need_scrub
                or d.node_avail != ref.node_avail):
            note = carve_note(name, d, ref_name, ref, nodes, boot_node)
            if note:
                if notes is not None:
                    notes.append(note)
                continue
            diff = first_difference(ref, d) or "the same blocks; the pages' count_info or the counters differ"
            out.append(f"{name} built another heap than {ref_name}: digests {'/'.join(d.digest())} "
                       f"against {'/'.join(ref.digest())}; first difference: {diff}")
    return out


def nodes_of(log):
    """[(first mfn, end mfn, node)] from Xen's SRAT node lines, or its faked node."""
    out = [(int(s, 16) >> PAGE_SHIFT, (int(e, 16) >> PAGE_SHIFT) + 1, int(n)) for n, s, e in SRAT.findall(log)]
    if not out:
        out = [(int(s, 16) >> PAGE_SHIFT, int(e, 16) >> PAGE_SHIFT, 0) for s, e in FAKED.findall(log)]
    if not out:
        raise DumpError("the log names no NUMA node (no 'SRAT: Node' or 'Faking a node' line)")
    return sorted(out)


def expected_blocks(regions, nodes):
    """The canonical heap of the regions: each maximal run of free pages on
    one node, MFN 0 left out, cut into the largest aligned blocks of at most
    2^MAX_ORDER pages (oracle.cut) -> {(node, zone, order, mfn)}."""
    memory = {"bootmem": [[s, e] for s, e in regions],
              "node_map": {"memnode_shift": 0,
                           "nodes": [{"node": n, "ranges": [[s, e] for s, e, m in nodes if m == n]}
                                     for n in sorted({m for _, _, m in nodes})]}}
    try:
        return {(b.node, b.zone, b.order, b.mfn) for b in oracle.decompose(memory)}
    except oracle.OracleError as e:
        raise DumpError(f"the regions and the node lines disagree: {e}")


def missing_runs(regions, held):
    """[(s, e)]: the runs of region pages (MFN 0 aside) no block in held
    [(s, e)] covers. A block may start in a region below: regions that
    touch are one run of free pages, and a block may cross their edge."""
    out = []
    for s, e in sorted(regions):
        at = max(s, 1)
        for a, b in sorted(x for x in held if x[0] < e and x[1] > s):
            if a > at:
                out.append((at, a))
            at = max(at, b)
        if at < e:
            out.append((at, e))
    return out


def against_oracle(d, nodes, rule="4.17", boot_node=0):
    """The dump's blocks against the canonical heap of its regions -> [problem].
    The only pages missing are init_node_heap()'s, exactly where the
    release's rule puts them (harness/real/xen/carveout.py): none on the
    first node initialised (the boot CPU's, if it has a region), the
    metadata's pages at one end of every other node's first range."""
    got = {(n, z, o, m) for n, z, o, m, _, _ in d.blocks}
    try:
        carves = carveout.carve_outs(d.regions, nodes, boot_node, rule)
    except carveout.CarveError as e:
        return [f"the heap cannot be checked: {e}"]
    want = expected_blocks(carveout.carved_regions(d.regions, carves), nodes)
    if got == want:
        return []
    extra, lost = sorted(got - want, key=lambda x: x[3]), sorted(want - got, key=lambda x: x[3])
    what = [f"Xen has node {n} order {o} at 0x{m:x}, not in the canonical heap" for n, _, o, m in extra[:1]]
    what += [f"the canonical heap has node {n} order {o} at 0x{m:x}, Xen has not" for n, _, o, m in lost[:1]]
    gaps = missing_runs(carveout.carved_regions(d.regions, carves), [(m, m + (1 << o)) for _, _, o, m in got])
    what += ["pages on no block: " + ", ".join(f"[0x{a:x}, 0x{b:x})" for a, b in gaps[:3])] if gaps else []
    where = ", ".join(f"node {n} at [0x{c[0]:x}, 0x{c[1]:x})" for n, c in sorted(carves.items()) if c)
    return [f"the heap is not the canonical decomposition of the regions ({len(extra)} blocks more, "
            f"{len(lost)} fewer; {rule}'s metadata " + (where or "all static") + "): " + "; ".join(what)]
