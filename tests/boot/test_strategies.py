# SPDX-License-Identifier: MIT
"""Every strategy on the real memory map under each option that changes how
it works: the sweep strategy's store kinds, fake NUMA nodes (blocks must not
cross a node), and boot scrubbing off (clean blocks, list heads). Each
strategy's heap is also held, block by block, to the one the host works out
from the memory record (harness.oracle); the peers (Linux, FreeBSD) hold the
very pages Xen's heap holds under each."""
import pytest

from bootlib import AUDIT_BLOCKS, assert_ktap_ok, boot, check_heap, record

TESTS = ("strategies_build_the_same_heap,alloc_all_free_all_restores_heap,lazy_allocates_every_order,"
         "peers_hand_over_the_same_pages")


@pytest.mark.parametrize("args", [
    "sweep_stores=rep",
    "sweep_stores=plain",
    "sweep_stores=nt",
    "numa_fake=2",
    "numa_fake=3 sweep_stores=plain",
    "bootscrub=off",
    "xen_costs=none",
    "xen_costs=-m2p,-lfence numa_fake=2",
    "xen_costs=node_heap,heap_ptrs numa_fake=3",
])
def test_strategies_agree(args):
    r = boot("pvh", "3G", f"selftest selftest_only={TESTS} {AUDIT_BLOCKS} {args}", timeout=300)
    results = assert_ktap_ok(r, min_tests=4)
    assert len(results) == 4
    audits = check_heap(r)
    assert [a["strategy"] for a in audits] == ["page", "chunk", "chunk-72b02bc", "sweep", "lazy"]
    if "numa_fake" in args:
        assert record(r, "memory")["nodes"] == int(args.split("numa_fake=")[1][0])
