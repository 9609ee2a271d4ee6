# SPDX-License-Identifier: MIT
"""Records kept from before a rename read back under today's names
(harness/results/names.py): the kept folders under docs/results/ and the
recorded runs of tests/tools/data/ hold the old names as they were
written, and every reader takes them as the new ones."""
import json
import os

import pytest

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


def test_a_binaries_folder_kept_as_peers_reads_under_todays_names():
    """docs/results/binaries holds the peers.jsonl `binaries` wrote when its
    records were `peers` and `peer`: read back, they are `binaries` and
    `binary` records naming the binary in `binary`, and sweep is sweep."""
    from harness.real.binaries.report import Binaries, read_records, records_path
    folder = os.path.join(ROOT, "docs", "results", "binaries")
    assert records_path(folder).endswith("peers.jsonl")
    with open(records_path(folder)) as f:
        raw = [json.loads(line) for line in f if line.strip()]
    assert raw[0]["type"] == "peers" and any(r["type"] == "peer" and "peer" in r for r in raw)
    recs = read_records(folder)
    assert recs[0]["type"] == "binaries" and not any(r["type"] in ("peers", "peer") for r in recs)
    assert {r["binary"] for r in recs if r["type"] == "binary"} == {"xen-4.14", "xen-4.17", "linux-6.1"}
    assert {r["strategy"] for r in recs if r["type"] == "model"} >= {"page", "chunk", "sweep"}
    assert Binaries(folder).per_page(("all", "sweep", 1 << 30), model=True)


def test_linux_src_finds_the_binaries_folder_its_records_name_by_its_old_name():
    with open(os.path.join(ROOT, "docs", "results", "linux-src", "linux-src.jsonl")) as f:
        head = json.loads(f.readline())
    assert head["debian"] == "docs/results/peers-linux"
    assert names.kept_folder(head["debian"]) == "docs/results/binaries-linux"
    assert os.path.isdir(os.path.join(ROOT, names.kept_folder(head["debian"])))
    assert names.kept_folder("results/mine") == "results/mine"


def test_a_download_cache_of_the_old_name_moves_and_is_used_without_the_network(tmp_path, monkeypatch):
    """build/peers/ of a machine that fetched before the rename becomes
    build/binaries/, its manifest's `peers` key and paths read as today's,
    and its intact files are used: nothing is fetched again."""
    from harness.real.debian import fetch
    old, new = tmp_path / "peers", tmp_path / "binaries"
    (old / "bin").mkdir(parents=True)
    kernel = old / "bin" / "vmlinux-6.1"
    kernel.write_bytes(b"a kernel")
    files = {"kernel": str(kernel)}
    man = {"peers": {"linux-6.1": {"package": "linux-image-6.1.0-57-amd64", "version": "6.1.192-3", "files": files,
                                   "sha256": {str(kernel): fetch.sha256(str(kernel))}}},
           "fetched": "2026-12-01 10:00 UTC", "dom0": str(old / "bin" / "dom0.img")}
    (old / "bin" / "manifest.json").write_text(json.dumps(man))
    monkeypatch.setattr(fetch, "CACHE", str(new))
    monkeypatch.setattr(fetch, "OLD_CACHE", str(old))
    monkeypatch.setattr(fetch, "BIN", str(new / "bin"))
    monkeypatch.setattr(fetch, "MANIFEST", str(new / "bin" / "manifest.json"))
    said = []
    got = fetch.fetch(["linux-6.1"], say=said.append, apt=lambda suites: pytest.fail("fetched again"))
    assert not old.exists() and (new / "bin" / "vmlinux-6.1").read_bytes() == b"a kernel"
    assert got["binaries"]["linux-6.1"]["files"]["kernel"] == str(new / "bin" / "vmlinux-6.1")
    assert fetch.files_of(got, "linux-6.1")["dom0"] == str(new / "bin" / "dom0.img")
    assert "using linux-6.1 as fetched on 2026-12-01 10:00 UTC" in said[0]


def test_a_qr_payload_reads_old_and_new_names():
    """A payload shown before the renames says once; one shown today, sweep
    and chunk-72b02bc (a '-' in a name): both read under today's names."""
    from harness.results import qrpayload
    with open(os.path.join(HERE, "data", "qr-tcg", "payload.txt")) as f:
        kept = f.read()
    today = kept.replace("\nonce ", "\nsweep ").replace("\nchunk 126434787",
                                                         "\nchunk-72b02bc 1 0.001 1.00 0.01\nchunk 126434787")
    for text in (kept, today):
        bench = next(r for r in qrpayload.parse(text) if r["type"] == "bench")
        assert "sweep" in bench["strategies"] and "once" not in bench["strategies"]
    assert next(r for r in qrpayload.parse(today) if r["type"] == "bench")["strategies"][1] == "chunk-72b02bc"
