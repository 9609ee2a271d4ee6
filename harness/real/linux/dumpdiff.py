# SPDX-License-Identifier: MIT
"""Two of the memory maps harness/real/linux/dump.py reads back, compared:
exactly (compare()), or where no allocation touched (compare_untouched()),
each naming the first differing pfn, pageblock or list entry."""
from harness.real.linux.dump import PG_RESERVED, PGTY_SLAB, USER_WORDS, Run, migratetype_at


def _pages(zone):
    """(pfn, run) of every page of the zone, holes left out."""
    for r in zone.runs:
        for i in range(r.count):
            yield r.pfn + i, r


def _fields(r):
    return r._replace(pfn=0, count=0)


def compare(a, b, names=("a", "b"), user_words=True):
    """Two dumps -> None when they are the same, else the first difference,
    naming the zone and the first differing pfn, pageblock or list entry.
    user_words=False leaves out, in pages in use (a reference held, and a
    slab's page or not PG_reserved) whose flags, _refcount and page_type
    agree, the words a user writes (lru, mapping, index, private), and so
    the zones' digests:
    slabs keep their free objects' order there, and the kernel draws that
    order from its random pool (SLAB_FREELIST_RANDOM), which the command
    line's text seeds, so boots whose command lines differ (init_pages=stock
    and another) differ there whatever the memory init did
    (user_differences() counts those pages). Free pages, reserved pages
    that are no slab's, every page's flags, _refcount and page_type, the
    pageblocks and the lists are compared whole either way."""
    if a.header != b.header:
        return f"the headers differ: {a.header} and {b.header}"
    if [(z.nid, z.name) for z in a.zones] != [(z.nid, z.name) for z in b.zones]:
        return "the zones differ: " + " and ".join(
            ", ".join(z.label() for z in d.zones) for d in (a, b))
    x, y = names
    for za, zb in zip(a.zones, b.zones):
        where = za.label()
        for what in ("start", "spanned", "present", "managed", "free_pages", "holes") + \
                (("digest",) if user_words else ()):
            va, vb = getattr(za, what), getattr(zb, what)
            if va != vb:
                diff = f"{where}: {what} is {va:#x} in {x} and {vb:#x} in {y}"
                page = _first_page(za, zb, x, y, user_words)
                return diff + (f"; {page}" if page else "")
        page = _first_page(za, zb, x, y, user_words)
        if page:
            return f"{where}: {page}"
        if za.blocks != zb.blocks:
            return f"{where}: {_first_block(za, zb, a.header['pageblock'], x, y)}"
        for key in sorted(set(za.lists) | set(zb.lists)):
            la, lb = za.lists.get(key, []), zb.lists.get(key, [])
            if la != lb:
                i = next((i for i, (p, q) in enumerate(zip(la, lb)) if p != q), min(len(la), len(lb)))
                show = [f"{lst[i]:#x}" if i < len(lst) else "the list's end" for lst in (la, lb)]
                return (f"{where}: the order {key[0]} list of migratetype {key[1]} differs at entry {i}: "
                        f"{show[0]} in {x}, {show[1]} in {y}")
        if za.nr_free != zb.nr_free:
            return f"{where}: nr_free {za.nr_free} in {x}, {zb.nr_free} in {y}"
    if (a.totalram, a.free_pages) != (b.totalram, b.free_pages):
        return (f"totalram_pages {a.totalram} and NR_FREE_PAGES {a.free_pages} in {x}, "
                f"{b.totalram} and {b.free_pages} in {y}")
    return None


def _in_use_alike(p, q):
    """Two pages in use, alike but for the words their users write."""
    blank = {f: 0 for f in USER_WORDS}
    return p.ref != 0 and (p.type >> 24 == PGTY_SLAB or not p.flags & PG_RESERVED) and \
        _fields(p._replace(**blank)) == _fields(q._replace(**blank))


def user_differences(a, b):
    """How many pages the two dumps hold in use and alike but for the words
    their users write, those words differing."""
    n = 0
    for za, zb in zip(a.zones, b.zones):
        theirs = dict(_pages(zb))
        n += sum(1 for pfn, p in _pages(za) if pfn in theirs and _fields(p) != _fields(theirs[pfn])
                 and _in_use_alike(p, theirs[pfn]))
    return n


def _first_page(za, zb, x, y, user_words=True):
    pa, pb = _pages(za), _pages(zb)
    while True:
        p, q = next(pa, None), next(pb, None)
        if p is None and q is None:
            return None
        if p is None or q is None or p[0] != q[0]:
            at = min(v[0] for v in (p, q) if v)
            return f"pfn {at:#x} is a page in {x if p and p[0] == at else y} only"
        if _fields(p[1]) != _fields(q[1]) and (user_words or not _in_use_alike(p[1], q[1])):
            diffs = [f"{f} {_show(f, getattr(p[1], f))} in {x}, {_show(f, getattr(q[1], f))} in {y}"
                     for f in Run._fields[2:] if getattr(p[1], f) != getattr(q[1], f)]
            return f"pfn {p[0]:#x} differs: " + "; ".join(diffs)


