# SPDX-License-Identifier: MIT
"""The results folder of one boot (`make run`, `python3 -m harness boot`):
results/run-<date-time>/ unless --out names another, holding the serial
log as it came (serial-<size>.log), records.jsonl in the form of a run
over sizes, report.md, summary.csv and plot.png from its writer
(harness/report/outputs.py), the QR code's payload (qr-payload.txt) and,
after an emulated boot, the hosted run's log and the closing answer. So
`python3 -m harness report FOLDER` reads it as it reads a run over sizes.

A folder that cannot be made or filled costs one line on the terminal,
where the folder would have been named at the end, and nothing else: the
boot goes on and prints its report."""
import datetime
import os

from harness.common import BenchError, size_label, warn
from harness.report.outputs import write_outputs
from harness.results.records import load_folder, new_folder, parse_serial, wrap

PAYLOAD = "qr-payload.txt"
ANSWER = "answer.txt"


def shown(path):
    """A path as a person would type it here: relative below the working directory."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


class RunFolder:
    """Where one boot keeps what it said. path is None once it cannot be
    written; problem then says why, in the one line closing_lines() gives."""

    def __init__(self, out, say=warn):
        self.say, self.problem, self.path, self.report = say, None, None, None
        self.started = datetime.datetime.now().isoformat(timespec="seconds")
        try:
            self.path = new_folder(out, "run-")
        except OSError as e:
            self.give_up(f"cannot make {e.filename or out}: {e.strerror or e}")

    def give_up(self, why):
        """The folder cannot be written: the first reason is kept for the
        closing line, and later writes are skipped."""
        if self.problem is None:
            self.problem = why
        self.path = None

    def file(self, name):
        return os.path.join(self.path, name) if self.path else None

    def _write(self, name, text):
        with open(os.path.join(self.path, name), "w", encoding="utf-8") as f:
            f.write(text)

    def keep_boot(self, r, mem_bytes, mode, append, accel_requested, log_name, notes=()):
        """records.jsonl, the QR payload and the report of a finished boot
        (harness.qemu.runner's Result r, its log already in log_name); notes:
        what the harness said of it, the terminal's lines and the others."""
        if r.log_error:
            self.give_up(r.log_error)
        if not self.path:
            return
        records = parse_serial(r.log)
        info = {"type": "run", "command": "boot", "mode": mode, "accel_requested": accel_requested,
                "accel": r.accel, "sizes_bytes": [mem_bytes], "append": append, "notes": [],
                "started": self.started}
        lines = [wrap(None, "harness", info)] + [wrap(mem_bytes, "kernel", rec) for rec in records[0]]
        lines.append(wrap(mem_bytes, "harness", {
            "type": "boot_result", "status": r.status, "qemu_rc": r.qemu_rc, "accel": r.accel, "mode": mode,
            "append": append, "elapsed_s": round(r.elapsed, 3), "log": log_name,
            "parse_problems": records[1], "notes": list(notes), "cmd": r.cmd}))
        qr = next((rec for rec in records[0] if rec.get("type") == "qr" and rec.get("payload")), None)
        try:
            self._write("records.jsonl", "".join(lines))
            if qr:
                self._write(PAYLOAD, qr["payload"].rstrip("\n") + "\n")
            self.report, plot_error = write_outputs(load_folder(self.path))
        except OSError as e:
            self.give_up(f"cannot write {e.filename or self.path}: {e.strerror or e}")
        except BenchError as e:
            self.say(f"harness: no report.md in {shown(self.path)}: {e}")

    def keep_answer(self, hosted_result, mem_bytes, lines):
        """The hosted run's log and the answer the run ended with."""
        if not self.path:
            return
        try:
            self._write(f"hosted-{size_label(mem_bytes)}.log", hosted_result.log)
            self._write(ANSWER, "\n".join(lines) + "\n")
        except OSError as e:
            self.give_up(f"cannot write {e.filename or self.path}: {e.strerror or e}")

    def closing_lines(self):
        """The line a run ends with: where its records went, and how to read
        them again; or why they went nowhere."""
        if not self.path:
            return [f"harness: no results folder: {self.problem}; the records were not kept, "
                    "the report is the one above"]
        return [f"harness: kept in {shown(self.path)}/: {', '.join(sorted(os.listdir(self.path)))} "
                "(python3 -m harness report reads it again)"]
