# SPDX-License-Identifier: MIT
"""The host tools on a real recording: two boots of `make bench` (TCG) kept
in tests/tools/data/recorded-tcg. Parsing, statistics, the writers and the
plot must agree with what the kernel printed."""
import csv
import os
import shutil

import pytest

import plotlib
from harness import common
from harness.results import records
from harness.report import outputs as report
from harness.results import stats
from conftest import HERE

RECORDED = os.path.join(HERE, "data", "recorded-tcg")


@pytest.fixture
def recorded(tmp_path):
    dst = tmp_path / "recorded"
    shutil.copytree(RECORDED, dst, ignore=shutil.ignore_patterns("README"))
    return str(dst)


def test_serial_logs_hold_the_same_records(recorded):
    results = records.load_folder(recorded)
    for run in results.sizes:
        name = os.path.join(recorded, f"serial-{common.size_label(run.nbytes)}.log")
        with open(name, encoding="utf-8") as f:
            recs, problems = records.parse_serial(f.read())
        assert problems == []
        assert recs == run.records, name
        assert recs[-1] == {"type": "done", "status": "ok"}


def test_kernel_statistics_agree_with_the_raw_results(recorded):
    results = records.load_folder(recorded)
    assert [r.nbytes for r in results.sizes] == [1 << 30, 2 << 30]
    for run in results.sizes:
        ss = stats.SizeStats(run)
        assert ss.strategies == ["page", "chunk", "sweep", "lazy", "floor"]
        assert stats.disagreements(ss) == {}
        assert not stats.failures(run)
        assert len(ss.digests()) == 1
        # The old/new ratio, recomputed here from the paired results.
        page, chunk = ss.get("page"), ss.get("chunk")
        ratios = sorted(page.by_run[i] / chunk.by_run[i] for i in page.by_run)
        assert ss.speedup("chunk") == pytest.approx(ratios[1])


def test_writers_and_plot_on_the_recording(recorded):
    results = records.load_folder(recorded)
    report.write_outputs(results)
    with open(os.path.join(recorded, "summary.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * (4 * 2 + 1)
    assert {r["accel"] for r in rows} == {"tcg"} and {r["emulated"] for r in rows} == {"true"}
    assert all(r["kernel_check"] == "agrees" for r in rows)
    with open(os.path.join(recorded, "report.md"), encoding="utf-8") as f:
        md = f.read()
    assert md.index(common.TCG_LABEL) < md.index("| 1 GiB |")
    # The plot shows each strategy and the floor at both sizes, where the
    # axes gnuplot drew put them, in their own colours.
    with open(os.path.join(recorded, "plot.gp"), encoding="utf-8") as f:
        script = f.read()
    lines = plotlib.series(script)
    assert [len(pts) for name, _, pts in lines if name.startswith("s")] == [2] * 5
    ax, _ = plotlib.axes(recorded)
    assert (ax["x_min"], ax["x_max"]) == (pytest.approx(1 / 1.4, rel=1e-5), pytest.approx(90 * 1.4))
    assert all(ax["y_min"] <= y <= ax["y_max"] for _, _, pts in lines for _, y in pts)
    assert plotlib.undrawn(recorded, script) == []
