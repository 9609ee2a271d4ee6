# SPDX-License-Identifier: MIT
"""README.md and docs/: every link resolves (doclinks.py), and the checker
itself catches each kind of broken link, on files written here."""
import os
import subprocess
import sys

import pytest

import doclinks
from doclinks import ROOT, broken, slug


def test_every_link_in_readme_and_docs_resolves():
    files = doclinks.md_files()
    assert "README.md" in files and "docs/usage.md" in files, files
    bad = broken()
    assert not bad, "broken links:\n" + "\n".join(bad)


@pytest.mark.parametrize("heading, anchor", [
    ("The peers: Linux and FreeBSD beside Xen", "the-peers-linux-and-freebsd-beside-xen"),
    ("Xen's costs beside its logic", "xens-costs-beside-its-logic"),
    ("`make run` and `make test` here", "make-run-and-make-test-here"),
    ("How long `make test` takes, and what it skips", "how-long-make-test-takes-and-what-it-skips"),
    ("Linux 6.1 (`mm/page_alloc.c`, `mm/memblock.c`; `kernel/padata.c`)",
     "linux-61-mmpage_allocc-mmmemblockc-kernelpadatac"),
    ("8 GiB (5 rounds; Xen's published ratio (nested KVM on c5.metal, non-debug): 15.8x)",
     "8-gib-5-rounds-xens-published-ratio-nested-kvm-on-c5metal-non-debug-158x"),
    ("A - B", "a---b"),
    ("[The records](records.md) of **a run**", "the-records-of-a-run"),
])
def test_slugs_as_github_makes_them(heading, anchor):
    assert slug(heading) == anchor


def tree(tmp_path, files):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return str(tmp_path)


GOOD = {
    "README.md": "# Top\n\nSee [usage](docs/usage.md), [its targets](docs/usage.md#other-targets),\n"
                 "[twice](docs/usage.md#notes-1), [the code](src/a.c#L2-L3), [line](src/a.c#L1),\n"
                 "[a folder](src/), [here](#top), ![a plot](docs/plot.png \"the plot\") and\n"
                 "[the web](https://example.org/x#y).\n\n[ref]: docs/usage.md#notes\n",
    "docs/usage.md": "# Usage\n\n## Other targets\n\n## Notes\n\n### Notes\n\nBack [up](../README.md#top).\n",
    "docs/plot.png": "not really a PNG\n",
    "src/a.c": "one\ntwo\nthree\n",
}


def test_a_tree_whose_links_all_resolve_passes(tmp_path):
    root = tree(tmp_path, GOOD)
    assert doclinks.md_files(root) == ["README.md", "docs/usage.md"]
    assert broken(root) == []


@pytest.mark.parametrize("link, why", [
    ("docs/missing.md", "docs/missing.md: docs/missing.md does not exist"),
    ("docs/usage.md#no-such-heading", "docs/usage.md has no heading whose anchor is #no-such-heading"),
    ("docs/usage.md#notes-2", "docs/usage.md has no heading whose anchor is #notes-2"),
    ("#nowhere", "README.md has no heading whose anchor is #nowhere"),
    ("src/a.c#L4", "src/a.c has 3 lines, not lines 4 to 4"),
    ("src/a.c#L3-L9", "src/a.c has 3 lines, not lines 3 to 9"),
    ("src/a.c#main", "#main is neither a heading (not a Markdown file) nor a line (#L12)"),
    ("src/#L1", "a folder has no anchors"),
    ("../outside.md", "outside the repository"),
    ("file:///etc/passwd", "not a link this tree can hold"),
    ("", "empty link target"),
])
def test_each_kind_of_broken_link_is_caught(tmp_path, link, why):
    files = dict(GOOD)
    files["README.md"] += f"\nAnd [this one]({link}) is broken.\n"
    root = tree(tmp_path, files)
    bad = broken(root)
    assert len(bad) == 1, bad
    assert bad[0].startswith("README.md:10: ") and bad[0].endswith(why), bad


def test_links_shown_as_code_or_in_comments_are_not_links(tmp_path):
    files = dict(GOOD)
    files["README.md"] += ("\n```\n[in a fence](missing.md)\n```\n\nA span `[x](missing.md)`.\n"
                           "<!-- [in a comment](missing.md) -->\n")
    assert broken(tree(tmp_path, files)) == []


def test_a_link_whose_text_wraps_is_checked_from_its_first_line(tmp_path):
    """Text wrapped onto the next line is one link, named by the line it
    starts on; a blank line or a fence between [ and ]( ends the text."""
    files = dict(GOOD)
    files["README.md"] += ("\nSee [the usage\npage](docs/usage.md#nowhere) and [the\n  other\n"
                           "  page](docs/gone.md).\n\n[not\n\na link](docs/missing.md)\n"
                           "[nor\n```\nthis](docs/missing.md)\n```\n")
    assert broken(tree(tmp_path, files)) == [
        "README.md:10: docs/usage.md#nowhere: docs/usage.md has no heading whose anchor is #nowhere",
        "README.md:11: docs/gone.md: docs/gone.md does not exist"]


def test_a_broken_link_in_docs_is_named_with_its_file_and_line(tmp_path):
    files = dict(GOOD)
    files["docs/usage.md"] += "\n[gone](results.md#the-sizes)\n"
    assert broken(tree(tmp_path, files)) == ["docs/usage.md:11: results.md#the-sizes: docs/results.md does not exist"]


def test_the_command_fails_on_a_broken_link(tmp_path):
    """As a user runs it: exit 1 naming the link in a broken tree, 0 in this one."""
    files = dict(GOOD)
    files["docs/usage.md"] += "\n[gone](../src/a.c#L7)\n"
    cmd = [sys.executable, os.path.join(ROOT, "tests", "tools", "doclinks.py")]
    r = subprocess.run(cmd + [tree(tmp_path, files)], capture_output=True, text=True)
    assert r.returncode == 1, r
    assert "docs/usage.md:11: ../src/a.c#L7: src/a.c has 3 lines, not lines 7 to 7" in r.stdout, r.stdout
    assert "1 broken link(s) in README.md, docs/usage.md" in r.stdout, r.stdout
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "every link resolves" in r.stdout, r.stdout + r.stderr
