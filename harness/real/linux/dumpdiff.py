# SPDX-License-Identifier: MIT
"""Two of the memory maps harness/real/linux/dump.py reads back, compared:
exactly, or with a counted set of pages excused the words their users
write (compare()), or where no allocation touched (compare_untouched());
each naming the first differing pfn, pageblock, list entry, counter or vm
event. What a comparison excuses is counted and returned, so that the
caller (dumprun.judge()) can hold it to what two stock boots show."""
from harness.real.linux.dump import MASK, PG_RESERVED, PGTY_SLAB, USER_WORDS, Run, migratetype_at

# Each zone's figures compared whole, exactly or where no allocation touched.
COUNTS = ("start", "spanned", "present", "managed", "holes", "free_cma", "highatomic", "unaccepted")
# ... and those an allocation moves (compare() only).
MOVED = ("free_pages", "pcp")
# A struct page's links to its zone, node and section: the flags word's
# upper half (6.12 x86-64: the page flags take its low 32 bits, or fewer).
LINK_BITS = MASK & ~((1 << 32) - 1)


def _pages(zone):
    """(pfn, run) of every page of the zone, holes left out."""
    for r in zone.runs:
        for i in range(r.count):
            yield r.pfn + i, r


def _fields(r):
    return r._replace(pfn=0, count=0)


def _in_use_alike(p, q):
    """Two pages in use (a reference held, and a slab's page or not
    PG_reserved), alike in every word but those their users write (lru,
    mapping, index, private): flags, _refcount, page_type and memcg_data."""
    blank = {f: 0 for f in USER_WORDS}
    return p.ref != 0 and (p.type >> 24 == PGTY_SLAB or not p.flags & PG_RESERVED) and \
        _fields(p._replace(**blank)) == _fields(q._replace(**blank))


def user_word_pages(a, b):
    """The pfns whose pages the two dumps hold in use and alike but for the
    words their users write, those words differing -> sorted [pfn]: what
    compare(excused=...) may excuse, every one counted."""
    out = []
    for za, zb in zip(a.zones, b.zones):
        theirs = dict(_pages(zb))
        out += [pfn for pfn, p in _pages(za) if pfn in theirs and _fields(p) != _fields(theirs[pfn])
                and _in_use_alike(p, theirs[pfn])]
    return sorted(out)


def _show(field, v):
    """A field as the dump prints it: hex, but _refcount and relative links."""
    return str(v) if field == "ref" or isinstance(v, str) else f"{v:#x}"


def _page_diff(pfn, p, q, x, y, what=" differs"):
    diffs = [f"{f} {_show(f, getattr(p, f))} in {x}, {_show(f, getattr(q, f))} in {y}"
             for f in Run._fields[2:] if getattr(p, f) != getattr(q, f)]
    return f"pfn {pfn:#x}{what}: " + "; ".join(diffs)


def _first_page(za, zb, x, y, excused=frozenset()):
    pa, pb = _pages(za), _pages(zb)
    while True:
        p, q = next(pa, None), next(pb, None)
        if p is None and q is None:
            return None
        if p is None or q is None or p[0] != q[0]:
            at = min(v[0] for v in (p, q) if v)
            return f"pfn {at:#x} is a page in {x if p and p[0] == at else y} only"
        if _fields(p[1]) != _fields(q[1]) and not (p[0] in excused and _in_use_alike(p[1], q[1])):
            return _page_diff(p[0], p[1], q[1], x, y)


def _first_block(za, zb, pageblock, x, y):
    def each(z):
        return [(s + i * pageblock, mt, word) for s, n, mt, word in z.blocks for i in range(n)]
    ea, eb = each(za), each(zb)
    for p, q in zip(ea, eb):
        if p != q:
            return (f"the pageblock at pfn {p[0]:#x} has migratetype {p[1]} (flags {p[2]:#x}) in {x}, "
                    f"{q[1]} (flags {q[2]:#x}) in {y}")
    return f"the pageblocks end at {len(ea)} in {x}, {len(eb)} in {y}"


def _first_list(za, zb, x, y, keep=None):
    """The first list entry that differs; keep(pfn, key): the entries compared."""
    for key in sorted(set(za.lists) | set(zb.lists)):
        la, lb = ([p for p in z.lists.get(key, []) if keep is None or keep(p, key)] for z in (za, zb))
        if la != lb:
            i = next((i for i, (p, q) in enumerate(zip(la, lb)) if p != q), min(len(la), len(lb)))
            show = [f"{lst[i]:#x}" if i < len(lst) else "the list's end" for lst in (la, lb)]
            if keep is None:
                return (f"the order {key[0]} list of migratetype {key[1]} differs at entry {i}: "
                        f"{show[0]} in {x}, {show[1]} in {y}")
            return (f"the order {key[0]} list of migratetype {key[1]} holds the blocks both boots list in "
                    f"another order: its {i}th shared entry is {show[0]} in {x}, {show[1]} in {y}")
    return _first_unaccepted(za, zb, x, y)


