# SPDX-License-Identifier: MIT
"""The memory map a Linux boot prints with `bootheap_dump` (the measuring
patch patches/linux/6.12/0001): read back, held to its own counters and to
the canonical decomposition (harness/real/linux/dumpdiff.py compares two).

The kernel prints, after deferred init, lines that start "bootheap_dump: "
(whatever printk put before them), and the same lines started
"bootheap_early: " once memblock_free_all() is done, before any other
thread has run, each zone walked only up to its node's first deferred pfn
(the pages line's END):

  begin 2 page S lru O orders N types T pageblock P memmap BASE cma CMA
  zone NID NAME START SPANNED PRESENT MANAGED NR_FREE_PAGES NR_FREE_CMA
       HIGHATOMIC NR_UNACCEPTED PCP
  p PFN COUNT FLAGS REF TYPE PRIVATE NEXT PREV MAPPING INDEX MEMCG
  pages START END holes HOLES digest DIGEST
  b PFN COUNT MIGRATETYPE WORD
  f ORDER MIGRATETYPE LENGTH, then e PFN PFN ... in list order
  n ORDER NR_FREE
  u LENGTH, then e PFN ...: the zone's unaccepted blocks
  v NAME COUNT: each vm event, summed over the CPUs
  end TOTALRAM NR_FREE_PAGES

Numbers are hex but REF, the orders and migratetypes (CMA is MIGRATE_CMA,
-1 without CONFIG_CMA; WORD is the pageblock's whole flags word, the
compaction skip bit included; PCP the pages on the zone's per-CPU lists).
Version 1 dumps (the series before memcg_data and the counters) read back
with those fields 0 and no counters to hold. A `p` line is a run
of pages alike; NEXT and PREV are "=" (the page's own lru), "+d"/"-d"
(the lru of the page d pfns on) or a raw pointer in hex. DIGEST is the
sum, modulo 2^64, over the zone's pfns of bootheap_hash() of the patch,
which page_hash() here computes the same way, so that the runs read back
are checked against the kernel's own walk.

The canonical decomposition is harness/results/oracle.py's cut() under
Linux's merge rules: blocks of at most MAX_PAGE_ORDER (orders - 1) pages,
never across a zone's edge or a pfn that is not free, and never across a
pageblock edge where the two migratetypes differ and either is one that
__free_one_page() does not merge (MIGRATE_HIGHATOMIC and above)."""
from collections import namedtuple

from harness.results import oracle

PREFIX = "bootheap_dump: "
EARLY = "bootheap_early: "
MASK = (1 << 64) - 1
VERSIONS = (1, 2)
PGTY_BUDDY = 0xf0               # page_type's top byte on a buddy head (6.12)
PGTY_SLAB = 0xf5                # ... on a slab's page
PG_RESERVED = 1 << 13           # enum pageflags (6.12)
USER_WORDS = ("next", "prev", "mapping", "index", "private")   # what a page's user writes over
MIGRATE_PCPTYPES = 3            # unmovable, movable, reclaimable merge with each other
MIGRATE_HIGHATOMIC = MIGRATE_PCPTYPES
MIGRATETYPE_MASK = 7
# The vm events of pages taken from the free lists, one a zone type (the
# free pages are pgfree less these, on the lists or the per-CPU lists).
PGALLOC = ("pgalloc_dma", "pgalloc_dma32", "pgalloc_normal", "pgalloc_movable", "pgalloc_device")

Run = namedtuple("Run", "pfn count flags ref type private next prev mapping index memcg", defaults=(0,))


class DumpError(ValueError):
    """A log whose dump cannot be read: missing, cut short or malformed."""


class Zone:
    def __init__(self, nid, name, start, spanned, present, managed, free_pages, free_cma=None,
                 highatomic=None, unaccepted=None, pcp=None):
        self.nid, self.name, self.start, self.spanned = nid, name, start, spanned
        self.present, self.managed, self.free_pages = present, managed, free_pages
        self.free_cma, self.highatomic, self.unaccepted, self.pcp = free_cma, highatomic, unaccepted, pcp
        # blocks: (pfn, count, migratetype, flags word); unaccepted_list: pfns
        self.runs, self.blocks, self.lists, self.nr_free, self.unaccepted_list = [], [], {}, {}, []
        self.holes = self.digest = self.end = None

    def label(self):
        return f"node {self.nid} {self.name}"


class Dump:
    def __init__(self, header, early=False):
        self.header, self.zones, self.early = header, [], early
        self.totalram = self.free_pages = None
        self.events = {}


