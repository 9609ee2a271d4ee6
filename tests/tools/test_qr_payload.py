# SPDX-License-Identifier: MIT
"""`python3 -m harness add FOLDER PAYLOAD`: a run read back from its QR code
joins a results folder; the payload parser against a real boot's records."""
import csv
import json
import os
import shutil

from harness import cli
from harness.results import qrpayload
from harness.results import records
from harness.results.names import kernel_record
from conftest import HERE, SYNTHETIC, read_jsonl

QR_TCG = os.path.join(HERE, "data", "qr-tcg")
PAYLOAD = os.path.join(QR_TCG, "payload.txt")


def kernel_records():
    """The boot's records as every reader takes them: kept from before `once`
    was named `sweep`, read under today's names (harness/results/names.py)."""
    with open(os.path.join(QR_TCG, "records.jsonl")) as f:
        return [kernel_record(json.loads(line)) for line in f]


def by_type(recs, rtype):
    return [r for r in recs if r["type"] == rtype]


def test_payload_holds_what_the_kernel_recorded():
    """Every figure parsed from the payload equals the same boot's record."""
    kernel = kernel_records()
    with open(PAYLOAD) as f:
        recs = qrpayload.parse(f.read())
    boot, bench_rec, cal = (by_type(kernel, t)[0] for t in ("boot", "bench", "calibration"))
    pb, pbench, pcal = (by_type(recs, t)[0] for t in ("boot", "bench", "calibration"))
    assert (pb["version"], pb["accel"], pb["cpu_brand"]) == (boot["version"], boot["accel"], boot["cpu_brand"])
    for k in ("mem_bytes", "pages", "runs", "tsc_khz", "source", "calibrated", "strategies", "emulated"):
        assert pbench[k] == bench_rec[k], k
    assert (pcal["khz"], pcal["source"]) == (cal["khz"], cal["source"])
    ksum = {r["strategy"]: r for r in by_type(kernel, "summary") if r["phase"] == "init"}
    psum = {r["strategy"]: r for r in by_type(recs, "summary")}
    assert sorted(psum) == sorted(ksum)
    for s, r in psum.items():
        assert (r["median_ns"], r["ns_per_page"], r["runs"]) == \
            (ksum[s]["median_ns"], ksum[s]["ns_per_page"], ksum[s]["runs"]), s
    kcmp = {r["strategy"]: r for r in by_type(kernel, "comparison")}
    for r in by_type(recs, "comparison"):
        k = kcmp[r["strategy"]]
        assert (r["speedup_vs_page"], r["x_floor"], r["init_median_ns"], r["digest_equal"]) == \
            (k["speedup_vs_page"], k["x_floor"], k["init_median_ns"], k["digest_equal"])
    assert by_type(recs, "qr")[0]["digest"] == by_type(kernel, "audit")[0]["digest"]
    assert by_type(recs, "qr")[0]["payload"] == by_type(kernel, "qr")[0]["payload"]
    # The payload as the kernel showed it, old name and all; its records under today's.
    assert "\nonce " in by_type(recs, "qr")[0]["payload"] and "sweep" in pbench["strategies"]


def csv_rows(folder):
    with open(os.path.join(folder, "summary.csv")) as f:
        return list(csv.DictReader(f))


def test_add_joins_a_results_folder(synth):
    assert cli.main(["add", synth, PAYLOAD]) == 0
    results = records.load_folder(synth)
    labels = [s.label for s in results.sizes]
    assert "8191M-qr" in labels, labels
    rows = [r for r in csv_rows(synth) if r["mem_bytes"] == "8589540352"]
    ksum = {r["strategy"]: r for r in by_type(kernel_records(), "summary") if r["phase"] == "init"}
    assert sorted(r["strategy"] for r in rows) == sorted(ksum)
    for r in rows:
        assert int(r["median_ns"]) == ksum[r["strategy"]]["median_ns"]
        assert r["kernel_check"] == "kernel's medians (QR code)" and r["status"] == "ok"
        assert r["min_ns"] == r["max_ns"] == r["cv_pct"] == ""
    chunk = next(r for r in rows if r["strategy"] == "chunk")
    assert chunk["speedup_vs_page"] == "10.72" and chunk["x_floor"] == "1.42"
    with open(os.path.join(synth, "report.md")) as f:
        report = f.read()
    assert "QR code `8191M-qr`: QEMU TCG CPU version 2.5+" in report
    # The runs already there are untouched, and a second scan is a second run.
    assert [s.label for s in records.load_folder(SYNTHETIC).sizes] == [x for x in labels if x != "8191M-qr"]
    with open(PAYLOAD) as f:
        one_line = f.read().strip().replace("\n", "\\n")
    assert cli.main(["add", synth, one_line]) == 0
    assert "8191M-qr2" in [s.label for s in records.load_folder(synth).sizes]


def test_add_creates_a_folder_and_keeps_bare_serial_logs(tmp_path):
    fresh = tmp_path / "fresh"
    assert cli.main(["add", str(fresh), PAYLOAD]) == 0
    assert [s.label for s in records.load_folder(str(fresh)).sizes] == ["8191M-qr"]
    # A folder of serial logs only: their records move to records.jsonl first.
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in os.listdir(SYNTHETIC):
        if name.startswith("serial-"):
            shutil.copy(os.path.join(SYNTHETIC, name), logs / name)
    assert cli.main(["add", str(logs), PAYLOAD]) == 0
    labels = [s.label for s in records.load_folder(str(logs)).sizes]
    assert labels == ["1G", "4G", "8191M-qr", "8G"], labels
    assert any(w["record"]["type"] == "result" for w in read_jsonl(str(logs)))


def test_bad_payloads_are_refused(tmp_path, capsys):
    with open(PAYLOAD) as f:
        good = f.read().strip().split("\n")
    cases = [
        ("\n".join(good[:3]), "at least 5 lines"),
        ("\n".join(["bootheap 0.1 qr9"] + good[1:]), "line 1: expected 'bootheap VERSION qr1'"),
        ("\n".join(good[:1] + ["TCG 8G 1 1 pit 1"] + good[2:]), "line 2, RAM: expected a whole number"),
        ("\n".join(good[:3] + ["page 12 1.5 1.00 1.00"] + good[4:]), "ns/page: expected a number with 3 decimals"),
        ("\n".join(good[:-2] + good[-1:]), "the last strategy line must be the floor"),
        ("\n".join(good[:-1] + ["xyz same"]), "expected 'DIGEST same|differ'"),
        ("\n".join(good[:1] + ["TCG 1 1 1 none 0"] + good[2:]).replace(" 684.044 ", " - ")
         .replace(" 60.897 ", " - ").replace(" 35.916 ", " - ").replace(" 0.027 ", " - ")
         .replace(" 42.664 ", " - "), "no calibrated clock"),
    ]
    for text, why in cases:
        folder = tmp_path / "f"
        assert cli.main(["add", str(folder), text]) == 2, why
        err = capsys.readouterr().err
        assert why in err, (why, err)
        assert not (folder / "records.jsonl").exists()
