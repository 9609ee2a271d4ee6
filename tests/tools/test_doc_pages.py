# SPDX-License-Identifier: MIT
"""The docs' pages: none over 400 lines, so that a page holds one subject a
reader can take in, and the measured tables one page a subject, each page
reached from the index docs/results.md and from README.md. The reports in
docs/results/ are the harness's own output, kept byte for byte as written,
and are not pages of this kind."""
import os
import re

import doclinks
from doclinks import ROOT

LIMIT = 400
# Pages over the limit before it was checked, each to be split by subject in
# turn; a page leaves this list when it is, and no page joins it.
OVER = {"docs/fidelity.md", "docs/testing.md", "docs/usage.md"}


def pages(root=ROOT):
    """README.md and the .md pages of docs/ written by hand (relative paths)."""
    return [p for p in doclinks.md_files(root) if not p.startswith(os.path.join("docs", "results", ""))]


def lines(path, root=ROOT):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return len(f.read().splitlines())


def too_long(root=ROOT, over=frozenset()):
    """['page: N lines'] for every page over the limit and not in over."""
    return [f"{p}: {lines(p, root)} lines" for p in pages(root) if p not in over and lines(p, root) > LIMIT]


def test_no_page_is_over_the_limit():
    bad = too_long(over=OVER)
    assert not bad, f"over {LIMIT} lines (split it by subject):\n" + "\n".join(bad)


def test_each_page_let_over_the_limit_still_is():
    """A page split below the limit comes off the list, which only shrinks."""
    for p in sorted(OVER):
        assert os.path.exists(os.path.join(ROOT, p)), f"{p} is gone: take it off OVER"
        assert lines(p) > LIMIT, f"{p} is {lines(p)} lines now: take it off OVER"


def test_the_results_are_split_by_subject():
    found = sorted(p for p in pages() if re.fullmatch(r"docs/results-[a-z0-9-]+\.md", p))
    for subject in ("hosted", "real-binaries", "xen-src", "peers"):
        assert f"docs/results-{subject}.md" in found, found
    assert lines("docs/results.md") <= 100, "docs/results.md is the index of the results pages"
    with open(os.path.join(ROOT, "docs", "results.md"), encoding="utf-8") as f:
        index = {t.partition("#")[0] for _, t in doclinks.links(f.read())}
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = {t.partition("#")[0] for _, t in doclinks.links(f.read())}
    for p in found:
        name = os.path.basename(p)
        assert name in index, f"docs/results.md does not list {name}"
        assert p in readme, f"README.md does not link {p}"


def test_a_long_page_is_named(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# Top\n", encoding="utf-8")
    (tmp_path / "docs" / "short.md").write_text("# Short\n" * LIMIT, encoding="utf-8")
    (tmp_path / "docs" / "long.md").write_text("# Long\n" * (LIMIT + 1), encoding="utf-8")
    (tmp_path / "docs" / "results" / "run").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "run" / "report.md").write_text("x\n" * 1000, encoding="utf-8")
    root = str(tmp_path)
    assert too_long(root) == [f"docs/long.md: {LIMIT + 1} lines"]
    assert too_long(root, over={"docs/long.md"}) == []
