# SPDX-License-Identifier: MIT
"""What a source-built Xen's heap dump says, and the checks on it.

The dump patch (patches/xen/<release>/, the series' last patch, a measuring
aid applied to every variant alike) prints, outside the bracket, the boot
allocator's regions before end_boot_allocator() and the whole heap after
it, each line "heapdump: ...":

  region <i> <first mfn> <end mfn>                   (end exclusive)
  block <node> <zone> <order> <mfn> <PFN_ORDER> <first_dirty>   (list order)
  avail <node> <zone> <pages>                        (non-zero entries)
  node <node> need_scrub <pages>
  total_avail_pages <pages> listed <pages> blocks <n> notfree <n>
  digest blocks <hex> pages <hex>

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

from harness.results import oracle

MASK = (1 << 64) - 1
LINE = re.compile(r"heapdump: (.*)$")
# A node's SRAT range: "SRAT: Node" until Xen 4.17, "NUMA: Node" since.
SRAT = re.compile(r"(?:SRAT|NUMA): Node (\d+) PXM \d+ \[([0-9a-fA-F]+), ([0-9a-fA-F]+)\]")
FAKED = re.compile(r"Faking a node at ([0-9a-fA-F]+)-([0-9a-fA-F]+)")
PAGE_SHIFT = 12
# init_node_heap() gives a node's first range a few pages of metadata (the
# node's avail[] and free lists) unless the node is 0, whose are static.
CARVE_MAX = 8


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
                "regions": [[s, e] for s, e in self.regions]}


def _ints(fields, what, line):
    try:
        return [int(f, 0) for f in fields]
    except ValueError:
        raise DumpError(f"a heap dump line with a bad {what}: {line!r}")


def parse(log):
    """The heap dump of a serial log -> Dump. Raises DumpError naming what is
    missing: no dump at all (the patch or `heap-dump` absent), or one cut
    short before its digest line."""
    d, seen = Dump(), False
    for raw in log.splitlines():
        m = LINE.search(raw)
        if not m:
            continue
        seen = True
        f = m.group(1).split()
        kind = f[0] if f else ""
        if kind == "region" and len(f) == 4:
            d.regions.append(tuple(_ints(f[2:], "region", raw)))
        elif kind == "block" and len(f) == 7:
            d.blocks.append(tuple(_ints(f[1:], "block", raw)))
        elif kind == "avail" and len(f) == 4:
            n, z, p = _ints(f[1:], "avail entry", raw)
            d.avail[(n, z)] = p
        elif kind == "node" and len(f) == 4 and f[2] == "need_scrub":
            n, p = _ints([f[1], f[3]], "need_scrub", raw)
            d.need_scrub[n] = p
        elif kind == "total_avail_pages" and len(f) == 8:
            d.total, d.listed, d.nblocks, d.notfree = _ints(f[1::2], "total line", raw)
        elif kind == "digest" and len(f) == 5:
            d.digest_blocks, d.digest_pages = int(f[2], 16), int(f[4], 16)
        else:
            raise DumpError(f"a heap dump line of no known kind: {raw!r}")
    if not seen:
        raise DumpError("the log has no heap dump (heapdump: lines): the dump patch or the "
                        "heap-dump option is missing")
    if d.digest_blocks is None or d.total is None:
        raise DumpError(f"the heap dump is cut short: {len(d.blocks)} blocks and no "
                        f"{'total' if d.total is None else 'digest'} line")
    return d


def check(d):
    """The dump against itself -> [problem]: the block digest worked out
    again from the block lines, the counts Xen printed against the blocks,
    every head's order, every page free, no block overlapping another."""
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
    if d.notfree:
        out.append(f"{d.notfree} listed pages are not in the free state")
    for n, z, o, m, pfn_order, _ in d.blocks:
        if pfn_order != o or m & ((1 << o) - 1) or oracle.zone(m) != z:
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


def compare(dumps):
    """{variant: Dump} of one build at one size -> [problem]: every variant's
    digests, counters and scrub counts must be the first's."""
    out = []
    names = list(dumps)
    ref = dumps[names[0]]
    for name in names[1:]:
        d = dumps[name]
        if d.digest() != ref.digest() or d.avail != ref.avail or d.need_scrub != ref.need_scrub:
            diff = first_difference(ref, d) or "the same blocks; the pages' count_info or the counters differ"
            out.append(f"{name} built another heap than {names[0]}: digests {'/'.join(d.digest())} "
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


def nodes_of_regions(regions, nodes):
    """[(s, e, node)]: each region cut where the node changes."""
    return [(max(s, ns), min(e, ne), n) for s, e in regions for ns, ne, n in nodes if max(s, ns) < min(e, ne)]


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


def subtract(regions, runs):
    """The regions less the runs, each run inside one region."""
    out = list(regions)
    for a, b in runs:
        out = [piece for s, e in out for piece in (((s, a), (b, e)) if s <= a < e else ((s, e),))]
    return [(s, e) for s, e in out if e > s]


def against_oracle(d, nodes):
    """The dump's blocks against the canonical heap of its regions -> [problem].
    The only pages allowed missing are init_node_heap()'s: at most CARVE_MAX
    at one end of a same-node piece of a region, on a node other than 0
    (node 0's metadata is static); the blocks are then the canonical ones of
    what is left."""
    want = expected_blocks(d.regions, nodes)
    got = {(n, z, o, m) for n, z, o, m, _, _ in d.blocks}
    if got == want:
        return []
    missing = missing_runs(d.regions, [(m, m + (1 << o)) for _, _, o, m in got])
    pieces = nodes_of_regions(d.regions, nodes)
    carved = missing and all(
        b - a <= CARVE_MAX and any(n != 0 and ps <= a and b <= pe and (a == ps or b == pe) for ps, pe, n in pieces)
        for a, b in missing)
    if carved and expected_blocks(subtract(d.regions, missing), nodes) == got:
        return []
    extra, lost = sorted(got - want, key=lambda x: x[3]), sorted(want - got, key=lambda x: x[3])
    what = [f"Xen has node {n} order {o} at 0x{m:x}, not in the canonical heap" for n, _, o, m in extra[:1]]
    what += [f"the canonical heap has node {n} order {o} at 0x{m:x}, Xen has not" for n, _, o, m in lost[:1]]
    return [f"the heap is not the canonical decomposition of the regions ({len(extra)} blocks more, "
            f"{len(lost)} fewer): " + "; ".join(what)]
