# SPDX-License-Identifier: MIT
"""Exact counts under callgrind: the same binary and map give the same counts
on every run, and the instructions per page of init fall from the page-by-page
strategy to the lazy one. Not a timing test: nothing here depends on speed."""
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness import ROOT
from harness.counts import callgrind as counts
from harness.results.records import parse_serial

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None,
                                reason="valgrind is not installed (Debian package valgrind)")


def count(folder, *kernel_args):
    os.makedirs(folder)
    cmd = counts.valgrind_command(counts.RUNNER, "256M", os.path.join(folder, "cg.out"),
                                  list(kernel_args))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    bench = next(r for r in parse_serial(p.stdout)[0] if r["type"] == "bench")
    return bench["pages"], counts.collect(folder)


def test_counts_are_exact_and_ordered(tmp_path):
    with ThreadPoolExecutor(2) as pool:
        a, b = pool.map(lambda d: count(str(tmp_path / d), "runs=1"), ["a", "b"])
    pages, first = a
    assert first, "no window was counted"
    peers = {"linux": (), "linux_deferred": ("deferred",), "linux612": ("deferred",),
             "freebsd_lazy": ("drain",), "freebsd_lazy0": ()}
    assert set(first) == {(s, ph, 0) for s in ("page", "chunk", "chunk-72b02bc", "sweep", "lazy")
                          for ph in ("init", "first_touch")} | \
        {(f, "init", 0) for f in ("floor", "floor_linux", "floor_freebsd")} | \
        {(s, ph, 0) for s, later in peers.items() for ph in ("init", "first_alloc") + later}
    # Every event of every window, twice over.
    assert first == b[1]
    ir = {s: first[(s, "init", 0)]["Ir"] / pages for s in ("page", "chunk", "chunk-72b02bc", "sweep", "lazy")}
    assert ir["page"] > ir["chunk"] > ir["sweep"] > ir["lazy"], ir
    # The floor writes every byte once with 8-byte stores: under Xen's cost
    # model (the default) the 32 bytes a page of page_info, no M2P entry.
    assert 4 * pages <= first[("floor", "init", 0)]["Dw"] < 4.1 * pages
    # The peers' floors write their 64 and 88 bytes a page the same way; the
    # peers' own inits execute more than sweep's, which is its floor's.
    assert 8 * pages <= first[("floor_linux", "init", 0)]["Dw"] < 8.1 * pages
    assert 11 * pages <= first[("floor_freebsd", "init", 0)]["Dw"] < 11.1 * pages
    assert first[("linux", "init", 0)]["Ir"] > first[("freebsd_lazy0", "init", 0)]["Ir"] > ir["sweep"] * pages


def test_bootscrub_off_writes_less(tmp_path):
    """bootscrub= reaches the heap code: without boot scrubbing, the page
    strategy no longer sets each page's need-scrub flag."""
    with ThreadPoolExecutor(2) as pool:
        idle, off = pool.map(lambda a: count(str(tmp_path / a[0]), "runs=1", "strategies=page", a[1]),
                             [("idle", "bootscrub=idle"), ("off", "bootscrub=off")])
    key = ("page", "init", 0)
    assert off[1][key]["Dw"] < idle[1][key]["Dw"]
    assert off[1][key]["Ir"] < idle[1][key]["Ir"]


def test_settle_covers_the_l1s():
    """The window's L1 settling leaves one state only in caches no larger
    than its sleds: every simulated L1 must fit in SETTLE bytes."""
    src = open(os.path.join(ROOT, "hosted", "platform", "window.c"), encoding="utf-8").read()
    m = re.search(r"^#define SETTLE \((\d+) \* (\d+)\)", src, re.M)
    assert m, "hosted/platform/window.c: no SETTLE"
    settle = int(m.group(1)) * int(m.group(2))
    l1 = [int(a.split("=")[1].split(",")[0]) for a in counts.CACHE if a.startswith(("--I1=", "--D1="))]
    assert len(l1) == 2 and max(l1) <= settle, (l1, settle)
