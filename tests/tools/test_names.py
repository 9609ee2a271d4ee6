# SPDX-License-Identifier: MIT
"""Records kept from before a rename read back under today's names
(harness/results/names.py): the kept folders under docs/results/ and the
recorded runs of tests/tools/data/ hold the old names as they were
written, and every reader takes them as the new ones."""
import json
import os

from conftest import HERE, ROOT
from harness.results import names
from harness.results.records import load_folder, parse_serial

RECORDED_TCG = os.path.join(HERE, "data", "recorded-tcg")
BENCH_HOST = os.path.join(ROOT, "docs", "results", "bench-host")
OLD = set(names.STRATEGIES)


def strategies_of(folder):
    """Every strategy name a results folder's records give, as read back."""
    out = set()
    for run in load_folder(folder).sizes:
        for r in run.records:
            out |= {r["strategy"]} if "strategy" in r else set()
            out |= set(r.get("strategies") or [])
    return out


def test_an_old_serial_line_reads_under_todays_names():
    log = "\n".join(json.dumps(r) for r in (
        {"type": "bench", "strategies": ["page", "chunk_72b02bc", "once"]},
        {"type": "once_stores", "chosen": "nt"},
        {"type": "result", "strategy": "page", "phase": "first_touch", "shared_from": "once"},
        {"type": "result", "strategy": "chunk_72b02bc", "phase": "init"}))
    recs, problems = parse_serial(log)
    assert not problems
    assert recs[0]["strategies"] == ["page", "chunk-72b02bc", "sweep"]
    assert recs[1]["type"] == "sweep_stores"
    assert recs[2]["shared_from"] == "sweep" and recs[2]["strategy"] == "page"
    assert recs[3]["strategy"] == "chunk-72b02bc"


def test_todays_names_are_left_as_they_are():
    rec = {"type": "result", "strategy": "sweep", "run": 0}
    assert names.kernel_record(rec) is rec
    assert names.strategy("linux_deferred") == "linux_deferred" and names.strategy(None) is None


def test_a_recorded_run_keeps_its_old_names_and_reads_under_the_new():
    for folder in (RECORDED_TCG, BENCH_HOST):
        with open(os.path.join(folder, "records.jsonl")) as f:
            assert '"strategy": "once"' in f.read(), folder       # kept as measured
        got = strategies_of(folder)
        assert "sweep" in got and not got & OLD, (folder, got)
    assert "chunk-72b02bc" in strategies_of(BENCH_HOST)


def test_the_old_record_of_a_run_over_sizes_reads_as_today_s():
    """records.jsonl's first line, the harness's record of the run over
    sizes, was a `sweep` record; it reads as a `run` record, with what the
    run planned (so a folder stopped early still names its missing sizes)."""
    with open(os.path.join(BENCH_HOST, "records.jsonl")) as f:
        assert json.loads(f.readline())["record"]["type"] == "sweep"
    results = load_folder(BENCH_HOST)
    assert results.info["type"] == "run" and results.info["elapsed_s"] == 283.445
    assert not results.missing and len(results.sizes) == len(results.info["sizes_bytes"]) == 10