def _first_unaccepted(za, zb, x, y):
    if za.unaccepted_list != zb.unaccepted_list:
        return f"the unaccepted lists differ: {len(za.unaccepted_list)} in {x}, {len(zb.unaccepted_list)} in {y}"
    return None


def _first_event(a, b, x, y, names=None):
    for name in sorted(set(a.events) | set(b.events)):
        if (names is None or name in names) and a.events.get(name) != b.events.get(name):
            return f"the vm event {name} is {a.events.get(name)} in {x}, {b.events.get(name)} in {y}"
    return None


def compare(a, b, names=("a", "b"), excused=()):
    """Two dumps -> None when they are the same, else the first difference,
    naming the zone and the first differing pfn, pageblock (its whole flags
    word), list entry, counter or vm event. excused: pfns whose pages may
    differ in the words their users write where both are in use and alike
    in every other word (_in_use_alike()); with any, the zones' digests are
    not compared (the pages are, word by word). Nothing else is excused:
    free and reserved pages, every other page's words, the pageblocks, the
    lists, nr_free, every zone counter and every vm event are compared."""
    if a.header != b.header:
        return f"the headers differ: {a.header} and {b.header}"
    if [(z.nid, z.name) for z in a.zones] != [(z.nid, z.name) for z in b.zones]:
        return "the zones differ: " + " and ".join(
            ", ".join(z.label() for z in d.zones) for d in (a, b))
    x, y = names
    excused = frozenset(excused)
    for za, zb in zip(a.zones, b.zones):
        where = za.label()
        for what in COUNTS + MOVED + (() if excused else ("digest",)):
            va, vb = getattr(za, what), getattr(zb, what)
            if va != vb:
                diff = f"{where}: {what} is {_hex(va)} in {x} and {_hex(vb)} in {y}"
                page = _first_page(za, zb, x, y, excused)
                return diff + (f"; {page}" if page else "")
        page = _first_page(za, zb, x, y, excused)
        if page:
            return f"{where}: {page}"
        if za.blocks != zb.blocks:
            return f"{where}: {_first_block(za, zb, a.header['pageblock'], x, y)}"
        listed = _first_list(za, zb, x, y)
        if listed:
            return f"{where}: {listed}"
        if za.nr_free != zb.nr_free:
            return f"{where}: nr_free {za.nr_free} in {x}, {zb.nr_free} in {y}"
    if (a.totalram, a.free_pages) != (b.totalram, b.free_pages):
        return (f"totalram_pages {a.totalram} and NR_FREE_PAGES {a.free_pages} in {x}, "
                f"{b.totalram} and {b.free_pages} in {y}")
    return _first_event(a, b, x, y)


def _hex(v):
    return "none" if v is None else f"{v:#x}"


def _listed(zone):
    """{(pfn, order, migratetype)} of every list entry."""
    return {(pfn, order, mt) for (order, mt), pfns in zone.lists.items() for pfn in pfns}


def _shared_lists(za, zb):
    """(key, [pfn], [pfn]) of each list's entries that both zones list (the
    same pfn, order and migratetype), in each zone's list order."""
    shared = _listed(za) & _listed(zb)
    for key in sorted(set(za.lists) | set(zb.lists)):
        yield key, *([p for p in z.lists.get(key, []) if (p, *key) in shared] for z in (za, zb))


def moved_entries(a, b):
    """How many of the list entries both dumps share stand elsewhere in b's
    order than in a's: each list's shared entries less the longest run of
    them that keeps a's order in b (a longest increasing subsequence)."""
    import bisect
    moved = 0
    for za, zb in zip(a.zones, b.zones):
        for _, la, lb in _shared_lists(za, zb):
            at = {p: i for i, p in enumerate(la)}
            tails = []
            for p in lb:
                i = bisect.bisect_left(tails, at[p])
                tails[i:i + 1] = [at[p]]
            moved += len(lb) - len(tails)
    return moved


