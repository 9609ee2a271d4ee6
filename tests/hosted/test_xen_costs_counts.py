# SPDX-License-Identifier: MIT
"""Each xen_costs switch changes the machine work as described: counted
exactly by callgrind on the hosted runner (the kernel's heap code built for
user space), one run per cost set, not by counters in the code.

Only costs made of instructions are checked here. The LFENCE is one
instruction where the unfenced __mfn_valid() has another (the compiler
clears the result register instead): its cost is in cycles. The out-of-line
lock, the pointer tables and the scrub check cost about as many instructions
as what replaces them, and moving code out of line or adding a load changes
how the compiler allocates registers in the rest of free_heap_pages() by as
much (measured: about 9 instructions a page either way), so their counts may
go either way. test_xen_costs_code.py checks those in the generated code,
and tests/unit/test_xen_costs.c counts every switch's own work exactly."""
import shutil

import pytest

from harness.counts import ablation
from harness.counts import callgrind as cg
from harness.common import MIB

pytestmark = pytest.mark.skipif(not shutil.which("valgrind"), reason="valgrind is not installed")

# Costs made of instructions, paid by page per page. chunk pays m2p, pdx and
# memnode per page as well (its mark loop, its node scan), mfn_valid and zone
# once a block (docs/fidelity-xen.md's table): a few hundred instructions a run, less
# than the compiler's register allocation moves the per-page loop between two
# copies of the code (measured when mark_page_free() took Xen's broken test:
# chunk without mfn_valid ran 23 instructions more than with it, 778,454
# against 778,431 at 64 MiB), so only the per-page ones are checked on chunk.
INSTRUCTIONS = ("mfn_valid", "m2p", "pdx", "memnode", "zone")
CHUNK_PER_PAGE = ("m2p", "pdx", "memnode")


@pytest.fixture(scope="module")
def counts(tmp_path_factory):
    """{(set, strategy): counts of its init} and the pages handed over, at 64 MiB."""
    out, pages = {}, set()
    for costs in ablation.SETS:
        folder = tmp_path_factory.mktemp(ablation.set_name(costs))
        args = ["runs=1", "strategies=page,chunk,sweep", f"xen_costs={costs}"]
        for r in cg.count_size(64 * MIB, str(folder), kernel_args=args):
            if r["phase"] == "init" and r["run"] == 0:
                out[(costs, r["strategy"])] = r["counts"]
                pages.add(r["pages"])
    assert len(pages) == 1
    return out, pages.pop()


@pytest.mark.parametrize("cost", INSTRUCTIONS + ("node_heap",))
def test_removing_a_cost_removes_instructions_from_page(counts, cost):
    c, _ = counts
    assert c[("all", "page")]["Ir"] > c[("-" + cost, "page")]["Ir"]


@pytest.mark.parametrize("cost", CHUNK_PER_PAGE)
def test_removing_a_cost_removes_instructions_from_chunk(counts, cost):
    c, _ = counts
    assert c[("all", "chunk")]["Ir"] > c[("-" + cost, "chunk")]["Ir"]


def test_none_is_the_least_work(counts):
    # (Not sweep: with none it stores the M2P entries, a rep stosq per block
    # that callgrind counts per qword.)
    c, _ = counts
    for strategy in ("page", "chunk"):
        least = c[("none", strategy)]["Ir"]
        assert all(c[(s, strategy)]["Ir"] > least for s in ablation.SETS if s != "none"), strategy


def test_page_pays_more_per_page_than_chunk(counts):
    # Removing a cost saves page more instructions than chunk, for each cost
    # page pays more often than chunk (not m2p: one call a page in both).
    c, _ = counts
    for cost in INSTRUCTIONS:
        if cost == "m2p":
            continue
        page = c[("all", "page")]["Ir"] - c[("-" + cost, "page")]["Ir"]
        chunk = c[("all", "chunk")]["Ir"] - c[("-" + cost, "chunk")]["Ir"]
        assert page > chunk, (cost, page, chunk)


def test_m2p_stores_are_data_writes(counts):
    # With stores, sweep writes every page's 8-byte M2P entry; with Xen's
    # boot-time model it makes one call per range and one per block head, which write
    # their return addresses and nothing else.
    c, pages = counts
    extra = c[("-m2p", "sweep")]["Dw"] - c[("all", "sweep")]["Dw"]
    assert 0.95 * pages < extra <= pages, (extra, pages)
