# SPDX-License-Identifier: MIT
"""The plot step: gnuplot turns the script into a PNG that holds every
strategy, the floor and Xen's published points."""
import os
import re

import pytest

from harness import common, plot, records, report
from conftest import rewrite

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_gnuplot_writes_a_png(synth):
    png = plot.write_plot(records.load_folder(synth), synth)
    assert png == os.path.join(synth, "plot.png")
    with open(png, "rb") as f:
        data = f.read()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 5000
    # IHDR: width and height follow the signature and chunk header.
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width >= 800 and height >= 500


def test_script_has_every_strategy_the_floor_and_xen(synth):
    script = plot.plot_script(records.load_folder(synth))
    titles = re.findall(r'title "([^"]*)"', script)
    for s in ("page", "chunk", "once", "lazy"):
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
    sweep = records.load_folder(synth)
    script = plot.plot_script(sweep)
    assert 'title "deferred"' in script and 'title "lazy"' not in script
    block = script.split("$s3 << EOD\n")[1].split("EOD")[0].splitlines()
    assert [line.split()[0] for line in block] == ["4", "8"]
    assert plot.write_plot(sweep, synth)


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
