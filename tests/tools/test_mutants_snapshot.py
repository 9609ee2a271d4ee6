# SPDX-License-Identifier: MIT
"""make mutants' snapshot of the tree: the tracked and new files, and the
build's outputs without the downloads and source trees no mutant needs,
whatever order the build folder lists its entries in (a run once died when
a file came before every folder)."""
import os
import subprocess

import pytest

from tools import mutants, mutants_doc


def write(path, text="x"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_the_snapshot_takes_the_build_and_leaves_the_downloads(tmp_path):
    root, dest = tmp_path / "tree", tmp_path / "copy"
    write(str(root / "mm" / "heap.c"), "int heap;\n")
    write(str(root / ".gitignore"), "/build/\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "mm/heap.c"], check=True)
    write(str(root / "new.c"))                               # new, not yet added: taken
    write(str(root / "build" / "a-first.log"))               # a file listed before any folder
    write(str(root / "build" / "unit" / "test_heap"))
    write(str(root / "build" / "fuzz" / "corpus-e820" / "x"))
    for skipped in mutants.BUILD_SKIP:
        write(str(root / "build" / skipped / "big"))
    write(str(root / "build" / "xen-src" / "dl" / "xen_4.17.dsc"))  # Xen's source: linked
    mutants.snapshot(str(root), str(dest))
    assert (dest / "mm" / "heap.c").read_text() == "int heap;\n" and (dest / "new.c").exists()
    assert (dest / "build" / "a-first.log").exists() and (dest / "build" / "unit" / "test_heap").exists()
    assert not (dest / "build" / "fuzz" / "corpus-e820").exists()
    assert {"xen-src", "binaries", "peers"} <= set(mutants.BUILD_SKIP)     # peers: the downloads' old folder
    assert not any((dest / "build" / s / "big").exists() for s in mutants.BUILD_SKIP)
    linked = dest / "build" / "xen-src" / "dl" / "xen_4.17.dsc"
    assert linked.exists() and os.stat(linked).st_ino == os.stat(root / "build" / "xen-src" / "dl" / "xen_4.17.dsc").st_ino


@pytest.mark.skipif(os.environ.get(mutants.IN_RUN) == "1",
                    reason="inside make mutants, whose tree has a mutant applied; it checked this before starting")
def test_every_mutant_still_applies_to_the_tree():
    # make mutants refuses to start when one does not; a change that moves
    # the lines a mutant edits must rework it in the same commit
    found = mutants.all_mutants()
    assert len(found) > 50
    assert mutants.unusable(found) == []


def test_a_mutant_that_no_longer_applies_is_named(tmp_path):
    stale = tmp_path / "gone.patch"
    stale.write_text("Mutant: an edit of a line that is not there\n\n"
                     "diff --git a/mm/heap.c b/mm/heap.c\n--- a/mm/heap.c\n+++ b/mm/heap.c\n"
                     "@@ -1,1 +1,1 @@\n-no such line in this file\n+int x;\n")
    said = mutants.unusable([mutants.Mutant(str(stale))])
    assert len(said) == 1 and "gone.patch no longer applies" in said[0]


def test_the_killing_test_is_named_whole_even_with_a_slash_in_its_parameter():
    m = mutants.Mutant.__new__(mutants.Mutant)
    m.by = "tools"
    m.detail = ("FAILED tests/tools/test_kept_reports.py::test_a_kept_report_is_written_again_byte_for_byte"
                "[linux-src-deferral/nodefer] - AssertionError: docs/results/...")
    assert mutants_doc.killed_by(m) == ("tools: `test_kept_reports.py::test_a_kept_report_is_written_again_"
                                        "byte_for_byte[linux-src-deferral/nodefer]`")
    m.detail = "FAILED tests/tools/test_linux_init.py::test_read_back_differed - assert 1 == 0"
    assert mutants_doc.killed_by(m) == "tools: `test_linux_init.py::test_read_back_differed`"
