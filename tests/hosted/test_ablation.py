# SPDX-License-Identifier: MIT
"""xen_costs= in the hosted runner, and the ablation built on it (`python3
-m harness ablation`, `make bench-ablation`)."""
import json
import os
import re
import subprocess
import sys

import pytest

from harness import ROOT
from harness.counts import ablation
from harness.common import GIB, MIB, BenchError


def test_the_sets_are_the_kernels():
    # The harness names the costs as mm/xen_costs.c does, in its order.
    with open(os.path.join(ROOT, "mm", "xen_costs.c"), encoding="utf-8") as f:
        names = re.findall(r'^\s*\[XC_[A-Z_0-9]+\] = "([a-z_0-9]+)",', f.read(), re.M)
    assert tuple(names) == ablation.COSTS
    assert ablation.SETS[0] == "all" and ablation.SETS[-1] == "none" and len(ablation.SETS) == 12


def test_counts_spec():
    assert ablation.parse_counts_spec("8G 90G=all;none") == [(8 * GIB, ablation.SETS),
                                                            (90 * GIB, ("all", "none"))]
    with pytest.raises(BenchError, match="-lfnce is not one of"):
        ablation.parse_counts_spec("8G=all;-lfnce")


def test_the_runner_runs_the_model_it_is_given(runner):
    for arg, model, floor_bytes in (("", "all", 32), ("xen_costs=-m2p,-lfence", "-lfence,-m2p", 40),
                                    ("xen_costs=none", "none", 40)):
        r = runner("--mem", "256M", "runs=1", "strategies=page,chunk", *([arg] if arg else []))
        assert r.rc == 0, r
        assert r.one("bench")["xen_costs"] == model
        res = r.of("result")
        assert res and all(x["xen_costs"] == model for x in res)
        floor = [x for x in res if x["strategy"] == "floor"]
        assert floor and floor[0]["bytes"] == floor[0]["pages"] * floor_bytes
        # Only sets outside the ablation run the copy that tests each cost.
        assert ("this runs a slower copy" in r.out) == (model == "-lfence,-m2p"), r


def test_a_bad_set_fails_as_a_bad_kernel_option(runner):
    # As runs=0 does: the kernel's own message, a failed run (exit 1).
    r = runner("--mem", "256M", "xen_costs=-lfnce")
    assert r.rc == 1, r
    assert r.one("done")["reason"] == ("bad command line: xen_costs=-lfnce: '-lfnce' is not all, none or "
                                       "[+-] one of lfence mfn_valid lock m2p node_heap heap_ptrs pdx "
                                       "memnode zone scrub_check")


def test_ablation_times_and_counts(tmp_path):
    out = tmp_path / "abl"
    p = subprocess.run([sys.executable, "-m", "harness", "ablation", "--sizes", "128M", "--runs", "1",
                        "--counts", "64M=all;-lfence;none", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    rows = [json.loads(line) for line in (out / ablation.FILE).read_text().splitlines()]
    times = [r for r in rows if r["type"] == "ablation_time"]
    assert {(r["costs"], r["strategy"]) for r in times} == \
        {(s, st) for s in ablation.SETS for st in ("page", "chunk")}
    assert all(r["size_bytes"] == 128 * MIB and r["cpu_ns"] > 0 and r["pages"] > 0 for r in times)
    cnt = {(r["costs"], r["strategy"]): r["per_page"] for r in rows if r["type"] == "ablation_counts"}
    assert set(cnt) == {(s, st) for s in ("all", "-lfence", "none") for st in ("page", "chunk")}
    # Xen's costs are instructions too, and page pays them per page, chunk per block.
    assert cnt[("all", "page")]["instructions"] > cnt[("none", "page")]["instructions"] + 100
    assert cnt[("all", "chunk")]["instructions"] > cnt[("none", "chunk")]["instructions"]
    md = (out / "ablation.md").read_text()
    assert "### 0.125 GiB (1 rounds)" in md and "### 0.0625 GiB (counted only)" in md
    assert md.count("| `") == 24