def _hex(word, what, line):
    try:
        return int(word, 16)
    except ValueError:
        raise DumpError(f"bootheap_dump: {what} '{word}' is not hex in: {line}")


def _link(word, line):
    if word == "=" or word[:1] in "+-":
        try:
            return word if word == "=" else "%+d" % int(word)
        except ValueError:
            raise DumpError(f"bootheap_dump: link '{word}' in: {line}")
    return _hex(word, "link", line)


def _list_name(want):
    return "of unaccepted blocks" if want[0] == "unaccepted" else f"of order {want[0]}, migratetype {want[1]}"


def dump_lines(text, prefix=PREFIX):
    """The dump's lines, each less what came before prefix."""
    for line in text.replace("\r", "").splitlines():
        at = line.find(prefix)
        if at >= 0:
            yield line[at + len(prefix):].strip()


def parse(text, early=False):
    """A serial log -> its Dump, or with early its bootheap_early one.
    DumpError when it has no dump, when the dump stops before its end line,
    or when a line is malformed."""
    dump, zone, want = None, None, None          # want: [order, mt, length, pfns] of an open list
    for line in dump_lines(text, EARLY if early else PREFIX):
        w = line.split()
        kind = w[0] if w else ""
        if kind == "begin":
            version = int(w[1]) if len(w) > 1 and w[1].isdigit() else None
            if version not in VERSIONS or len(w) != (14 if version == 1 else 16):
                raise DumpError(f"bootheap_dump: begin line of version {w[1] if len(w) > 1 else '?'} with "
                                f"{len(w)} words (this reader takes versions {VERSIONS}): {line}")
            h = dict(zip(w[2::2], w[3::2]))
            dump = Dump({"version": version, "page": int(h["page"]), "lru": int(h["lru"]),
                         "orders": int(h["orders"]), "types": int(h["types"]),
                         "pageblock": int(h["pageblock"]), "memmap": _hex(h["memmap"], "memmap", line),
                         "cma": int(h.get("cma", -1))}, early)
            continue
        if dump is None:
            raise DumpError(f"bootheap_dump: a line before the begin line: {line}" +
                            (" (the log buffer lost the early dump's start: boot with a larger log_buf_len=)"
                             if early else ""))
        if want and kind != "e":
            raise DumpError(f"bootheap_dump: the list {_list_name(want)} "
                            f"in {zone.label()} holds {len(want[3])} of its {want[2]} entries")
        try:
            if kind == "zone":
                if len(w) != (8 if dump.header["version"] == 1 else 12):
                    raise DumpError(f"bootheap_dump: zone line with {len(w)} words: {line}")
                zone = Zone(int(w[1]), w[2], *(_hex(x, "count", line) for x in w[3:]))
                dump.zones.append(zone)
            elif kind == "v":
                dump.events[w[1]] = _hex(w[2], "count", line)
            elif kind == "end":
                dump.totalram, dump.free_pages = _hex(w[1], "totalram", line), _hex(w[2], "free", line)
                return dump
            elif zone is None:
                raise DumpError(f"bootheap_dump: a '{kind}' line before any zone: {line}")
            elif kind == "p":
                if len(w) != (11 if dump.header["version"] == 1 else 12):
                    raise DumpError(f"bootheap_dump: page run with {len(w)} words: {line}")
                zone.runs.append(Run(_hex(w[1], "pfn", line), _hex(w[2], "count", line),
                                     _hex(w[3], "flags", line), int(w[4]), _hex(w[5], "type", line),
                                     _hex(w[6], "private", line), _link(w[7], line), _link(w[8], line),
                                     _hex(w[9], "mapping", line), _hex(w[10], "index", line),
                                     *(_hex(x, "memcg", line) for x in w[11:])))
            elif kind == "pages":
                zone.end, zone.holes, zone.digest = (_hex(w[2], "end", line), _hex(w[4], "holes", line),
                                                     _hex(w[6], "digest", line))
            elif kind == "b":
                mt = int(w[3])
                zone.blocks.append((_hex(w[1], "pfn", line), _hex(w[2], "count", line), mt,
                                    _hex(w[4], "word", line) if len(w) > 4 else max(mt, 0)))
            elif kind == "f":
                want = [int(w[1]), int(w[2]), _hex(w[3], "length", line), []]
                zone.lists[(want[0], want[1])] = want[3]
            elif kind == "u":
                want = ["unaccepted", None, _hex(w[1], "length", line), zone.unaccepted_list]
                want = want if want[2] else None
            elif kind == "e":
                if not want:
                    raise DumpError(f"bootheap_dump: list entries outside a list: {line}")
                want[3].extend(_hex(x, "pfn", line) for x in w[1:])
                if len(want[3]) > want[2]:
                    raise DumpError(f"bootheap_dump: the list {_list_name(want)} in {zone.label()} has more "
                                    f"than its {want[2]} entries")
                if len(want[3]) == want[2]:
                    want = None
            elif kind == "n":
                zone.nr_free[int(w[1])] = _hex(w[2], "nr_free", line)
            else:
                raise DumpError(f"bootheap_dump: unknown line: {line}")
        except (IndexError, ValueError) as e:
            if isinstance(e, DumpError):
                raise
            raise DumpError(f"bootheap_dump: malformed line ({e}): {line}")
    if dump is None:
        raise DumpError(f"the log holds no {'bootheap_early' if early else 'bootheap_dump'} dump (was the "
                        "kernel booted with bootheap_dump, and built with patches/linux/6.12's dump patch?)")
    where = f" (it stops in {zone.label()})" if zone else ""
    raise DumpError(f"bootheap_dump: the dump stops before its end line{where}")


