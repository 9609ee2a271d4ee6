# SPDX-License-Identifier: MIT
"""The docs' pages: none over 400 lines, so that a page holds one subject a
reader can take in; no page is exempt (a page that grows past the limit is
split by subject). The measured tables are one page a subject, each page
listed by the index docs/results.md. README.md is the front page: at most
120 lines, the two commands and the answer in its first 30, and it links
the index rather than every results page, so that it stays short as pages
are added; its table's rows link their own pages (test_doc_results.py).
The reports in docs/results/ are the harness's own output, kept byte for
byte as written, and are not pages of this kind."""
import os
import re

import doclinks
from doclinks import ROOT
from tools import mutants_doc

LIMIT = 400
README_LIMIT = 120
ANSWER_BY = 30
# Results pages named otherwise: the reports the harness writes, kept ones
# among them, name hosted-speeds.md.
RESULTS_ALSO = ("docs/hosted-speeds.md",)


def pages(root=ROOT):
    """README.md and the .md pages of docs/ written by hand (relative paths)."""
    return [p for p in doclinks.md_files(root) if not p.startswith(os.path.join("docs", "results", ""))]


def lines(path, root=ROOT):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return len(f.read().splitlines())


def too_long(root=ROOT):
    """['page: N lines'] for every page over the limit."""
    return [f"{p}: {lines(p, root)} lines" for p in pages(root) if lines(p, root) > LIMIT]


def test_no_page_is_over_the_limit():
    bad = too_long()
    assert not bad, f"over {LIMIT} lines (split it by subject):\n" + "\n".join(bad)


def test_the_front_page_answers_first():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    assert lines("README.md") <= README_LIMIT, f"README.md is {lines('README.md')} lines"
    first = text.splitlines()[:ANSWER_BY]
    joined = "\n".join(first)
    for shown in ("apt-get install -y make git && git clone", "\nmake run ", "\nmake test "):
        assert shown in joined, f"{shown!r} is not in README.md's first {ANSWER_BY} lines"
    answer = first.index("## The answer")
    after = first[answer + 1:]
    body = [n for n, line in enumerate(after) if line.strip()]
    assert body, "the answer's text is not in the first lines"
    # The paragraph ends (a blank line or the next heading) within the first lines.
    assert any(not line.strip() for line in after[body[0]:]), \
        f"the answer runs past line {ANSWER_BY}"


def results_pages(root=ROOT):
    found = sorted(p for p in pages(root) if re.fullmatch(r"docs/results-[a-z0-9-]+\.md", p))
    return found + [p for p in RESULTS_ALSO if os.path.exists(os.path.join(root, p))]


def test_the_results_are_split_by_subject():
    found = results_pages()
    for subject in ("hosted", "real-binaries", "xen-src", "linux-src", "peers"):
        assert f"docs/results-{subject}.md" in found, found
    assert lines("docs/results.md") <= 100, "docs/results.md is the index of the results pages"
    with open(os.path.join(ROOT, "docs", "results.md"), encoding="utf-8") as f:
        index = {t.partition("#")[0] for _, t in doclinks.links(f.read())}
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = {t.partition("#")[0] for _, t in doclinks.links(f.read())}
    for p in found:
        assert os.path.basename(p) in index, f"docs/results.md does not list {os.path.basename(p)}"
    assert "docs/results.md" in readme, "README.md does not link docs/results.md"


def test_the_mutants_table_has_a_page_of_its_own():
    """make mutants rewrites the part between its markers of one page, and
    only that page holds them."""
    holders = []
    for p in pages():
        with open(os.path.join(ROOT, p), encoding="utf-8") as f:
            text = f.read()
        if mutants_doc.BEGIN in text or mutants_doc.END in text:
            holders.append(p)
            assert text.count(mutants_doc.BEGIN) == 1 and text.count(mutants_doc.END) == 1, p
            assert text.index(mutants_doc.BEGIN) < text.index(mutants_doc.END), p
    assert holders == [mutants_doc.PAGE.replace(os.sep, "/")], holders


def test_a_long_page_is_named(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# Top\n", encoding="utf-8")
    (tmp_path / "docs" / "short.md").write_text("# Short\n" * LIMIT, encoding="utf-8")
    (tmp_path / "docs" / "long.md").write_text("# Long\n" * (LIMIT + 1), encoding="utf-8")
    (tmp_path / "docs" / "results" / "run").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "run" / "report.md").write_text("x\n" * 1000, encoding="utf-8")
    root = str(tmp_path)
    assert too_long(root) == [f"docs/long.md: {LIMIT + 1} lines"]
