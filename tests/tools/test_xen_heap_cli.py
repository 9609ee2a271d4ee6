# SPDX-License-Identifier: MIT
"""`xen-heap-test --tree DIR [--proposal]` (harness/real/xen/hostcli.py) on
bad input, without building the tester: a stock tree by path gets its
version's series (tree.py's SERIES) on a copy, and a series that does not
apply is named with its patch, the file and the hunk, no copy left behind;
--proposal without a tree, or with --page or --time, is refused."""
import os
import subprocess
import sys

import pytest

from harness import ROOT
from harness.real.xen import hostcli, source

PAGE_ALLOC = "static void init_heap_pages(void) { }\nstatic void free_heap_pages(void) { }\n" \
             "static void init_node_heap(void) { }\n"
MM = "#define _PGC_need_scrub   PG_shift(7)\n"


def stock_tree(path):
    for rel, text in (("xen/Makefile", "export XEN_VERSION = 4\nexport XEN_SUBVERSION = 23\n"),
                      ("xen/common/page_alloc.c", PAGE_ALLOC), ("xen/arch/x86/include/asm/mm.h", MM),
                      ("docs/README", "")):
        os.makedirs(os.path.dirname(os.path.join(path, rel)), exist_ok=True)
        with open(os.path.join(path, rel), "w") as f:
            f.write(text)
    return str(path)


@pytest.mark.parametrize("which, series", [(0, "staging"), (1, "staging-measure")])
def test_the_series_of_the_tree_s_version_is_applied_to_a_copy_and_named_when_it_does_not(
        tmp_path, monkeypatch, which, series):
    monkeypatch.setattr(source, "SRC", str(tmp_path / "build"))
    t = stock_tree(tmp_path / "t")
    with pytest.raises(source.SourceError) as e:
        hostcli.series_tree(t, which, say=lambda *a: None)
    msg = str(e.value)
    assert f"patches/xen/{series}/0001-" in msg and "does not apply" in msg
    assert "xen/common/page_alloc.c, hunk #1" in msg
    assert not [n for n in os.listdir(tmp_path / "build") if n.startswith("tree-bypath-")]
    with open(os.path.join(t, "xen", "common", "page_alloc.c")) as f:
        assert f.read() == PAGE_ALLOC                                 # the tree given is only read


@pytest.mark.parametrize("args", [["--proposal"], ["--proposal", "--tree", ".", "--page"],
                                  ["--proposal", "--tree", ".", "--time", "1"]])
def test_proposal_wants_a_tree_and_no_other_mode(args):
    r = subprocess.run([sys.executable, "-m", "harness", "xen-heap-test"] + args, capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "--proposal wants --tree DIR" in r.stdout, r.stdout + r.stderr
