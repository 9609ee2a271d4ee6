# SPDX-License-Identifier: MIT
"""Each xen_costs switch changes the machine code as described: read from
the disassembly of the hosted runner (the kernel's heap code, built with the
kernel's code generation for user space), one compiled copy per cost set."""
import re

import pytest

from harness.counts import codegen
from harness.hosted.runner import RUNNER


@pytest.fixture(scope="module")
def code():
    """{function: [(mnemonic, operands), ...]}, as harness.codegen reads the runner."""
    return {name: [tuple(ins.split(None, 1)) if " " in ins else (ins, "") for _, ins in body]
            for name, body in codegen.disassemble(RUNNER).items()}


def calls(insns):
    """Functions called, or jumped to from the end as a tail call."""
    out = set()
    for m, ops in insns:
        target = re.search(r"<([^>]+)>", ops)
        if target and (m == "call" or (m == "jmp" and "+" not in target.group(1))):
            out.add(target.group(1))
    return out


def has(insns, mnemonic, operand_part=""):
    return any(m == mnemonic and operand_part in ops for m, ops in insns)


def free(code, variant):
    return code[f"heap_free_pages_{variant}"]


def test_the_fence_is_in_mfn_valid_only_where_modelled(code):
    for name, insns in code.items():
        if name.startswith("xc_mfn_valid_call"):
            assert has(insns, "lfence") == ("fenced" in name), name
    assert "xc_mfn_valid_call_fenced_pdx" in calls(free(code, "all"))
    without = free(code, "without_XC_LFENCE")
    assert "xc_mfn_valid_call_pdx" in calls(without) and not has(without, "lfence")
    # Inline mfn_valid() keeps its fence; with neither, no fence at all.
    inline = free(code, "without_XC_MFN_VALID")
    assert has(inline, "lfence") and not any(c.startswith("xc_mfn_valid") for c in calls(inline))
    assert not has(free(code, "none"), "lfence")


def test_bt_on_memory_only_in_xens_mfn_valid(code):
    # Xen's test_bit() is BT on the bit string in memory; the inline form is
    # plain C (which the compiler may turn into BT on a register).
    assert has(code["xc_mfn_valid_call_fenced_pdx"], "bt", "PTR [")
    assert not has(free(code, "without_XC_MFN_VALID"), "bt", "PTR [")


def test_the_lock_is_out_of_line_only_where_modelled(code):
    assert {"xc_spin_lock_call", "xc_spin_unlock_call"} <= calls(free(code, "all"))
    inline = free(code, "without_XC_LOCK")
    assert not calls(inline) & {"xc_spin_lock_call", "xc_spin_unlock_call"}
    assert has(inline, "lock", "xadd")
    lock = code["xc_spin_lock_call"]
    # Xen's _spin_lock(): the preemption count up, one locked add on head and tail.
    assert has(lock, "lock", "xadd") and any(m in ("add", "inc") and "DWORD PTR [r" in o for m, o in lock)
    assert any(m in ("sub", "dec") for m, _ in code["xc_spin_unlock_call"])


def test_the_m2p_is_a_call_or_a_store(code):
    assert "xc_set_gpfn_from_mfn_call" in calls(free(code, "all"))
    assert "xc_set_gpfn_from_mfn_call" not in calls(free(code, "without_XC_M2P"))
    # The call returns before its store while the M2P is not set up.
    body = code["xc_set_gpfn_from_mfn_call"]
    assert [m for m, _ in body].index("ret") < [m for m, _ in body].index("mov") + 3


def test_the_merge_loop_is_inline(code):
    # Xen's merge loop is part of free_heap_pages(): no call to a merge helper.
    for variant in ("all", "none"):
        assert not any("merge" in c for c in calls(free(code, variant))), variant


@pytest.mark.parametrize("variant", ["all", "none", "without_XC_LFENCE", "without_XC_SCRUB_CHECK"])
def test_page_calls_its_own_copy_of_free_heap_pages(code, variant):
    # No lookup per page: the page loop of a set calls that set's free path.
    assert calls(code[f"page_init_{variant}"]) & {c for c in calls(code[f"page_init_{variant}"])
                                                   if c.startswith("heap_free_pages")} == \
        {f"heap_free_pages_{variant}"}