def mix(h, w):
    """bootheap_mix() of the patch."""
    h = ((h ^ w) * 0x9e3779b97f4a7c15) & MASK
    return h ^ (h >> 31)


def raw_link(header, pfn, link):
    """A link as the kernel read it: the pointer."""
    if isinstance(link, int):
        return link
    d = 0 if link == "=" else int(link)
    return (header["memmap"] + (pfn + d) * header["page"] + header["lru"]) & MASK


def page_hash(header, pfn, r):
    """bootheap_hash() of the patch, for the page at pfn of run r (version
    1 mixed no memcg_data)."""
    h = mix(0, pfn)
    for w in (r.flags, raw_link(header, pfn, r.next), raw_link(header, pfn, r.prev), r.mapping,
              r.index, r.private) + ((r.memcg,) if header["version"] > 1 else ()):
        h = mix(h, w)
    return mix(h, (r.type << 32) | (r.ref & 0xffffffff))


def zone_digest(header, zone):
    return sum(page_hash(header, r.pfn + i, r) for r in zone.runs for i in range(r.count)) & MASK


def page_at(zone, pfn):
    """The run holding pfn, or None (a hole, or outside the zone)."""
    lo, hi = 0, len(zone.runs)
    while lo < hi:
        mid = (lo + hi) // 2
        r = zone.runs[mid]
        if pfn < r.pfn:
            hi = mid
        elif pfn >= r.pfn + r.count:
            lo = mid + 1
        else:
            return r
    return None


def free_blocks(zone):
    """[(pfn, order)] of every list entry, in pfn order."""
    return sorted((pfn, order) for (order, _), pfns in zone.lists.items() for pfn in pfns)


def migratetype_at(zone, pfn, pageblock):
    for start, count, mt, _ in zone.blocks:
        if start <= pfn < start + count * pageblock:
            return mt
    return None


def canonical(zone, header):
    """The blocks the zone's free pages must be listed as -> [(pfn, order)]:
    each maximal run of free pages cut by oracle.cut() at MAX_PAGE_ORDER,
    runs also ended at a pageblock edge the buddy merge will not cross."""
    pb, max_order = header["pageblock"], header["orders"] - 1
    runs = []
    for pfn, order in free_blocks(zone):
        end = pfn + (1 << order)
        if runs and runs[-1][1] == pfn and not _merge_stops(zone, pfn, pb):
            runs[-1][1] = end
        else:
            runs.append([pfn, end])
    return [b for s, e in runs for b in oracle.cut(s, e, max_order)]


def _merge_stops(zone, pfn, pb):
    if pfn % pb:
        return False
    a, b = migratetype_at(zone, pfn - 1, pb), migratetype_at(zone, pfn, pb)
    return a != b and (a is None or b is None or a >= MIGRATE_PCPTYPES or b >= MIGRATE_PCPTYPES)


