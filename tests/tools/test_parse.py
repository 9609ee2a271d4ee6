# SPDX-License-Identifier: MIT
"""Reading records: raw serial logs (noise, CR, a truncated last line) and
the wrapped records.jsonl that `make bench` writes."""
import json
import os

import pytest

from harness import common
from harness.results import records
from harness.report import outputs as report
from harness.results.records import parse_serial
from conftest import GIB, SYNTHETIC, read_jsonl, rewrite

BENCH = ('{"type":"bench","mem_bytes":1072693248,"pages":261888,"accel":"TCG","emulated":true,'
         '"calibrated":true,"tsc_khz":2000000,"source":"pit","runs":1,"strategies":["page"]}')
RESULT = ('{"type":"result","strategy":"page","run":0,"phase":"init","pages":261888,'
          '"ticks":100,"ns":50,"ns_per_page":0.000,"first_alloc_ns":7}')


def test_serial_noise_cr_and_truncated_last_line():
    log = ("\r\nSeaBIOS (version 1.16)\r\n"
           "bootheap 0.1: how fast can a kernel hand its boot memory to its buddy heap?\r\n"
           + BENCH + "\r\n"
           "bench: page run 0 init: 0.000 ms\r\n"
           + RESULT + "\r\n"
           '{"type":"done","sta')
    records, problems = parse_serial(log)
    assert [r["type"] for r in records] == ["bench", "result"]
    assert records[0]["pages"] == 261888 and records[0]["strategies"] == ["page"]
    # The 3-decimal fixed point arrives as a number; the CR is gone from strings.
    assert records[1]["ns_per_page"] == 0.0 and records[1]["first_alloc_ns"] == 7
    assert len(problems) == 1 and "truncated last line" in problems[0]


def test_serial_record_after_escape_codes_and_with_trailing_junk():
    log = "\x1b[2J\x1b[0m" + BENCH + "\nnoise " + RESULT + "  <- junk\n"
    records, problems = parse_serial(log)
    assert [r["type"] for r in records] == ["bench", "result"]
    assert problems == []


def test_serial_broken_record_in_the_middle_is_reported_not_fatal():
    log = BENCH + '\n{"type":"result","strategy":\n' + '{"type":"done","status":"ok"}\n'
    records, problems = parse_serial(log)
    assert [r["type"] for r in records] == ["bench", "done"]
    assert len(problems) == 1 and "line 2" in problems[0]


def test_serial_ignores_json_that_is_not_a_record():
    records, _ = parse_serial('config {"runs": 3}\n["type", 1]\n')
    assert records == []


def test_synthetic_logs_parse_completely():
    # 4 runs x (4 heap strategies x 2 phases + the floor) results per size,
    # one audit per heap init, and the 4G log is the one with CR line ends.
    with open(os.path.join(SYNTHETIC, "serial-4G.log"), newline="") as f:
        text = f.read()
    assert "\r\n" in text
    records, problems = parse_serial(text)
    assert problems == []
    types = [r["type"] for r in records]
    assert types.count("result") == 36 and types.count("audit") == 16
    assert types.count("summary") == 9 and types.count("comparison") == 4
    assert types[-1] == "done"


def test_jsonl_wraps_each_record_with_its_size():
    lines = read_jsonl(SYNTHETIC)
    kernel = [w for w in lines if w["source"] == "kernel"]
    assert kernel and all(w["size_bytes"] in (GIB, 4 * GIB, 8 * GIB) for w in kernel)
    assert all(w["size"] == f"{w['size_bytes'] // GIB}G" for w in kernel)


def test_load_jsonl_groups_by_size():
    results = records.load_folder(SYNTHETIC)
    assert [s.nbytes for s in results.sizes] == [GIB, 4 * GIB, 8 * GIB]
    four = results.sizes[1]
    assert four.label == "4G" and four.harness["status"] == "ok"
    assert len(four.of("result")) == 36
    assert results.info["type"] == "run" and results.info["runs"] == 4


def test_load_jsonl_survives_truncated_last_line(synth):
    n = len(read_jsonl(synth))
    with open(os.path.join(synth, "records.jsonl"), "a") as f:
        f.write('{"size_bytes": 1073741824, "size": "1G", "source": "kernel", "rec')
    results = records.load_folder(synth)
    assert len(results.sizes) == 3 and len(results.sizes[0].of("result")) == 36
    assert results.problems == [f"records.jsonl line {n + 1} (the last, cut short): not JSON "
                              "(Unterminated string starting at): "
                              '{"size_bytes": 1073741824, "size": "1G", "source": "kernel",']


