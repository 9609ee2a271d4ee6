# SPDX-License-Identifier: MIT
"""The plot step: gnuplot turns the script into a PNG that holds every
strategy, the floor and Xen's published points, each where the axes put it
(read back from the PNG's pixels, tests/tools/plotlib.py)."""
import os
import re

import pytest

from harness import common
from harness.report import plot
from harness.results import records
from harness.report import outputs as report
import plotlib
from conftest import rewrite


def test_the_png_shows_every_point_where_the_axes_put_it(synth):
    png = plot.write_plot(records.load_folder(synth), synth)
    assert png == os.path.join(synth, "plot.png")
    w, h, rows = plotlib.read_png(png)
    assert (w, h) == (1100, 700)                        # the script's terminal size
    with open(os.path.join(synth, "plot.gp")) as f:
        script = f.read()
    lines = plotlib.series(script)
    # Five series of the three sizes (1, 4, 8 GiB), then Xen's
    # published points: 4, 8 and 90 GB for each x86 series, 32 GB on Arm.
    assert [(name, len(pts)) for name, _, pts in lines] == \
        [(f"s{i}", 3) for i in range(5)] + [(f"x{j}", 3) for j in range(4)] + [("x4", 2)]
    assert [x for x, _ in lines[0][2]] == [1, 4, 8]
    # The axes gnuplot drew: x 1.4 times beyond the smallest and largest
    # size, y whole decades around every point.
    ax, area = plotlib.axes(synth)
    assert ax["x_min"] == pytest.approx(1 / 1.4, rel=1e-5) and ax["x_max"] == pytest.approx(90 * 1.4)
    ys = [y for _, _, pts in lines for _, y in pts]
    assert ax["y_min"] <= min(ys) and ax["y_max"] >= max(ys)
    assert (ax["y_min"], ax["y_max"]) == (1, 1000)      # lazy's 2.02 to page's 252.5 ns/page
    assert 0 < area["left"] < area["right"] < w and 0 < area["bottom"] < area["top"] < h
    # Every point is drawn there, in its series' colour.
    assert plotlib.undrawn(synth, script) == []
    # The check can fail: chunk's 4 GiB point moved in the script, not in the PNG.
    moved = script.replace("$s1 << EOD\n1 40.2\n4 40.2\n", "$s1 << EOD\n1 40.2\n4 400\n")
    assert moved != script and [m[:3] for m in plotlib.undrawn(synth, moved)] == [("s1", 4.0, 400.0)]


def test_script_has_every_strategy_the_floor_and_xen(synth):
    script = plot.plot_script(records.load_folder(synth))
    titles = re.findall(r'title "([^"]*)"', script)
    for s in ("page", "chunk", "sweep", "lazy"):
        assert s in titles
    assert any(t.startswith("floor") for t in titles)
    assert sum(t.startswith("Xen ") for t in titles) == 5
    assert "set logscale x" in script
    # 4 GiB chunk: 41808000 ns / 1040000 pages = 40.2 ns/page
    chunk_block = script.split(f"$s1 << EOD\n")[1].split("EOD")[0]
    assert chunk_block.splitlines() == ["1 40.2", "4 40.2", "8 40.2"]
    # Xen 4 GB v1 before: 60 ms / 1048576 pages = 57.2205 ns/page
    assert "4 57.2205" in script


def test_script_takes_unknown_strategies_and_skips_zeros(synth):
    def edit(w):
        r = w["record"]
        if r.get("strategy") == "lazy":
            r["strategy"] = "deferred"
            if r["type"] == "result" and r["phase"] == "init" and w["size"] == "1G":
                r["ns"] = 0          # a log axis cannot show it
        return w
    rewrite(synth, edit)
    results = records.load_folder(synth)
    script = plot.plot_script(results)
    assert 'title "deferred"' in script and 'title "lazy"' not in script
    block = script.split("$s3 << EOD\n")[1].split("EOD")[0].splitlines()
    assert [line.split()[0] for line in block] == ["4", "8"]
    assert plot.write_plot(results, synth)


def test_missing_gnuplot_names_the_package(synth, monkeypatch):
    monkeypatch.setattr(plot.shutil, "which", lambda name: None)
    with pytest.raises(common.BenchError, match="gnuplot-nox"):
        plot.write_plot(records.load_folder(synth), synth)


def test_missing_gnuplot_still_writes_csv_and_report(synth, monkeypatch):
    monkeypatch.setattr(plot.shutil, "which", lambda name: None)
    assert report.finish(records.load_folder(synth)) == 1
    with open(os.path.join(synth, "report.md")) as f:
        assert "No plot: gnuplot is not installed" in f.read()
    assert os.path.getsize(os.path.join(synth, "summary.csv")) > 0
