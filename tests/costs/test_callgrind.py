# SPDX-License-Identifier: MIT
"""Each xen_costs switch changes the machine work as described: counted
exactly by callgrind on the heap built for the host with the kernel's code
generation (tests/costs/heapcount.c), not by counters in the code.

Only costs made of instructions are checked here. The LFENCE is one
instruction where the unfenced __mfn_valid() has another (the compiler
clears the result register instead): its cost is in cycles. The out-of-line
lock, the pointer tables and the scrub check cost about as many instructions
as what replaces them, and moving code out of line or adding a load changes
how the compiler allocates registers in the rest of free_heap_pages() by as
much (measured: about 9 instructions a page either way), so their counts may
go either way. test_machine_code.py checks those in the generated code, and
tests/unit/test_xen_costs.c counts every switch's own work exactly."""
import pytest

import costslib

pytestmark = pytest.mark.skipif(not costslib.have_valgrind(), reason="valgrind is not installed")

# heapcount's 64 MiB map: MFNs [0x100, 0x200) and [0x270, 0x3e00).
PAGES = (0x200 - 0x100) + (0x3e00 - 0x270)

# Costs made of instructions, paid by page per page and by chunk per block.
INSTRUCTIONS = ("mfn_valid", "m2p", "pdx", "memnode", "zone")


@pytest.fixture(scope="module")
def counts():
    costslib.build()
    counts, pages = costslib.callgrind("64M", ["page", "chunk", "once"], costslib.ABLATION, cache_sim=True)
    assert pages == PAGES
    return counts


@pytest.mark.parametrize("cost", INSTRUCTIONS + ("node_heap",))
def test_removing_a_cost_removes_instructions_from_page(counts, cost):
    assert counts[("all", "page")]["Ir"] > counts[("-" + cost, "page")]["Ir"]


@pytest.mark.parametrize("cost", INSTRUCTIONS)
def test_removing_a_cost_removes_instructions_from_chunk(counts, cost):
    assert counts[("all", "chunk")]["Ir"] > counts[("-" + cost, "chunk")]["Ir"]


def test_none_is_the_least_work(counts):
    # (Not once: with none it stores the M2P entries, a rep stosq per block
    # that callgrind counts per qword.)
    for strategy in ("page", "chunk"):
        least = counts[("none", strategy)]["Ir"]
        assert all(counts[(s, strategy)]["Ir"] > least for s in costslib.ABLATION if s != "none"), strategy


def test_page_pays_more_per_page_than_chunk(counts):
    # Removing a cost saves page more instructions than chunk.
    for cost in INSTRUCTIONS:
        page = counts[("all", "page")]["Ir"] - counts[("-" + cost, "page")]["Ir"]
        chunk = counts[("all", "chunk")]["Ir"] - counts[("-" + cost, "chunk")]["Ir"]
        assert page > chunk, (cost, page, chunk)


def test_m2p_stores_are_data_writes(counts):
    # With stores, once writes every page's 8-byte M2P entry; with Xen's
    # boot-time model it makes two calls per block instead, which write
    # their return addresses and nothing else.
    extra = counts[("-m2p", "once")]["Dw"] - counts[("all", "once")]["Dw"]
    assert 0.95 * PAGES < extra <= PAGES, extra
