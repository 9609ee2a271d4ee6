# SPDX-License-Identifier: MIT
"""`make test-linux-src`, Linux 7.1: the series of patches/linux/7.1 (the
single pass as the only way, no switch) held to the stock 7.1.8 tree by the
host tester of Linux's own memory init (harness/real/linux/host/): the
stock tree's tester and the series' tester boot the same random machines,
struct pages starting as garbage, deferred init on several threads, and
every word they leave is compared. Also that the comparison can fail: a
block freed fresh whose pageblocks were never marked is found.

The source is sid's upstream tarball of 7.1.8 (its Debian tarball will not
download), its config derived from Debian's 6.12 fragments
(harness/real/linux/source.py). Not in `make test`: the download and the
prepared objects take minutes the first time."""
import os
import re

import pytest

from harness.real.linux import source
from harness.real.linux.host import build, run

QUICK = 120
SERIES_0002 = "0002-mm-mm_init-write-each-whole-free-block-of-deferred-m.patch"


@pytest.fixture(scope="module")
def series():
    try:
        build.prepared("7.1", say=lambda *a: None)
    except source.SourceError as e:
        pytest.fail(f"Linux 7.1's source cannot be had, so its series cannot be tested: {e}")
    return source.patches_of("7.1")


def test_the_71_series_equals_stock_71_everywhere(series):
    assert not run.has_switch(series)
    ok, results = run.test("7.1", QUICK, seed=1, say=lambda *a: None)
    said = "\n".join(r[3] for r in results)
    assert ok, said
    assert [r[0] for r in results] == list(build.MAX_ORDERS)
    for order, passed, n, out in results:
        assert passed and n == QUICK // len(results), out
        # Both sides ran, each its own tree's code: the stock tester by its path, the series' as itself.
        assert re.search(r"zone locks taken: \d+ by /\S+/linuxmm, [1-9]\d* by -", out), out


def test_a_fresh_block_whose_pageblocks_are_unmarked_is_found(series, tmp_path):
    bad = []
    for p in series:
        with open(p) as f:
            text = f.read()
        if os.path.basename(p) == SERIES_0002:
            old = "+\t\tinit_pageblock_migratetype(page + i, MIGRATE_MOVABLE, false);\n"
            assert text.count(old) == 1
            text = text.replace(old, "+\t\t;\n")
        (tmp_path / os.path.basename(p)).write_text(text)
        bad.append(str(tmp_path / os.path.basename(p)))
    ok, results = run.test("7.1", 20, seed=1, max_orders=(10,), patches=bad, say=lambda *a: None)
    out = results[0][3]
    assert not ok and re.search(r"^seed \d+: \S+ and - differ", out, re.M), out
    # The block is listed by the migratetype its unwritten pageblock word gives.
    assert re.search(r"first difference, field \d+:\n\s+A\s+(free list|pageblock)", out), out
