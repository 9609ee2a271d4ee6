# SPDX-License-Identifier: MIT
"""The machine code the hosted runner times is the kernel's: the heap's hot
functions, disassembled from both builds with every address named, match
instruction for instruction. The one known difference is in the merge loop
of the free path without Xen's pdx conversions (xen_costs=none; docs/design.md,
"The hosted runner: the same machine code"): the kernel's frame table sits at a negative address, so one
constant serves page_to_mfn (add) and mfn_to_page (sub), where the
user-space build needs the base and its negation in two registers. With
the conversions (the default) the two builds match there too."""
import collections
import os

import pytest

from harness.counts import codegen
from harness.counts.codegen import HOSTED, KERNEL

# The free path's copy without pdx, which holds the merge loop.
MERGE = ("heap_free_pages_none",)


@pytest.fixture(scope="module")
def code():
    for f in (KERNEL, HOSTED):
        if not os.path.exists(f):
            pytest.fail(f"{f} is missing: run `make all hosted`")
    return codegen.compare(KERNEL, HOSTED, codegen.HOT)


@pytest.mark.parametrize("func", [f for f in codegen.HOT if f not in MERGE])
def test_hot_function_is_the_kernels(code, func):
    assert code[func] is not None, f"{func} is missing from a build"
    kernel, hosted = code[func]
    assert len(kernel) >= 4         # an entry point that picks a copy is four instructions
    assert kernel == hosted


@pytest.mark.parametrize("func", MERGE)
def test_merge_loop_differs_only_in_how_it_holds_the_base(code, func):
    kernel, hosted = code[func]
    assert abs(len(kernel) - len(hosted)) <= 1
    ops = lambda body: collections.Counter("add" if i.split()[0] == "sub" else i.split()[0] for i in body)
    k, h = ops(kernel), ops(hosted)
    # At most: one address sum folded into a store, one constant loaded twice
    # or kept in a register where the other build has one free (the heap
    # object's pointer takes a register in both).
    assert sum(((k - h) + (h - k)).values()) <= 3, (k - h, h - k)
    assert not ((k - h) + (h - k)) - collections.Counter({"movabs": 1, "mov": 1, "add": 1}), (k - h, h - k)
