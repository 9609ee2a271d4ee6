# SPDX-License-Identifier: MIT
"""harness.oracle on synthetic memory records: decompositions worked out by
hand (MFN 0, holes, odd alignments, MAX_ORDER, node boundaries inside a
1 GiB block, pages between node ranges), the digest against published
SplitMix64 values and one recorded kernel run, and wrong kernel answers
caught with the first differing block named."""
import pytest

from harness.results import oracle
from harness.results.oracle import Block


def memory(bootmem, nodes=((0, 1 << 32),), shift=63):
    """A memory record: free regions, and per node a list of ranges (or one range)."""
    nodes = [[n] if isinstance(n[0], int) else list(n) for n in nodes]
    return {"type": "memory", "bootmem": [list(r) for r in bootmem],
            "node_map": {"source": "none" if len(nodes) == 1 else "srat", "memnode_shift": shift,
                         "nodes": [{"node": i, "ranges": [list(r) for r in rs]}
                                   for i, rs in enumerate(nodes)]}}


def blocks(mem):
    return [(b.mfn, b.order, b.node) for b in oracle.decompose(mem)]


def test_mfn_0_stays_out():
    assert blocks(memory([(0, 8)])) == [(1, 0, 0), (2, 1, 0), (4, 2, 0)]


def test_holes_and_odd_alignments():
    mem = memory([(3, 9), (11, 13), (0x40, 0x7f)])
    assert blocks(mem) == [
        (3, 0, 0), (4, 2, 0), (8, 0, 0),                   # [3, 9)
        (11, 0, 0), (12, 0, 0),                             # [11, 13): 12 has one page left
        (0x40, 5, 0), (0x60, 4, 0), (0x70, 3, 0), (0x78, 2, 0), (0x7c, 1, 0), (0x7e, 0, 0),
    ]


def test_touching_regions_are_one_run():
    assert blocks(memory([(0x180, 0x200), (0x100, 0x180)])) == [(0x100, 8, 0)]


def test_max_order_caps_a_block():
    # 3 GiB from 1 GiB up, and 2 GiB aligned to 2 GiB: never an order-19 block.
    assert blocks(memory([(0x40000, 0x100000)])) == [(0x40000, 18, 0), (0x80000, 18, 0),
                                                     (0xc0000, 18, 0)]
    assert blocks(memory([(0x80000, 0x100000)])) == [(0x80000, 18, 0), (0xc0000, 18, 0)]


# Node 1 starts at 768 MiB (MFN 0x30000), inside the 1 GiB block [0, 0x40000).
SPLIT = [(0x100, 8, 0), (0x200, 9, 0), (0x400, 10, 0), (0x800, 11, 0), (0x1000, 12, 0),
         (0x2000, 13, 0), (0x4000, 14, 0), (0x8000, 15, 0), (0x10000, 16, 0),
         (0x20000, 16, 0),                                  # not 17: that would cross 0x30000
         (0x30000, 16, 1), (0x40000, 18, 1)]


def test_node_boundary_inside_a_gigabyte():
    one = blocks(memory([(0x100, 0x80000)]))
    assert (0x20000, 17, 0) in one and (0x30000, 16, 0) not in one
    two = memory([(0x100, 0x80000)], nodes=[(0, 0x30000), (0x30000, 0x80000)], shift=16)
    assert blocks(two) == SPLIT


def test_pages_between_ranges_take_their_granules_node():
    # [0x2f000, 0x30000) is in no range; its 64 Ki-frame granule [0x20000,
    # 0x30000) is node 0's, so the run on node 0 still ends at 0x30000.
    mem = memory([(0x100, 0x80000)], nodes=[(0x100, 0x2f000), (0x30000, 0x80000)], shift=16)
    assert blocks(mem) == SPLIT


def test_a_free_page_on_no_node_is_refused():
    mem = memory([(0x200, 0x300)], nodes=[(0, 0x100)], shift=8)
    with pytest.raises(oracle.OracleError, match=r"\[0x200, 0x300\) are on no node"):
        oracle.decompose(mem)


def test_zone_is_the_bit_width():
    assert [b.zone for b in oracle.decompose(memory([(1, 8), (0x40000, 0x40001)]))] == [1, 2, 3, 19]