def _show(field, v):
    """A field as the dump prints it: hex, but _refcount and relative links."""
    return str(v) if field == "ref" or isinstance(v, str) else f"{v:#x}"


def _first_block(za, zb, pageblock, x, y):
    def each(z):
        return [(s + i * pageblock, mt) for s, n, mt in z.blocks for i in range(n)]
    ea, eb = each(za), each(zb)
    for p, q in zip(ea, eb):
        if p != q:
            return f"the pageblock at pfn {p[0]:#x} has migratetype {p[1]} in {x}, {q[1]} in {y}"
    return f"the pageblocks end at {len(ea)} in {x}, {len(eb)} in {y}"


def _listed(zone):
    """{(pfn, order, migratetype)} of every list entry."""
    return {(pfn, order, mt) for (order, mt), pfns in zone.lists.items() for pfn in pfns}


def compare_untouched(a, b, names=("a", "b")):
    """Two dumps of boots whose allocations landed by their timing (more
    than one node: which node a page comes from depends on when it is
    asked for) -> (None or the first difference, pages touched; None when
    they differ). Touched are the pages but PG_reserved ones outside the
    blocks that both dumps list alike (the same pfn, order and
    migratetype): pages in use in either, on a per-CPU list, or in a block
    an allocation split. Compared: each zone's span, present
    and managed pages and holes, and totalram_pages; PG_reserved on every
    pfn; each list's entries that both dumps share, in their order there;
    every page of a shared block but the head's links, which name its list
    neighbours; and each pageblock a shared block covers whole."""
    if a.header != b.header or [(z.nid, z.name) for z in a.zones] != [(z.nid, z.name) for z in b.zones]:
        return compare(a, b, names), None
    x, y = names
    touched, pb = 0, a.header["pageblock"]
    for za, zb in zip(a.zones, b.zones):
        where = za.label()
        for what in ("start", "spanned", "present", "managed", "holes"):
            va, vb = getattr(za, what), getattr(zb, what)
            if va != vb:
                return f"{where}: {what} is {va:#x} in {x} and {vb:#x} in {y}", None
        shared = _listed(za) & _listed(zb)
        for key in sorted(set(za.lists) | set(zb.lists)):
            la, lb = ([p for p in z.lists.get(key, []) if (p, *key) in shared] for z in (za, zb))
            if la != lb:
                i = next(i for i, (p, q) in enumerate(zip(la, lb)) if p != q)
                return (f"{where}: the order {key[0]} list of migratetype {key[1]} holds the blocks both "
                        f"boots list in another order: its {i}th shared entry is {la[i]:#x} in {x}, "
                        f"{lb[i]:#x} in {y}"), None
        heads = {pfn: order for pfn, order, _ in shared}
        end, at = 0, None               # the shared block being walked: its end, and its head
        theirs = dict(_pages(zb))
        for pfn, p in _pages(za):
            q = theirs.pop(pfn, None)
            if q is None:
                return f"{where}: pfn {pfn:#x} is a page in {x} only", None
            if (p.flags ^ q.flags) & PG_RESERVED:
                return f"{where}: pfn {pfn:#x} is PG_reserved in {x if p.flags & PG_RESERVED else y} only", None
            if pfn in heads:
                end, at = pfn + (1 << heads[pfn]), pfn
            if pfn >= end:
                touched += not p.flags & PG_RESERVED
                continue
            if pfn == at:
                p, q = p._replace(next=0, prev=0), q._replace(next=0, prev=0)
            if _fields(p) != _fields(q):
                diffs = [f"{f} {_show(f, getattr(p, f))} in {x}, {_show(f, getattr(q, f))} in {y}"
                         for f in Run._fields[2:] if getattr(p, f) != getattr(q, f)]
                return f"{where}: pfn {pfn:#x}, in the shared block at {at:#x}, differs: " + "; ".join(diffs), None
        if theirs:
            return f"{where}: pfn {min(theirs):#x} is a page in {y} only", None
        for pfn, order, _ in sorted(shared):
            if order >= 0 and (1 << order) >= pb:
                for s in range(pfn, pfn + (1 << order), pb):
                    ma, mb = migratetype_at(za, s, pb), migratetype_at(zb, s, pb)
                    if ma != mb:
                        return (f"{where}: the pageblock at pfn {s:#x}, in the shared block at {pfn:#x}, has "
                                f"migratetype {ma} in {x}, {mb} in {y}"), None
    if a.totalram != b.totalram:
        return f"totalram_pages {a.totalram} in {x}, {b.totalram} in {y}", None
    return None, touched
