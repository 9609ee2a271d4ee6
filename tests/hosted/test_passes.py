# SPDX-License-Identifier: MIT
"""A hosted run over sizes spreads each size's runs over passes, a boot a size each
(`run0=`): each pass's records are tagged with it, its rotation starts one
strategy further on, the report reads the size's runs as one size's, and
the runs added for the intervals stop at the budget, naming what is left
wide."""
import json
import os
import subprocess
import sys

from harness import ROOT
from harness.results.records import load_folder, passes_of


def test_a_run_of_two_passes(tmp_path):
    out = str(tmp_path / "passes")
    p = subprocess.run([sys.executable, "-m", "harness", "run", "--hosted", "--sizes", "0.25,0.5", "--runs", "2",
                        "--strategies", "chunk,lazy", "--budget", "0", "--out", out],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    text = p.stdout + p.stderr
    assert p.returncode == 0, text
    assert "pass 2 of 2, [4/4] 0.5 GiB: ok" in text
    assert "intervals after 0 added pass(es):" in text
    with open(os.path.join(out, "records.jsonl")) as f:
        lines = [json.loads(x) for x in f]
    first = {}
    for w in lines[1:]:
        assert w["pass"] in (0, 1) and w["run0"] == w["pass"], w
        rec = w["record"]
        if rec.get("type") == "bench":
            assert rec["runs"] == 1 and rec["run0"] == w["pass"]
        if rec.get("type") == "cpu_time" and w["size"] == "256M":
            first.setdefault(w["pass"], rec["strategy"])
    # The rotation turns by run0: the second pass opens on the next strategy.
    assert first == {0: "chunk", 1: "lazy"}, first
    s = load_folder(out)
    run = s.sizes[0]
    assert len(passes_of(run)) == 2
    assert sorted(r["run"] for r in run.of("result") if r["strategy"] == "chunk" and r["phase"] == "init") == [0, 1]
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    assert "## Hosted: 95 % intervals" in md and "| 0.25 GiB | chunk | init | 2 |" in md
    assert "(no interval: 2 runs)" in md and "agree with the host's statistics" in md