def compare_untouched(a, b, names=("a", "b"), order=True):
    """Two dumps of boots whose allocations landed by their timing (more
    than one node or CPU: which pages a thread gets depends on when it
    asks) -> (None or the first difference, pages touched; None when they
    differ). Touched are the pages but PG_reserved ones outside the blocks
    that both dumps list alike (the same pfn, order and migratetype):
    pages in use in either, on a per-CPU list, or in a block an allocation
    split. Compared: each zone's span, present and managed pages, holes,
    NR_FREE_CMA_PAGES, highatomic reserve and NR_UNACCEPTED, and
    totalram_pages; on every pfn PG_reserved and the flags' links to zone,
    node and section; each list's entries that both dumps share, in their
    order there, and the unaccepted lists whole; every page of a shared
    block but the head's links, which name its list neighbours; each
    pageblock a shared block covers whole (its flags word); and each zone's
    free pages and nr_free, which may differ only by what lies outside the
    shared blocks, at most the zone's touched pages. order=False leaves the
    order of the shared entries to moved_entries(), for boots whose
    deferred init ran several threads on a node, which list the blocks
    they free in the order they come to the zone's lock."""
    if a.header != b.header or [(z.nid, z.name) for z in a.zones] != [(z.nid, z.name) for z in b.zones]:
        return compare(a, b, names), None
    x, y = names
    touched, pb = 0, a.header["pageblock"]
    for za, zb in zip(a.zones, b.zones):
        where = za.label()
        for what in COUNTS:
            va, vb = getattr(za, what), getattr(zb, what)
            if va != vb:
                return f"{where}: {what} is {_hex(va)} in {x} and {_hex(vb)} in {y}", None
        shared = _listed(za) & _listed(zb)
        listed = _first_list(za, zb, x, y, keep=lambda p, key: (p, *key) in shared) if order else \
            _first_unaccepted(za, zb, x, y)
        if listed:
            return f"{where}: {listed}", None
        heads = {pfn: order for pfn, order, _ in shared}
        end, at, mine = 0, None, 0      # the shared block being walked: its end, its head; pages touched
        theirs = dict(_pages(zb))
        for pfn, p in _pages(za):
            q = theirs.pop(pfn, None)
            if q is None:
                return f"{where}: pfn {pfn:#x} is a page in {x} only", None
            if (p.flags ^ q.flags) & PG_RESERVED:
                return f"{where}: pfn {pfn:#x} is PG_reserved in {x if p.flags & PG_RESERVED else y} only", None
            if (p.flags ^ q.flags) & LINK_BITS:
                return f"{where}: " + _page_diff(pfn, p, q, x, y, " is linked to another zone or node"), None
            if pfn in heads:
                end, at = pfn + (1 << heads[pfn]), pfn
            if pfn >= end:
                mine += not p.flags & PG_RESERVED
                continue
            if pfn == at:
                p, q = p._replace(next=0, prev=0), q._replace(next=0, prev=0)
            if _fields(p) != _fields(q):
                return f"{where}: " + _page_diff(pfn, p, q, x, y, f", in the shared block at {at:#x}, differs"), None
        if theirs:
            return f"{where}: pfn {min(theirs):#x} is a page in {y} only", None
        for pfn, block_order, _ in sorted(shared):
            for s in range(pfn, pfn + (1 << block_order), pb) if (1 << block_order) >= pb else ():
                wa, wb = (next((w for st, n, _, w in z.blocks if st <= s < st + n * pb), None) for z in (za, zb))
                if wa != wb:
                    return (f"{where}: the pageblock at pfn {s:#x}, in the shared block at {pfn:#x}, has "
                            f"flags {_hex(wa)} (migratetype {migratetype_at(za, s, pb)}) in {x}, {_hex(wb)} "
                            f"(migratetype {migratetype_at(zb, s, pb)}) in {y}"), None
        common = sum(1 << o for _, o, _ in shared)
        for z, name in ((za, x), (zb, y)):
            apart = sum(len(p) << o for (o, _), p in z.lists.items()) - common
            if apart > mine:
                return (f"{where}: {name} lists {apart} free pages outside the blocks both list, more than the "
                        f"{mine} pages either boot touched"), None
        if abs(za.free_pages - zb.free_pages) > mine:
            return (f"{where}: NR_FREE_PAGES is {za.free_pages} in {x}, {zb.free_pages} in {y}: more apart than "
                    f"the {mine} pages either boot touched"), None
        for o in sorted(set(za.nr_free) | set(zb.nr_free)):
            if abs(za.nr_free.get(o, 0) - zb.nr_free.get(o, 0)) << o > mine:
                return (f"{where}: nr_free of order {o} is {za.nr_free.get(o)} in {x}, {zb.nr_free.get(o)} in "
                        f"{y}: more pages apart than the {mine} either boot touched"), None
        touched += mine
    if a.totalram != b.totalram:
        return f"totalram_pages {a.totalram} in {x}, {b.totalram} in {y}", None
    return None, touched