def test_mix_is_splitmix64():
    # SplitMix64's first outputs from seed 0 and from seed 1234567.
    assert oracle.mix(0x9e3779b97f4a7c15) == 0xe220a8397b1dcdaf
    x, out = 1234567, []
    for _ in range(3):
        x = (x + 0x9e3779b97f4a7c15) % (1 << 64)
        out.append(oracle.mix(x))
    assert out == [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_digest_of_a_recorded_kernel_run():
    # build/bootheap-host --mem 256M runs=1 strategies=page audit_blocks=64:
    # its memory record's regions, and its audit's counts and digest.
    mem = memory([(256, 512), (1065, 64510)], nodes=[(0, 65536)])
    want = oracle.decompose(mem)
    assert oracle.order_counts(want) == [1, 2, 2, 1, 2, 1, 2, 2, 3, 2, 0, 2, 2, 2, 2, 0, 0, 0, 0]
    assert sum(1 << b.order for b in want) == 63701
    assert oracle.digest(want) == "0x977cb9d9e384378c"
    assert oracle.digest(list(reversed(want))) == oracle.digest(want)


def audit_of(bl, truncated=False, listed=None):
    """The audit record a kernel that built blocks bl would print."""
    return {"type": "audit", "strategy": "page", "run": 0, "cpus": 1,
            "blocks": oracle.order_counts(bl), "free_pages": sum(1 << b.order for b in bl),
            "digest": oracle.digest(bl), "block_list": [list(b) for b in bl[:listed]],
            "block_list_truncated": truncated}


NUMA2 = memory([(0x100, 0x80000)], nodes=[(0, 0x30000), (0x30000, 0x80000)], shift=16)


def test_a_right_answer_passes():
    good = oracle.decompose(NUMA2)
    assert oracle.mismatches(NUMA2, audit_of(good)) == []
    assert oracle.mismatches(NUMA2, audit_of(good, truncated=True, listed=5)) == []
    assert oracle.check_records([NUMA2, audit_of(good)]) == []


def test_a_merge_across_the_node_boundary_is_named():
    good = oracle.decompose(NUMA2)
    # The kernel merged [0x20000, 0x30000) with its buddy on node 1.
    bad = good[:9] + [Block(0x20000, 17, 0, 18)] + good[11:]
    out = oracle.mismatches(NUMA2, audit_of(bad))
    assert out[0] == ("page run 0 on 1 CPU(s): first differing block, number 9: the kernel has "
                      "MFN 0x20000 order 17 (node 0, zone 18), the heap must have "
                      "MFN 0x20000 order 16 (node 0, zone 18)")
    assert any("order 16: 1 not 3" in x and "order 17: 1 not 0" in x for x in out), out
    assert any(x.startswith("page run 0 on 1 CPU(s): digest 0x") for x in out), out


def test_a_block_on_the_wrong_node_is_named():
    good = oracle.decompose(NUMA2)
    bad = good[:10] + [good[10]._replace(node=0)] + good[11:]
    out = oracle.mismatches(NUMA2, audit_of(bad))
    assert "number 10: the kernel has MFN 0x30000 order 16 (node 0, zone 18)" in out[0]
    assert len(out) == 2 and "digest" in out[1]      # same counts, other digest


def test_missing_and_extra_blocks_are_named():
    good = oracle.decompose(NUMA2)
    out = oracle.mismatches(NUMA2, audit_of(good[:-1]))
    assert "number 11: the kernel has none, the heap must have MFN 0x40000 order 18" in out[0]
    extra = good + [Block(0x80000, 0, 1, 20)]
    out = oracle.mismatches(NUMA2, audit_of(extra))
    assert "number 12: the kernel has MFN 0x80000 order 0 (node 1, zone 20), the heap must have none" in out[0]


def test_without_a_list_counts_and_digest_still_catch_it():
    good = oracle.decompose(NUMA2)
    a = audit_of(good)
    del a["block_list"], a["block_list_truncated"]
    assert oracle.mismatches(NUMA2, a) == []
    a["digest"] = "0x0000000000000001"
    assert oracle.mismatches(NUMA2, a) == [f"page run 0 on 1 CPU(s): digest 0x0000000000000001, "
                                          f"the heap's is {oracle.digest(good)}"]
    # check_records insists on a whole list when asked to.
    out = oracle.check_records([NUMA2, audit_of(good, truncated=True, listed=3)])
    assert out == ["page run 0: no whole block list (3 listed; audit_blocks=N must be at least 12)"]
    assert oracle.check_records([NUMA2]) == ["no audit record to check"]
