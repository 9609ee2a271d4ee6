# SPDX-License-Identifier: MIT
"""The source-built Xen's heap dump (harness/real/xen/heapdump.py), on serial
logs recorded from Xen 4.17 built here with the series: the parse, the
block digest worked out again, the checks of a dump against itself, one
variant against another (the first differing block named), and the blocks
against the canonical decomposition of the boot allocator's regions.

data/xen-src/: 1 GiB guests, one node (Xen fakes it) and two unequal SRAT
nodes, heap-init=chunk and sweep; and the 72b02bc code as committed, which
hands a range that crosses nodes over whole, on two nodes: a heap that is
not canonical, which the oracle must catch."""
import os
import re

import pytest

from conftest import HERE
from harness.real.xen import carveout, heapdump

DATA = os.path.join(HERE, "data", "xen-src")


def log(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("name", ["xen-4.17-chunk-1G.log", "xen-4.17-sweep-1G.log",
                                  "xen-4.17-chunk-1G-2nodes.log", "xen-4.17-sweep-1G-2nodes.log"])
def test_a_recorded_dump_holds_together_and_is_the_canonical_heap(name):
    text = log(name)
    d = heapdump.parse(text)
    assert d.regions and d.blocks and d.total > 200_000
    assert heapdump.check(d) == []
    assert heapdump.against_oracle(d, heapdump.nodes_of(text)) == []


def test_the_parse_reads_every_kind_of_line():
    d = heapdump.parse(log("xen-4.17-chunk-1G.log"))
    assert d.regions[0] == (0x100, 0x200)
    assert len(d.blocks) == d.nblocks == 33
    assert d.blocks[0] == (0, 9, 8, 0x100, 8, 0)          # node, zone, order, mfn, PFN_ORDER, first_dirty
    assert d.avail[(0, 18)] == 127251 and sum(d.avail.values()) == d.total == d.listed == 258067
    assert d.need_scrub == {0: 258067} and d.notfree == 0
    assert d.digest() == ("638d2982a88f673a", "3c64ee4439a0a7b7")


def test_chunk_and_sweep_build_one_heap_on_one_node_and_on_two():
    for suffix in ("1G.log", "1G-2nodes.log"):
        dumps = {v: heapdump.parse(log(f"xen-4.17-{v}-{suffix}")) for v in ("chunk", "sweep")}
        assert heapdump.compare(dumps) == []
        assert dumps["chunk"].block_set() == dumps["sweep"].block_set()


def test_a_block_line_lost_fails_the_digest():
    text = log("xen-4.17-sweep-1G.log")
    lines = text.splitlines(True)
    at = next(i for i, x in enumerate(lines) if "heapdump: block" in x)
    d = heapdump.parse("".join(lines[:at] + lines[at + 1:]))
    problems = heapdump.check(d)
    assert any("block digest of the 32 block lines" in p for p in problems)
    assert any("32 block lines" in p and "Xen counted 33 blocks" in p for p in problems)


def test_a_dump_cut_short_or_missing_is_named():
    text = log("xen-4.17-chunk-1G.log")
    with pytest.raises(heapdump.DumpError, match="cut short: .* no total line"):
        heapdump.parse(text[:text.index("heapdump: avail")])
    with pytest.raises(heapdump.DumpError, match="no heap dump"):
        heapdump.parse(text.replace("heapdump:", "heap dump:"))
    with pytest.raises(heapdump.DumpError, match="no known kind"):
        heapdump.parse(text.replace("heapdump: avail 0 9 256", "heapdump: avial 0 9 256"))


def test_a_variant_with_another_heap_is_named_with_the_first_differing_block():
    good = heapdump.parse(log("xen-4.17-chunk-1G-2nodes.log"))
    bad = heapdump.parse(log("xen-4.17-72b02bc-as-committed-1G-2nodes.log"))
    problems = heapdump.compare({"chunk": good, "chunk-72b02bc": bad})
    assert len(problems) == 1
    assert problems[0].startswith("chunk-72b02bc built another heap than chunk: digests ")
    assert "first difference: node 0 zone 17 order 14 at mfn 0x10000" in problems[0]


def test_the_72b02bc_code_as_committed_is_not_the_canonical_heap_across_nodes():
    """It hands a range that crosses a node boundary over whole: blocks
    span the two nodes, as the commit after it (bd0bb8a0) fixed."""
    text = log("xen-4.17-72b02bc-as-committed-1G-2nodes.log")
    d = heapdump.parse(text)
    assert heapdump.check(d) == []                  # a consistent heap, only not the right one
    problems = heapdump.against_oracle(d, heapdump.nodes_of(text))
    assert len(problems) == 1 and "not the canonical decomposition" in problems[0]
    assert "Xen has node 0 order 16 at 0x10000" in problems[0]


def test_a_count_info_difference_alone_shows_as_another_heap():
    a = heapdump.parse(log("xen-4.17-chunk-1G.log"))
    b = heapdump.parse(log("xen-4.17-chunk-1G.log"))
    b.digest_pages ^= 1
    problems = heapdump.compare({"chunk": a, "sweep": b})
    assert len(problems) == 1 and "the same blocks; the pages' count_info or the counters differ" in problems[0]


def test_node_lines_read_from_srat_or_the_faked_node():
    assert heapdump.nodes_of(log("xen-4.17-chunk-1G.log")) == [(0, 0x3ffe0, 0)]
    assert heapdump.nodes_of(log("xen-4.17-chunk-1G-2nodes.log")) == \
        [(0, 0xa0, 0), (0x100, 0x15400, 0), (0x15400, 0x40000, 1)]
    with pytest.raises(heapdump.DumpError, match="names no NUMA node"):
        heapdump.nodes_of("(XEN) nothing here\n")


def blocks_of(regions, nodes):
    return [(n, z, o, m, o, 0) for n, z, o, m in heapdump.expected_blocks(regions, nodes)]


def test_init_node_heaps_pages_are_the_only_ones_missing_and_exactly_where_xen_puts_them():
    """A node other than the first initialised keeps its heap metadata in
    its first range's first or last pages (4.17: the head here, its start
    not aligned to 2^MAX_ORDER); any other gap fails."""
    nodes = [(0, 0x400, 0), (0x400, 0x800, 1)]
    d = heapdump.Dump()
    d.regions = [(0x100, 0x800)]
    d.blocks = blocks_of([(0x100, 0x400), (0x404, 0x800)], nodes)   # node 1's first four pages carved
    assert heapdump.against_oracle(d, nodes) == []
    d.blocks = blocks_of([(0x100, 0x400), (0x400, 0x7fc)], nodes)   # its last four: not 4.17's place
    assert "not the canonical decomposition" in heapdump.against_oracle(d, nodes)[0]
    d.blocks = blocks_of([(0x100, 0x3fc), (0x400, 0x800)], nodes)   # node 0's are static: none carved
    assert "not the canonical decomposition" in heapdump.against_oracle(d, nodes)[0]
    d.blocks = blocks_of([(0x100, 0x400), (0x404, 0x600), (0x610, 0x800)], nodes)   # a hole mid-range
    problems = heapdump.against_oracle(d, nodes)
    assert problems and "pages on no block: [0x600, 0x610)" in problems[0]


def test_the_static_metadata_is_the_first_node_initialised_not_node_0():
    """end_boot_allocator() hands over the boot CPU's node's first region
    first: with the CPU on node 1, node 1's metadata is static and node 0
    loses the first pages of its first range, [0x200, 0x400): the highest
    of its regions, as the rest go from the top down."""
    nodes = [(0, 0x400, 0), (0x400, 0x800, 1)]
    d = heapdump.Dump()
    d.regions = [(0x100, 0x200), (0x200, 0x400), (0x400, 0x800)]
    d.blocks = blocks_of([(0x100, 0x200), (0x204, 0x400), (0x400, 0x800)], nodes)
    assert heapdump.against_oracle(d, nodes, boot_node=1) == []
    assert heapdump.against_oracle(d, nodes, boot_node=0)


def test_mix_is_splitmix64s_finaliser():
    """Known values of the finaliser (its constants), so the digest is the patch's."""
    assert heapdump.mix(0) == 0
    assert heapdump.mix(1) == 0x5692161d100b05e5


def test_xen_420s_node_lines_are_read_too():
    """4.20 prints a node's SRAT range as 'NUMA: Node', where 4.17 said 'SRAT: Node'."""
    text = log("xen-4.20-sweep-1G-2nodes.log")
    assert "SRAT: Node" not in text
    assert heapdump.nodes_of(text) == [(0, 0xa0, 0), (0x100, 0x15400, 0), (0x15400, 0x40000, 1)]
    d = heapdump.parse(text)
    assert heapdump.check(d) == [] and heapdump.against_oracle(d, heapdump.nodes_of(text)) == []
    from harness.real.bracket.logs import xen_facts
    facts = xen_facts(text)
    assert facts["version"].startswith("4.20") and facts["log_bracket"] > 0


def test_a_block_that_spans_two_touching_regions_covers_both():
    """Regions that touch are one run of free pages: a block across their
    edge (the merge end_boot_allocator() does there) covers each region's
    part, and the heap is the canonical one."""
    regions = [(0x100, 0x180), (0x180, 0x200)]
    assert heapdump.missing_runs(regions, [(0x100, 0x200)]) == []
    assert heapdump.missing_runs(regions, [(0x100, 0x180)]) == [(0x180, 0x200)]
    nodes = [(0, 0x400, 0)]
    d = heapdump.Dump()
    d.regions = regions
    d.blocks = [(0, 9, 8, 0x100, 8, 0)]
    assert heapdump.against_oracle(d, nodes) == []


def test_sweep_must_list_chunks_blocks_in_chunks_order():
    """The same blocks in another order pass a digest (a sum) but not the
    order-aware comparison of chunk and sweep; other variants are held to
    the digests only."""
    a = heapdump.parse(log("xen-4.17-chunk-1G.log"))
    b = heapdump.parse(log("xen-4.17-chunk-1G.log"))
    b.blocks[1], b.blocks[2] = b.blocks[2], b.blocks[1]
    problems = heapdump.compare({"chunk": a, "sweep": b})
    assert len(problems) == 1 and problems[0].startswith("sweep lists chunk's blocks in another order: entry 1 ")
    assert heapdump.compare({"chunk": a, "chunk-72b02bc": b}) == []
    b = heapdump.parse(log("xen-4.17-chunk-1G.log"))
    a.heads, b.heads = [(0, 0)] * len(a.blocks), [(1, 0)] + [(0, 0)] * (len(a.blocks) - 1)
    assert "need_tlbflush" in heapdump.compare({"chunk": a, "sweep": b})[0]


def test_a_later_stage_is_parsed_apart_with_the_heads_and_the_fields():
    boot = log("xen-4.17-chunk-1G.log")
    later = ("(XEN) heapdump: stage discard_initial_images\n"
             "(XEN) heapdump: block 0 9 8 0x100 8 0 1 0\n"
             "(XEN) heapdump: avail 0 9 256\n(XEN) heapdump: node 0 need_scrub 0\n"
             "(XEN) heapdump: total_avail_pages 256 listed 256 blocks 1 notfree 0\n"
             f"(XEN) heapdump: digest blocks {heapdump.block_hash(0, 9, 8, 0x100, 0):016x} pages 0\n"
             "(XEN) heapdump: fields 00000000000000ab\n")
    d = heapdump.parse(boot + later, "discard_initial_images")
    assert d.blocks == [(0, 9, 8, 0x100, 8, 0)] and d.heads == [(1, 0)] and d.fields == 0xab
    assert heapdump.check(d) == []
    assert heapdump.parse(boot + later).nblocks == 33
    with pytest.raises(heapdump.DumpError, match="no heap dump .* at discard_initial_images"):
        heapdump.parse(boot, "discard_initial_images")


def test_page_against_chunk_on_three_unequal_nodes_is_named_by_the_carve_out_rule():
    """Node 1's run is not its call's last: 4.17 decides use_tail on the
    run (its start 2^18-aligned, ffs(end) <= ffs(start): the tail), 4.16 on
    the whole call (whose last page is on node 2: the head).
    The difference is a note, not a problem; a heap the rules do not
    explain still fails."""
    nodes = [(0, 0x40000, 0), (0x40000, 0xc0000, 1), (0xc0000, 0x100000, 2)]
    regions = [(0x100, 0x100000)]
    dumps = {}
    for variant, rule in (("page", "4.16"), ("chunk", "4.17")):
        carves = carveout.carve_outs(regions, nodes, 0, rule)
        d = heapdump.Dump()
        d.regions = regions
        d.blocks = blocks_of(carveout.carved_regions(regions, carves), nodes)
        d.digest_blocks = sum(heapdump.block_hash(n, z, o, m, fd) for n, z, o, m, _, fd in d.blocks) & heapdump.MASK
        d.digest_pages = 0
        dumps[variant] = d
    assert dumps["page"].block_set() != dumps["chunk"].block_set()
    notes = []
    assert heapdump.compare(dumps, nodes, 0, notes) == []
    assert len(notes) == 1 and "node 1 at [0x40000, 0x40004) against [0xbfffc, 0xc0000)" in notes[0]
    assert heapdump.compare(dumps) != []            # without the nodes: not explained
    dumps["page"].blocks = dumps["page"].blocks[1:]
    assert heapdump.compare(dumps, nodes, 0, []) != []


def with_node_avail(text, pages):
    """A recorded 4.17 dump given staging's node_avail line after each node line."""
    return re.sub(r"heapdump: node (\d+) need_scrub \d+\n",
                  lambda m: m.group(0) + f"(XEN) heapdump: node_avail {m.group(1)} {pages}\n", text)


def test_node_avail_pages_is_read_and_held_to_avail_and_across_variants():
    text = log("xen-4.17-chunk-1G.log")
    d = heapdump.parse(with_node_avail(text, 258067))
    assert d.node_avail == {0: 258067} and heapdump.check(d) == []
    assert d.as_record()["node_avail"] == {"0": 258067}
    assert heapdump.parse(text).node_avail == {}                 # a tree without it: nothing to hold
    short = heapdump.parse(with_node_avail(text, 258066))
    assert heapdump.check(short) == ["node 0's node_avail_pages[] is 258066, its avail[] sums to 258067"]
    problems = heapdump.compare({"chunk": d, "sweep": short})
    assert len(problems) == 1 and problems[0].startswith("sweep built another heap than chunk"), problems
