# SPDX-License-Identifier: MIT
"""The heap a boot must build, worked out on the host from the boot's
`memory` record alone, and held against what the kernel's `audit` records
say: the per-order counts, the digest and, when the kernel listed them
(`audit_blocks=N`), the blocks one by one.

Written from the rules, not from mm/: the free pages are the boot
allocator's regions (`bootmem`, after every reservation) without MFN 0; a
page's node comes from the node map's ranges; a maximal run of free pages
on one node is cut, from its start, into the largest naturally aligned
power-of-two blocks of at most 2^MAX_ORDER pages, which is the one heap
that merging every pair of free buddies on one node up to MAX_ORDER
leaves. A block's zone is the bit width of its MFN (MFN 0 never being
free, a naturally aligned block lies in one zone). The digest is the sum,
modulo 2^64, over the blocks of a 64-bit mix of (node, zone, order, MFN),
the SplitMix64 finaliser applied twice (docs/records.md)."""
from collections import namedtuple

MAX_ORDER = 18
MASK = (1 << 64) - 1

Block = namedtuple("Block", "mfn order node zone")


class OracleError(ValueError):
    """A memory record the oracle cannot work from (a page on no node)."""


def zone(mfn):
    """The zone of a page: its MFN's bit width."""
    return mfn.bit_length()


def node_lookup(memory):
    """mfn -> node, from the record's node map: the node of the range that
    holds the page, else of a range in the page's node-map granule (the map
    has one entry per 2^memnode_shift frames), else None."""
    nm = memory["node_map"]
    shift = nm["memnode_shift"]
    ranges = sorted((s, e, n["node"]) for n in nm["nodes"] for s, e in n["ranges"])

    def node_of(mfn):
        for s, e, node in ranges:
            if s <= mfn < e:
                return node
        g = mfn >> shift
        for s, e, node in ranges:
            if s < e and s >> shift <= g <= (e - 1) >> shift:
                return node
        return None
    return node_of, ranges, shift


def node_runs(memory):
    """[(start, end, node)]: the maximal runs of free pages on one node, in
    MFN order. Raises OracleError for a free page on no node."""
    node_of, ranges, shift = node_lookup(memory)
    free = sorted((s, e) for s, e in memory["bootmem"])
    # Where the node may change: at a range's edge, or between ranges at a granule's.
    cuts = {x for s, e, _ in ranges for x in (s, e)}
    pieces = []
    for s, e in free:
        s = max(s, 1)                       # MFN 0 never reaches the heap
        points = sorted({s, e} | {c for c in cuts if s < c < e})
        for a, b in zip(points, points[1:]):
            held = [n for rs, re, n in ranges if rs <= a < re]
            if held:                        # no range edge inside: one node throughout
                pieces.append((a, b, held[0]))
                continue
            # Between ranges: each granule of the node map takes its own node.
            while a < b:
                end = min(b, ((a >> shift) + 1) << shift)
                node = node_of(a)
                if node is None:
                    raise OracleError(f"free pages [0x{a:x}, 0x{end:x}) are on no node")
                pieces.append((a, end, node))
                a = end
    runs = []
    for a, b, n in pieces:
        if runs and runs[-1][1] == a and runs[-1][2] == n:
            runs[-1][1] = b
        else:
            runs.append([a, b, n])
    return [tuple(r) for r in runs]


def cut(s, e, max_order=MAX_ORDER):
    """[(mfn, order)]: [s, e) as the largest naturally aligned blocks of at
    most 2^max_order pages (Xen's MAX_ORDER, or Linux's MAX_PAGE_ORDER), from s up."""
    out = []
    while s < e:
        order = min(max_order, (e - s).bit_length() - 1)
        if s:
            order = min(order, (s & -s).bit_length() - 1)
        out.append((s, order))
        s += 1 << order
    return out


def decompose(memory):
    """Every free block the heap must hold, in MFN order."""
    return [Block(mfn, order, node, zone(mfn))
            for s, e, node in node_runs(memory) for mfn, order in cut(s, e)]


def mix(x):
    """The SplitMix64 finaliser."""
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9 & MASK
    x = (x ^ (x >> 27)) * 0x94d049bb133111eb & MASK
    return x ^ (x >> 31)