def check(dump):
    """What in the dump does not hold together -> [message], empty when it does."""
    out, h = [], dump.header
    for z in dump.zones:
        where = z.label()
        if z.end is None:
            out.append(f"{where}: no pages line")
            continue
        if z.end != z.start + z.spanned and not (dump.early and z.start <= z.end < z.start + z.spanned):
            out.append(f"{where}: pages walked to {z.end:#x}, the zone spans to {z.start + z.spanned:#x}")
        at = z.start
        for r in z.runs:
            if r.pfn < at:
                out.append(f"{where}: the run at pfn {r.pfn:#x} overlaps the one before")
            at = r.pfn + r.count
        pages = sum(r.count for r in z.runs)
        span, what = (z.end - z.start, "walk") if dump.early else (z.spanned, "zone")
        if pages + z.holes != span:
            out.append(f"{where}: {pages} pages and {z.holes} holes in runs, the {what} spans {span}")
        digest = zone_digest(h, z)
        if digest != z.digest:
            out.append(f"{where}: the runs digest to {digest:#x}, the kernel's walk to {z.digest:#x}")
        listed = 0
        for (order, mt), pfns in sorted(z.lists.items()):
            for pfn in pfns:
                r = page_at(z, pfn)
                if r is None or r.type >> 24 != PGTY_BUDDY or r.private != order:
                    out.append(f"{where}: pfn {pfn:#x} on the order {order} list of migratetype {mt} "
                               f"is not a buddy head of order {order}")
            listed += len(pfns) << order
        for order in range(h["orders"]):
            n = sum(len(p) for (o, _), p in z.lists.items() if o == order)
            if z.nr_free.get(order) != n:
                out.append(f"{where}: order {order} lists {n} blocks, nr_free says {z.nr_free.get(order)}")
        if listed != z.free_pages:
            out.append(f"{where}: the free lists hold {listed} pages, NR_FREE_PAGES says {z.free_pages}")
        heads = sum(r.count for r in z.runs if r.type >> 24 == PGTY_BUDDY)
        if heads != sum(len(p) for p in z.lists.values()):
            out.append(f"{where}: {heads} buddy heads, {sum(len(p) for p in z.lists.values())} list entries")
        got, want = free_blocks(z), canonical(z, h)
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            g = f"pfn {got[first][0]:#x} order {got[first][1]}" if first < len(got) else "nothing"
            c = f"pfn {want[first][0]:#x} order {want[first][1]}" if first < len(want) else "nothing"
            out.append(f"{where}: free block {first} is {g}, the canonical decomposition has {c}")
        out += _counters(dump, z, listed)
    out += _events(dump)
    managed = sum(z.managed for z in dump.zones)
    # Early, totalram_pages() already counts the deferred pages:
    # memblock_free_all() adds every free range's pages, the deferred ones
    # too, which memblock_free_pages() leaves for deferred init to free.
    if managed != dump.totalram and not dump.early:
        out.append(f"the zones manage {managed} pages, totalram_pages() says {dump.totalram}")
    return out



def _counters(dump, z, listed):
    """A version 2 zone's counters held to what its dump counts: the free
    pages on MIGRATE_CMA lists, the highatomic pageblocks, the unaccepted
    blocks (each of MAX_PAGE_ORDER), and each pageblock's migratetype the
    low bits of its flags word."""
    if dump.header["version"] < 2:
        return []
    out, where, h = [], z.label(), dump.header
    cma = sum(len(p) << o for (o, mt), p in z.lists.items() if mt == h["cma"] >= 0)
    if z.free_cma != cma:
        out.append(f"{where}: the MIGRATE_CMA lists hold {cma} pages, NR_FREE_CMA_PAGES says {z.free_cma}")
    atomic = sum(n for _, n, mt, _ in z.blocks if mt == MIGRATE_HIGHATOMIC) * h["pageblock"]
    if z.highatomic != atomic:
        out.append(f"{where}: {atomic} pages in MIGRATE_HIGHATOMIC pageblocks, nr_reserved_highatomic says "
                   f"{z.highatomic}")
    unaccepted = len(z.unaccepted_list) << (h["orders"] - 1)
    if z.unaccepted != unaccepted:
        out.append(f"{where}: the unaccepted list holds {unaccepted} pages, NR_UNACCEPTED says {z.unaccepted}")
    for pfn, n, mt, word in z.blocks:
        if mt >= 0 and word & MIGRATETYPE_MASK != mt:
            out.append(f"{where}: the pageblocks at pfn {pfn:#x} have migratetype {mt} and flags {word:#x}")
    return out


def _events(dump):
    """A version 2 dump's pgfree held to its free pages: every page freed
    (pgfree) and not taken again (the pgalloc of each zone type) is on a
    free list or a per-CPU list."""
    if dump.header["version"] < 2:
        return []
    if "pgfree" not in dump.events:
        return ["the dump has no pgfree (a build without VM_EVENT_COUNTERS)"]
    free = dump.events["pgfree"] - sum(dump.events.get(e, 0) for e in PGALLOC)
    held = sum(z.free_pages + z.pcp for z in dump.zones)
    if free != held:
        return [f"pgfree less pgalloc is {free} pages, the zones' free and per-CPU pages are {held}"]
    return []
