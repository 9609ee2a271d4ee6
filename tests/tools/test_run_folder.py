# SPDX-License-Identifier: MIT
"""The results folder of one boot (harness/qemu/folder.py), from the
synthetic run over sizes' 1 GiB log: what it holds, `report` writing the same
report.md again, a folder that cannot be made or filled (one line, and
nothing else lost), and how a log that ends badly is told to a person."""
import json
import os

from harness import cli
from harness.qemu import runner
from harness.qemu import folder as run_folder
from conftest import GIB, SYNTHETIC

PAYLOAD = "bootheap 0.1 qr1\nTCG 1073741824 262144 4 pit 2000000\npage 65000000 247.955 1.00 9.53\n"


def synthetic_boot(qr=True):
    """The 1 GiB synthetic log as a finished boot's Result, with a qr record."""
    with open(os.path.join(SYNTHETIC, "serial-1G.log"), newline="") as f:
        log = f.read().replace("\r", "")
    if qr:
        rec = json.dumps({"type": "qr", "payload": PAYLOAD, "bytes": len(PAYLOAD), "drawn": True},
                         separators=(",", ":"))
        log = log.replace('{"type":"done"', rec + '\n{"type":"done"')
    return runner.Result("ok", 33, log, 4.2, "tcg", ["qemu-system-x86_64", "-m", "1024M"])


def keep(out, r=None, said=None):
    folder = run_folder.RunFolder(out, say=(said or []).append)
    log_name = "serial-1G.log"
    r = r or synthetic_boot()
    if folder.path:
        with open(folder.file(log_name), "w") as f:
            f.write(r.log)
    folder.keep_boot(r, GIB, "pvh", "runs=4", "auto", log_name, ["harness: accelerator TCG (given)"])
    return folder


def test_the_folder_holds_the_log_records_report_and_payload(tmp_path):
    folder = keep(str(tmp_path / "run"))
    names = sorted(os.listdir(folder.path))
    for name in ("serial-1G.log", "records.jsonl", "report.md", "qr-payload.txt", "summary.csv"):
        assert name in names, names
    with open(folder.file("qr-payload.txt")) as f:
        assert f.read() == PAYLOAD
    with open(folder.file("records.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    assert lines[0]["record"]["type"] == "run" and lines[0]["record"]["command"] == "boot"
    assert lines[-1]["record"]["type"] == "boot_result" and lines[-1]["record"]["log"] == "serial-1G.log"
    assert lines[-1]["record"]["notes"] == ["harness: accelerator TCG (given)"]
    kernel = [w["record"] for w in lines if w["source"] == "kernel"]
    assert len(kernel) == len(synthetic_boot().records()) and all(w["size_bytes"] == GIB for w in lines[1:])
    with open(folder.report) as f:
        report = f.read()
    assert "Boot path pvh, accelerator TCG, runs 4, sizes 1 GiB" in report and "| 1 GiB | 260000 |" in report
    assert folder.closing_lines() == [f"harness: kept in {folder.path}/: {', '.join(names)} "
                                      "(python3 -m harness report reads it again)"]


def test_report_writes_the_same_report_again(tmp_path):
    folder = keep(str(tmp_path / "run"))
    with open(folder.report, "rb") as f:
        first = f.read()
    os.remove(folder.report)
    assert cli.main(["report", folder.path]) == 0
    with open(folder.report, "rb") as f:
        assert f.read() == first


def test_a_folder_that_cannot_be_made_costs_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    said = []
    folder = keep(str(blocker / "run"), said=said)
    assert folder.path is None and folder.file("serial-1G.log") is None
    assert said == []               # nothing before the end
    closing = folder.closing_lines()
    assert len(closing) == 1 and closing[0].startswith("harness: no results folder: cannot make ")
    assert "Not a directory" in closing[0] and "the report is the one above" in closing[0]


def test_a_full_disk_costs_one_line_too(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    os.symlink("/dev/full", out / "records.jsonl")      # every write: ENOSPC
    folder = run_folder.RunFolder(str(tmp_path / "unused"))
    folder.path = str(out)                               # as though new_folder() had made it
    folder.keep_boot(synthetic_boot(), GIB, "pvh", "", "auto", "serial-1G.log")
    closing = folder.closing_lines()
    assert len(closing) == 1 and "No space left on device" in closing[0], closing
    assert not (out / "report.md").exists()


def test_a_log_that_could_not_be_written_is_the_folders_problem(tmp_path):
    r = synthetic_boot()
    r.log_error = "cannot write serial-1G.log: No space left on device"
    folder = keep(str(tmp_path / "run"), r)
    assert folder.closing_lines() == [f"harness: no results folder: {r.log_error}; the records were not kept, "
                                      "the report is the one above"]


def test_a_bad_ending_shows_the_last_human_lines_and_the_last_records_type():
    log = ("bootheap 0.1\nmemory: 1 GiB\n" + '{"type":"bench","pages":3}\n'
           + "".join(f"bench: step {i}\n" for i in range(20)) + '{"type":"result","strategy":"pa')
    r = runner.Result("stalled", -15, log, 60.0, "tcg", [])
    ending = r.ending(5)
    assert ending.splitlines() == [f"  | bench: step {i}" for i in range(15, 20)] + \
        ["  the last record: result (cut short)"]
    assert not any(line.lstrip(" |").startswith("{") for line in ending.splitlines())
    assert runner.Result("fail", 35, "", 1.0, "tcg", []).ending() == "  (no human lines)\n  the last record: none"
