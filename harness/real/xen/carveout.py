# SPDX-License-Identifier: MIT
"""Where Xen puts each node's heap metadata at end_boot_allocator(): the
pages init_node_heap() takes out of the first range it sees on a node
(the node's free lists and avail[]), worked out from the boot allocator's
regions, the nodes and the boot CPU's node, under each release's rule.

end_boot_allocator() (Xen 4.17's page_alloc.c) first hands over the first
region whose first page is on the boot CPU's node (cpu_to_node(0)), then
every other region from the highest down. The first node to be
initialised keeps its metadata in static storage and loses no page; every
later node loses NEEDED pages at one end:

  "4.17"  _init_heap_pages(), per node run [s, e) of one call: at the run's
          tail when s is aligned to 2^MAX_ORDER and ffs(e) <= ffs(s), else
          at its head.
  "4.16"  the loop of 4.16's init_heap_pages() (heap-init=page), with the
          call's range [s0, e0) and the node's first page s: at the call's
          tail when the call's last page is on the node, s is aligned to
          2^MAX_ORDER and ffs(e0) <= ffs(s), else at s.

So on a node whose first run is not the call's last, the two releases can
place the metadata at different ends, and the heaps differ by where those
pages are: a fact of Xen's history, named, not a failure."""

MAX_ORDER = 18
# init_node_heap()'s pages on x86-64: NR_ZONES (PADDR_BITS 52 - PAGE_SHIFT
# 12 + 1 = 41) times MAX_ORDER + 1 list heads of 16 bytes, and 41 8-byte
# avail[] counters, 12,792 bytes, rounded up to pages.
NR_ZONES = 41
NEEDED = (NR_ZONES * (MAX_ORDER + 1) * 16 + NR_ZONES * 8 + 4095) >> 12
RULES = ("4.16", "4.17")
# Which rule each heap-init= variant follows: `page` is 4.16's loop.
RULE_OF = {"page": "4.16"}


class CarveError(ValueError):
    """A layout the model does not cover (a node's first run too short for
    its metadata, which Xen then takes from the xenheap)."""


def ffs(x):
    """find_first_set_bit(): the index of the lowest set bit."""
    return (x & -x).bit_length() - 1


def node_at(nodes, mfn):
    for s, e, n in nodes:
        if s <= mfn < e:
            return n
    return None


def call_order(regions, nodes, boot_node):
    """end_boot_allocator()'s init_heap_pages() calls, in order -> [(s, e)]."""
    live = [(s, e) for s, e in sorted(regions) if s < e]
    first = next((r for r in live if node_at(nodes, r[0]) == boot_node), None)
    rest = [r for r in reversed(live) if r != first]
    return ([first] if first else []) + rest


def runs_of(s, e, nodes):
    """The node runs of one call, lowest first -> [(s, e, node)]."""
    out = []
    for ns, ne, n in sorted(nodes):
        a, b = max(s, ns), min(e, ne)
        if a < b:
            if out and out[-1][1] == a and out[-1][2] == n:
                out[-1] = (out[-1][0], b, n)
            else:
                out.append((a, b, n))
    return out


def carve_outs(regions, nodes, boot_node, rule, needed=NEEDED):
    """{node: (s, e) or None}: the pages each node's metadata takes (None
    for the first node initialised, whose metadata is static)."""
    if rule not in RULES:
        raise CarveError(f"no carve-out rule {rule!r}: the rules are {', '.join(RULES)}")
    out = {}
    for s0, e0 in call_order(regions, nodes, boot_node):
        for s, e, n in runs_of(s0, e0, nodes):
            if n in out:
                continue
            if not out:
                out[n] = None
                continue
            if rule == "4.17":
                tail = s % (1 << MAX_ORDER) == 0 and ffs(e) <= ffs(s)
                end, room = e, e - s
            else:
                tail = node_at(nodes, e0 - 1) == n and s % (1 << MAX_ORDER) == 0 and ffs(e0) <= ffs(s)
                end, room = e0, e0 - s
            if room < needed:
                raise CarveError(f"node {n}'s first range [0x{s:x}, 0x{e:x}) is shorter than its "
                                 f"{needed} pages of heap metadata: Xen takes them elsewhere")
            out[n] = (end - needed, end) if tail else (s, s + needed)
    return out


def carved_regions(regions, carves):
    """The regions less the carved pages."""
    out = sorted(regions)
    for c in carves.values():
        if c is None:
            continue
        a, b = c
        out = [p for s, e in out for p in ((s, min(e, a)), (max(s, b), e)) if p[1] > p[0]]
    return out