def test_logs_only_folder_reads_the_same_numbers(synth):
    with_jsonl = report.csv_rows(records.load_folder(synth))
    os.remove(os.path.join(synth, "records.jsonl"))
    logs_only = records.load_folder(synth)
    assert logs_only.sizes[2].label == "8G" and logs_only.sizes[2].nbytes == 8 * GIB
    assert report.csv_rows(logs_only) == with_jsonl


def test_empty_folder_is_an_error(tmp_path):
    with pytest.raises(common.BenchError, match="no records.jsonl"):
        records.load_folder(str(tmp_path))


@pytest.mark.parametrize("text,want", [
    ("1,2,4", [GIB, 2 * GIB, 4 * GIB]),
    ("0.5", [GIB // 2]),
    ("4, 1,4", [GIB, 4 * GIB]),
    ("512M,90", [GIB // 2, 90 * GIB]),
])
def test_parse_sizes(text, want):
    assert common.parse_sizes(text) == want


@pytest.mark.parametrize("text", ["", "abc", "0.01", "1.0000001"])
def test_parse_sizes_rejects(text):
    with pytest.raises(common.BenchError):
        common.parse_sizes(text)


def test_size_labels():
    assert common.size_label(90 * GIB) == "90G"
    assert common.size_label(GIB // 2) == "512M"


# ---- `report` on a folder it cannot wholly read: a failure naming the line ---

def insert_line(folder, at, text):
    """Puts text in records.jsonl as its line number `at` (1-based)."""
    path = os.path.join(folder, "records.jsonl")
    with open(path) as f:
        lines = f.read().splitlines()
    lines.insert(at - 1, text)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def report_says(folder, capsys):
    from harness import cli
    rc = cli.main(["report", folder])
    return rc, capsys.readouterr().err


def test_report_of_an_intact_folder_passes(synth, capsys):
    rc, err = report_says(synth, capsys)
    assert rc == 0 and "UNREADABLE" not in err, err


def test_report_fails_on_a_line_that_is_not_json(synth, capsys):
    insert_line(synth, 5, "this is no record")
    rc, err = report_says(synth, capsys)
    assert rc == 1, err
    assert "bench: UNREADABLE records.jsonl line 5: not JSON (Expecting value): this is no record" in err
    with open(os.path.join(synth, "report.md")) as f:
        assert "records.jsonl line 5: not JSON" in f.read()


def test_report_fails_on_a_truncated_last_line(synth, capsys):
    n = len(read_jsonl(synth))
    with open(os.path.join(synth, "records.jsonl"), "a") as f:
        f.write('{"size_bytes": 1073741824, "size": "1G", "source": "kernel", "record": {"type": "res')
    rc, err = report_says(synth, capsys)
    assert rc == 1 and f"records.jsonl line {n + 1} (the last, cut short): not JSON" in err, err


def test_report_fails_on_a_result_cut_in_the_middle(synth, capsys):
    lines = read_jsonl(synth)
    at = next(i for i, w in enumerate(lines, 1) if w["record"]["type"] == "result")
    w = lines[at - 1]
    for key in ("ticks", "ns", "ns_per_page", "first_alloc_ns"):
        w["record"].pop(key, None)
    with open(os.path.join(synth, "records.jsonl"), "w") as f:
        f.write("\n".join(json.dumps(x) for x in lines) + "\n")
    rc, err = report_says(synth, capsys)
    assert rc == 1, err
    assert f"UNREADABLE records.jsonl line {at}: a result record cut short (no ticks, ns)" in err
    # The record is left out; the rest of its run still reports.
    assert len(records.load_folder(synth).sizes[0].of("result")) == 35


def test_report_fails_on_a_record_cut_short_in_a_boot_log(synth, capsys):
    def edit(w):
        if w["record"]["type"] == "boot_result" and w["size"] == "4G":
            w["record"]["parse_problems"] = ['unreadable record (line 80): {"type":"result","strategy":"pa...']
        return w
    rewrite(synth, edit)
    rc, err = report_says(synth, capsys)
    assert rc == 1 and "UNREADABLE log 4G: unreadable record (line 80)" in err, err
