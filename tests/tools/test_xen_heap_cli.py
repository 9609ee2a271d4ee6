# SPDX-License-Identifier: MIT
"""`xen-src heap-test --tree DIR [--proposal]` (harness/real/xen/cli.py,
tree.py) on bad input, without building the tester: a stock tree by path
gets its version's series (tree.py's SERIES) on a copy, and a series that
does not apply is named with its patch, the file and the hunk, no copy
left behind; --proposal without a tree, or with --page, is refused, and
the old `xen-heap-test` names its replacement."""
import os
import subprocess
import sys

import pytest

from harness import ROOT
from harness.real.xen import source, tree

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
    monkeypatch.setattr(source.XEN, "src", str(tmp_path / "build"))
    t = stock_tree(tmp_path / "t")
    with pytest.raises(source.SourceError) as e:
        tree.series_tree(t, which, say=lambda *a: None)
    msg = str(e.value)
    assert f"patches/xen/{series}/0001-" in msg and "does not apply" in msg
    assert "xen/common/page_alloc.c, hunk #1" in msg
    assert not [n for n in os.listdir(tmp_path / "build") if n.startswith("tree-bypath-")]
    with open(os.path.join(t, "xen", "common", "page_alloc.c")) as f:
        assert f.read() == PAGE_ALLOC                                 # the tree given is only read


@pytest.mark.parametrize("args", [["--proposal"], ["--proposal", "--tree", ".", "--page"]])
def test_proposal_wants_a_tree_and_not_page(args):
    r = subprocess.run([sys.executable, "-m", "harness", "xen-src", "heap-test"] + args, capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "--proposal wants --tree DIR" in r.stderr, r.stdout + r.stderr


@pytest.mark.parametrize("args, says", [
    (["--threads", "2"], "--threads wants --proposal: before staging's fixes to reserve_offlined_page()"),
    (["--threads", "9", "--proposal", "--tree", "."], "--threads 9: the boot's hand-over on 1 to 8 CPUs")])
def test_a_parallel_hand_over_is_held_to_staging_on_one_to_eight_cpus(args, says):
    r = subprocess.run([sys.executable, "-m", "harness", "xen-src", "heap-test"] + args, capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and says in r.stderr, r.stdout + r.stderr


@pytest.mark.parametrize("args, says", [
    (["xen-heap-test", "--release", "4.17"], "`xen-heap-test` is now `xen-src heap-test`"),
    (["xen-src", "heap-test", "--time", "1"], "--time is gone: use `xen-src heap-time --sizes GIB`"),
    (["xen-src", "heap-test", "--release", "4.17"], "--release is gone: use --releases"),
    (["xen-src", "heap-time", "--sizes", "0.5"], "want whole GiB from 1 to 256")])
def test_the_old_command_and_flags_name_their_replacements(args, says):
    r = subprocess.run([sys.executable, "-m", "harness"] + args, capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    assert r.returncode == 2 and says in r.stdout + r.stderr, r.stdout + r.stderr
    assert len((r.stdout + r.stderr).strip().splitlines()) == 1 and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, says", [
    (["--sizes", "1", "--threads", "1,2"], "--threads wants --proposal"),
    (["--sizes", "1", "--proposal", "--tree", ".", "--threads", "0,2"], "--threads 0,2: want counts of CPUs"),
    (["--sizes", "1", "--proposal", "--tree", ".", "--threads", "two"], "--threads two: want counts of CPUs")])
def test_heap_time_threads_wants_the_proposal_and_counts_of_cpus(args, says):
    r = subprocess.run([sys.executable, "-m", "harness", "xen-src", "heap-time"] + args, capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and says in r.stderr, r.stdout + r.stderr


def test_the_parallel_report_sets_each_count_of_cpus_beside_one():
    from harness.real.xen.host import timing
    timed = [{"gib": 16, "way": way, "threads": k, "run": r, "pages": 1000, "ns": ns * (1 + r / 100)}
             for r in range(5) for way, k, ns in (("series", 1, 4000), ("series", 2, 2500),
                                                   ("floor", 1, 3000), ("floor", 2, 1500))]
    table = timing.parallel_report(timed, ["series"], [1, 2]).splitlines()
    assert table[0] == "| GiB | way | 1 CPU | 2 CPUs | 1 / 2 CPUs |"
    assert table[2].startswith("| 16 | series | 4.080 (") and "| 1.60x (" in table[2]
    assert table[3].startswith("| 16 | floor: memset() | 3.060 (") and "| 2.00x (" in table[3]


def test_heap_time_proposal_wants_a_tree():
    r = subprocess.run([sys.executable, "-m", "harness", "xen-src", "heap-time", "--proposal", "--sizes", "1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "--proposal wants --tree DIR (a stock tree)" in r.stderr, r.stdout + r.stderr


def test_a_split_of_the_series_names_a_number_it_lacks(tmp_path, monkeypatch):
    monkeypatch.setattr(source.XEN, "src", str(tmp_path / "build"))
    t = stock_tree(tmp_path / "t")
    with pytest.raises(source.SourceError, match=r"patches/xen/staging/ has no patch 0009"):
        tree.series_tree(t, 0, say=lambda *a: None, only=("0003", "0009"))


def test_a_split_of_the_series_applies_only_its_patches(tmp_path, monkeypatch):
    """only=("0003",): the copy gets 0003 alone, which fails on the fake
    tree at 0003 (not at 0001, which the whole series meets first)."""
    monkeypatch.setattr(source.XEN, "src", str(tmp_path / "build"))
    t = stock_tree(tmp_path / "t")
    with pytest.raises(source.SourceError) as e:
        tree.series_tree(t, 0, say=lambda *a: None, only=("0003",))
    assert "patches/xen/staging/0003-" in str(e.value) and "0001-" not in str(e.value), str(e.value)