def block_hash(b):
    return mix(mix(b.mfn) ^ (b.node << 48 | b.zone << 32 | b.order))


def digest(blocks):
    """The kernel's digest of a set of blocks, as its hex string."""
    return f"0x{sum(block_hash(b) for b in blocks) & MASK:016x}"


def order_counts(blocks):
    counts = [0] * (MAX_ORDER + 1)
    for b in blocks:
        counts[b.order] += 1
    return counts


def describe(b):
    return f"MFN 0x{b.mfn:x} order {b.order} (node {b.node}, zone {b.zone})"


def mismatches(memory, audit, blocks=None):
    """What an `audit` record gets wrong against the heap the memory record
    defines: a list of sentences, empty when it agrees. A listed block that
    differs is named, the first one first; without a list only the counts
    and the digest can be held to it. blocks: decompose(memory), when the
    caller has it already."""
    want = decompose(memory) if blocks is None else blocks
    who = f"{audit['strategy']} run {audit['run']} on {audit['cpus']} CPU(s)"
    out = []
    listed = [Block(*x) for x in audit.get("block_list", [])]
    if "block_list" in audit:
        truncated = audit["block_list_truncated"]
        expect = want[:len(listed)] if truncated else want
        for i, (got, exp) in enumerate(zip(listed, expect)):
            if got != exp:
                out.append(f"{who}: first differing block, number {i}: the kernel has "
                           f"{describe(got)}, the heap must have {describe(exp)}")
                break
        else:
            if len(listed) < len(expect):
                out.append(f"{who}: first differing block, number {len(listed)}: the kernel "
                           f"has none, the heap must have {describe(expect[len(listed)])}")
            elif len(listed) > len(expect):
                extra = listed[len(expect)]
                out.append(f"{who}: first differing block, number {len(expect)}: the kernel "
                           f"has {describe(extra)}, the heap must have none")
        if truncated and len(listed) >= len(want):
            out.append(f"{who}: the list says it was cut after {len(listed)} blocks, "
                       f"the heap has {len(want)}")
    counts = order_counts(want)
    if audit["blocks"] != counts:
        diff = [f"order {o}: {g} not {w}" for o, (g, w) in enumerate(zip(audit["blocks"], counts))
                if g != w]
        out.append(f"{who}: blocks per order differ ({', '.join(diff)})")
    pages = sum(1 << b.order for b in want)
    if audit["free_pages"] != pages:
        out.append(f"{who}: {audit['free_pages']} free pages, the heap must have {pages}")
    d = digest(want)
    if audit["digest"] != d:
        out.append(f"{who}: digest {audit['digest']}, the heap's is {d}")
    return out


def check_records(records, need_list=True):
    """Every `audit` record of a boot against its `memory` record: a list of
    sentences, empty when all agree. need_list: each audit must carry a
    whole block list (the boot asked for enough with audit_blocks=N)."""
    memory = [r for r in records if r["type"] == "memory"]
    audits = [r for r in records if r["type"] == "audit"]
    if len(memory) != 1:
        return [f"expected one memory record, found {len(memory)}"]
    if not audits:
        return ["no audit record to check"]
    want = decompose(memory[0])
    out = []
    # A peer's audit (its `kernel` says which) is of another kernel's blocks:
    # it must hold the same pages, which its page digest says, not these blocks.
    peers = [a for a in audits if "kernel" in a]
    audits = [a for a in audits if "kernel" not in a]
    pages = {a.get("page_digest") for a in audits} - {None}
    for a in peers:
        if a["free_pages"] != sum(1 << b.order for b in want) or (pages and a.get("page_digest") not in pages):
            out.append(f"{a['strategy']} ({a['kernel']}) run {a['run']}: holds other pages than Xen's heap")
    for a in audits:
        if need_list and ("block_list" not in a or a["block_list_truncated"]):
            out.append(f"{a['strategy']} run {a['run']}: no whole block list "
                       f"({len(a.get('block_list', []))} listed; audit_blocks=N must be at "
                       f"least {len(want)})")
        out += mismatches(memory[0], a, want)
    return out
