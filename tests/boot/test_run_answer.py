# SPDX-License-Identifier: MIT
"""`make run` under TCG ends with two answers, each labelled: the emulated
boot's, then the hosted runner's at the same size on this CPU (harness
boot --hosted-beside); a boot that is not emulated, or not asked, ends as
before. Every boot keeps a results folder and shows a person the human
lines only, unless --verbose (make run V=1) asks for the records."""
import json
import os
import subprocess
import sys

from bootlib import ROOT


def boot_cli(*args, out=None):
    """harness boot -> (exit status, stdout, stderr); its results folder is
    `out` (a test's tmp_path), never the tree's results/."""
    cmd = [sys.executable, "-m", "harness", "boot", "--mode", "pvh", *args]
    if out is not None and "--out" not in args:
        cmd += ["--out", str(out)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def test_an_emulated_run_ends_with_this_cpus_answer(tmp_path):
    rc, out, err = boot_cli("--accel", "tcg", "--mem", "256M", "--append", "runs=2", "--hosted-beside",
                            out=tmp_path / "run")
    assert rc == 0, err[-2000:]
    tail = out[out.index("The answer, twice (emulated, then real):"):].splitlines()
    assert tail[1].strip().startswith("emulated: chunked init is ") and "(TCG, emulated:" in tail[1], tail
    assert tail[2].strip().startswith("this CPU: chunked init is ") and "; hosted, real: this CPU" in tail[2], tail
    assert "at 0.25 GiB" in tail[1] and "at 0.25 GiB" in tail[2]
    assert "bootheap-host --mem 256M runs=2 strategies=page,chunk" in err


def test_without_the_flag_a_run_ends_as_before(tmp_path):
    rc, out, err = boot_cli("--accel", "tcg", "--mem", "256M", "--append", "runs=1 strategies=chunk",
                            out=tmp_path / "run")
    assert rc == 0, err[-2000:]
    assert "The answer, twice" not in out and "bootheap-host" not in err


def test_the_terminal_gets_the_human_lines_and_the_folder_the_records(tmp_path):
    folder = tmp_path / "run"
    rc, out, err = boot_cli("--accel", "tcg", "--mem", "256M", "--append", "runs=1", "--cpus", "2",
                            "--hosted-beside", out=folder)
    assert rc == 0, err[-2000:]
    terminal = (out + err).splitlines()
    assert not [line for line in terminal if line.startswith("{")], [l[:80] for l in terminal if l[:1] == "{"]
    assert not any(line.startswith(("harness: qemu-system", "harness:   probe")) for line in terminal)
    # The boot's human lines, the report table, the QR code and the answer are all there.
    for seen in ("bootheap 0.1: how fast", "==== bootheap 0.1: heap init on", "qr: the results as a QR code",
                 "bootheap: finished, status ok", "this CPU: chunked init is"):
        assert seen in out, seen
    assert len(terminal) < 150, len(terminal)
    # The last line names the folder, and it holds what the terminal left out.
    names = set(os.listdir(folder))
    assert err.splitlines()[-1] == (f"harness: kept in {folder}/: {', '.join(sorted(names))} "
                                    "(python3 -m harness report reads it again)")
    assert {"serial-256M.log", "records.jsonl", "report.md", "qr-payload.txt", "answer.txt",
            "hosted-256M.log"} <= names, names
    log = (folder / "serial-256M.log").read_text(encoding="utf-8")
    assert log.count('{"type":"result"') >= 10 and "bootheap: finished, status ok" in log
    assert (folder / "qr-payload.txt").read_text().startswith("bootheap 0.1 qr1\n")
    assert "this CPU: chunked init is" in (folder / "answer.txt").read_text()
    # report writes the same report.md again, byte for byte.
    first = (folder / "report.md").read_bytes()
    (folder / "report.md").unlink()
    p = subprocess.run([sys.executable, "-m", "harness", "report", str(folder)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert (folder / "report.md").read_bytes() == first


def test_verbose_shows_the_records_too(tmp_path):
    rc, out, err = boot_cli("--accel", "tcg", "--mem", "256M", "--append", "runs=1 strategies=chunk",
                            "--verbose", out=tmp_path / "run")
    assert rc == 0, err[-2000:]
    assert '\n{"type":"done","status":"ok"}\n' in out and "harness: qemu-system" in err
    boot_result = json.loads((tmp_path / "run" / "records.jsonl").read_text().splitlines()[-1])["record"]
    assert any(n.startswith("harness: qemu-system") for n in boot_result["notes"]), boot_result["notes"]


def test_a_folder_that_cannot_be_written_costs_one_line_and_the_report_still_shows(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    rc, out, err = boot_cli("--accel", "tcg", "--mem", "256M", "--append", "runs=1 strategies=chunk",
                            out=blocker / "run")
    assert rc == 0, err[-2000:]
    assert "==== bootheap 0.1: heap init on" in out and "bootheap: finished, status ok" in out
    said = [line for line in err.splitlines() if "results folder" in line or "a-file" in line]
    assert said == [err.splitlines()[-1]], err
    assert said[0].startswith(f"harness: no results folder: cannot make {blocker}") and "Not a directory" in said[0]


def test_a_panic_ends_with_its_last_human_lines_and_last_record(tmp_path):
    folder = tmp_path / "run"
    rc, out, err = boot_cli("--accel", "tcg", "--mem", "256M", "--append", "fault=panic", out=folder)
    assert rc == 1, err[-2000:]
    assert not [line for line in (out + err).splitlines() if line.startswith("{")]
    ending = err[err.index("harness: the log ends:"):].splitlines()
    assert any("panic: panic requested on the command line" in line for line in ending), ending
    assert "  the last record: done" in ending, ending
    log = (folder / "serial-256M.log").read_text(encoding="utf-8")
    assert '{"type":"done","status":"fail"' in log
    assert err.splitlines()[-1].startswith(f"harness: kept in {folder}/: ")
