# SPDX-License-Identifier: MIT
"""`xen-src --tree DIR` (harness/real/xen/tree.py) on bad input, without
building: a path that is missing or no Xen tree is named with the file it
lacks, a version with no series is named with the series there are, and a
series that does not apply names its patch, the file and the hunk, leaving
the tree given as it was and no build folder behind."""
import os
import subprocess
import sys

import pytest

from harness import ROOT
from harness.real.xen import source, tree

MAKEFILE = "export XEN_VERSION       = 4\nexport XEN_SUBVERSION    = {sub}\n" \
           "export XEN_EXTRAVERSION ?= -unstable$(XEN_VENDORVERSION)\n"


def fake_tree(path, sub="23", page_alloc="int nothing_of_xen_here;\n", makefile=None):
    for rel, text in (("xen/Makefile", MAKEFILE.format(sub=sub) if makefile is None else makefile),
                      ("xen/common/page_alloc.c", page_alloc)):
        if text is None:
            continue
        os.makedirs(os.path.dirname(os.path.join(path, rel)), exist_ok=True)
        with open(os.path.join(path, rel), "w") as f:
            f.write(text)
    return str(path)


def test_a_missing_path_is_named(tmp_path):
    with pytest.raises(source.SourceError, match=r"--tree .*nowhere: no such directory"):
        tree.version_of(str(tmp_path / "nowhere"))


def test_a_folder_without_page_alloc_is_no_xen_tree(tmp_path):
    t = fake_tree(tmp_path / "t", page_alloc=None)
    with pytest.raises(source.SourceError, match=r"not a Xen source tree: it has no xen/common/page_alloc.c"):
        tree.version_of(t)


def test_a_makefile_without_the_version_is_named(tmp_path):
    t = fake_tree(tmp_path / "t", makefile="export XEN_VERSION = 4\n")
    with pytest.raises(source.SourceError, match=r"xen/Makefile sets no XEN_SUBVERSION"):
        tree.version_of(t)


def test_the_version_is_read_from_the_makefile(tmp_path):
    assert tree.version_of(fake_tree(tmp_path / "t", sub="20")) == "4.20"


def test_a_version_with_no_series_names_those_there_are(tmp_path):
    t = fake_tree(tmp_path / "t", sub="19")
    with pytest.raises(source.SourceError) as e:
        tree.series_of(tree.version_of(t), t)
    assert "Xen 4.19 has no series" in str(e.value) and "4.23 (staging)" in str(e.value)


def test_every_version_has_its_series_in_the_repository():
    for version, names in tree.SERIES.items():
        for name in names:
            assert source.XEN.series(name, os.path.join(source.XEN.patches, name)), (version, name)


def test_a_series_that_does_not_apply_names_the_patch_file_and_hunk(tmp_path, monkeypatch):
    monkeypatch.setattr(source.XEN, "src", str(tmp_path / "build"))
    t = fake_tree(tmp_path / "t")
    with pytest.raises(source.SourceError) as e:
        tree.build(t, "staging", "release", say=lambda *a: None)
    msg = str(e.value)
    assert "0001-" in msg and "does not apply" in msg
    assert "xen/common/page_alloc.c, hunk #1" in msg
    with open(os.path.join(t, "xen", "common", "page_alloc.c")) as f:
        assert f.read() == "int nothing_of_xen_here;\n"          # the tree given is only read
    assert not [n for n in os.listdir(tmp_path / "build") if n.startswith("bypath-")]


def test_the_command_fails_cleanly_on_a_path_that_is_no_xen_tree(tmp_path):
    r = subprocess.run([sys.executable, "-m", "harness", "xen-src", "measure", "--tree", str(tmp_path), "--no-dom0"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2
    assert "is not a Xen source tree: it has no xen/Makefile" in r.stderr


def test_a_tree_that_builds_gets_its_build_json(tmp_path, monkeypatch):
    """Past the patches: the build's record names each patch with its
    sha256 (the make itself faked: it leaves xen, xen-syms and .config)."""
    monkeypatch.setattr(source.XEN, "src", str(tmp_path / "build"))
    t = fake_tree(tmp_path / "t")

    def make(work, args, log, what):
        for name in ("xen", "xen-syms", ".config"):
            with open(os.path.join(work, "xen", name), "w") as f:
                f.write("built\n")
        open(log, "a").close()
    monkeypatch.setattr(source, "configure", lambda work, config, log, arch=(), options=None: None)
    monkeypatch.setattr(source, "make", make)
    monkeypatch.setattr(source.XEN, "series", lambda name, folder: [])
    b = tree.build(t, "staging", "release", say=lambda *a: None)
    assert b.info["release"] == "4.23-staging" and b.info["patches"] == [] and b.info["warnings"] == []
    monkeypatch.setattr(source.XEN, "series", lambda name, folder: [os.path.join(folder, "0001-x.patch")])
    monkeypatch.setattr(tree, "apply_series", lambda work, patches: None)
    os.makedirs(tmp_path / "p" / "staging")
    (tmp_path / "p" / "staging" / "0001-x.patch").write_text("a patch\n")
    monkeypatch.setattr(source.XEN, "patches", str(tmp_path / "p"))
    b = tree.build(t, "staging", "release", say=lambda *a: None)
    assert b.info["patches"][0]["name"] == "0001-x.patch" and len(b.info["patches"][0]["sha256"]) == 64
