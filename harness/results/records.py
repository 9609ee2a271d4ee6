# SPDX-License-Identifier: MIT
"""Reading what the kernel said: records out of a serial log, and a results
folder (records.jsonl, or bare serial-<size>.log files) as Results: a run
over sizes, a SizeRun each; and the two things its writers share, a new folder and the
wrapper of a records.jsonl line. docs/records.md is the schema."""
import datetime
import json
import os
import re

from harness import ROOT
from harness.common import GIB, BenchError, parse_size, size_label
from harness.results.names import harness_record, kernel_record

RECORD_START = '{"type":'
# What every `result` record holds (docs/records.md): one without all
# of them was cut short, and its figures cannot be trusted.
RESULT_KEYS = ("strategy", "run", "phase", "pages", "ticks", "ns")


def parse_serial(text):
    """Records from a raw serial log -> (records, problems).

    The log mixes the kernel's human text with one JSON record per line.
    Serial capture may keep CR characters, and a boot that dies mid-line
    leaves a truncated last record: that one is reported, not fatal. A
    record of a kernel from before a rename reads under today's names
    (harness/results/names.py)."""
    records, problems = [], []
    decoder = json.JSONDecoder()
    lines = text.replace("\r", "").split("\n")
    for i, line in enumerate(lines):
        at = line.find(RECORD_START)
        if at < 0:
            continue
        try:
            rec, _ = decoder.raw_decode(line, at)
        except json.JSONDecodeError:
            where = "truncated last line" if i == len(lines) - 1 else f"line {i + 1}"
            problems.append(f"unreadable record ({where}): {line[at:at + 60]}...")
            continue
        if isinstance(rec, dict):
            records.append(kernel_record(rec))
    return records, problems


class SizeRun:
    """One size of a run over sizes: its size, the kernel's records and what the
    harness saw (None when read back from a bare serial log)."""

    def __init__(self, nbytes, label=None):
        self.nbytes = nbytes
        self.label = label or size_label(nbytes)
        self.records = []
        self.harness = None
        self.problems = []
        self.passes = {}        # a hosted run's passes: pass -> SizeRun of its boot, runs as the boot numbered them

    def of(self, rtype):
        return [r for r in self.records if r.get("type") == rtype]

    def first(self, rtype):
        recs = self.of(rtype)
        return recs[0] if recs else None

    @property
    def accel(self):
        """'kvm', 'tcg', 'host' (the hosted runner) or 'unknown'."""
        if self.harness and self.harness.get("accel") in ("kvm", "tcg", "host"):
            return self.harness["accel"]
        for rec in (self.first("bench"), self.first("boot")):
            if rec and str(rec.get("accel", "")).upper() in ("KVM", "TCG", "HOST"):
                return rec["accel"].lower()
        return "unknown"

    @property
    def emulated(self):
        bench = self.first("bench") or {}
        return self.accel == "tcg" or bench.get("emulated") is True

    @property
    def status(self):
        if self.harness:
            return self.harness.get("status", "unknown")
        done = self.first("done")
        return done.get("status", "unknown") if done else "no-verdict"


class Results:
    """A results folder read back: a run over sizes (or one boot's folder,
    a run of one size)."""

    def __init__(self, folder):
        self.folder = folder
        self.info = {}          # the harness's `run` record, when there is one
        self.sizes = []         # SizeRun, ascending
        self.problems = []

    @property
    def emulated(self):
        return any(s.emulated for s in self.sizes) or self.info.get("accel") == "tcg"

    @property
    def missing(self):
        """The sizes the run planned (its `run` record) that left no
        records: a run stopped before them. [] when nothing is known."""
        have = {s.nbytes for s in self.sizes}
        return [n for n in self.info.get("sizes_bytes") or [] if n not in have]

    @property
    def accels(self):
        return sorted({s.accel for s in self.sizes} | ({self.info["accel"]} if "accel" in self.info else set()))


def new_folder(out, prefix=""):
    """The results folder a command writes: out, or results/<prefix><date-time>
    (-2, -3, ... where that is taken). Raises BenchError for an out that is
    not empty, OSError for one that cannot be made."""
    if out is None:
        stamp = prefix + datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
        out = os.path.join(ROOT, "results", stamp)
        n = 1
        while os.path.exists(out):
            n += 1
            out = os.path.join(ROOT, "results", f"{stamp}-{n}")
    if os.path.isdir(out) and os.listdir(out):
        raise BenchError(f"{out} is not empty: choose another --out")
    os.makedirs(out, exist_ok=True)
    return out


def wrap(nbytes, source, rec, tag=None):
    """One line of records.jsonl: a record, the size it came from (None for
    the harness's `run` record), the tag of the run's pass it came from
    (`pass`, `run0`; none for a boot's folder) and its source, `kernel` or
    `harness`."""
    return json.dumps({"size_bytes": nbytes, "size": size_label(nbytes) if nbytes else None,
                       "size_gib": nbytes / GIB if nbytes else None, **(tag or {}),
                       "source": source, "record": rec}) + "\n"


def load_jsonl(path):
    """records.jsonl -> Results. Each line wraps one record with the size it
    came from. A line that is not JSON (a truncated last line, say), wraps
    no record or no size, or holds a result cut short, is left out and
    reported in results.problems, naming the line: `report` then fails.
    A record written before a rename reads under today's name
    (harness/results/names.py)."""
    results = Results(os.path.dirname(os.path.abspath(path)))
    by_label = {}
    name = os.path.basename(path)
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().replace("\r", "").split("\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        where = f"{name} line {i + 1}" + (" (the last, cut short)" if i == last and not
                                          line.rstrip().endswith("}") else "")
        try:
            w = json.loads(line)
        except json.JSONDecodeError as e:
            results.problems.append(f"{where}: not JSON ({e.msg}): {line[:60]}")
            continue
        rec = w.get("record") if isinstance(w, dict) else None
        if not isinstance(rec, dict):
            results.problems.append(f"{where}: no record in it")
            continue
        rec = harness_record(rec) if w.get("source") == "harness" else kernel_record(rec)
        if w.get("source") == "harness" and rec.get("type") == "run":
            results.info = rec
            continue
        if w.get("size_bytes") is None:
            results.problems.append(f"{where}: no size_bytes")
            continue
        missing = [k for k in RESULT_KEYS if k not in rec] if rec.get("type") == "result" else []
        if missing:
            results.problems.append(f"{where}: a result record cut short (no {', '.join(missing)})")
            continue
        nbytes = int(w["size_bytes"])
        label = w.get("size") or size_label(nbytes)
        run = by_label.get(label)
        if run is None:
            run = by_label[label] = SizeRun(nbytes, label)
        if "pass" in w:
            _add_pass(run, w["pass"], w.get("run0") or 0, w.get("source"), rec)
        elif w.get("source") == "harness":
            if rec.get("type") == "boot_result":
                run.harness = rec
                run.problems.extend(rec.get("parse_problems", []))
        else:
            run.records.append(rec)
    results.sizes = sorted(by_label.values(), key=lambda s: s.nbytes)
    return results


def _add_pass(run, k, run0, source, rec):
    """One record of pass k of a size, whose boot's first run is the whole
    run's run run0: kept as its boot gave it in run.passes[k] (what the
    kernel's own summaries are checked against), and in the size's records
    with its run renumbered as the whole run's. The size's harness record is its
    passes': the first that did not end ok, else the last, with their wall
    times summed."""
    one = run.passes.get(k)
    if one is None:
        one = run.passes[k] = SizeRun(run.nbytes, run.label)
    if source == "harness":
        if rec.get("type") == "boot_result":
            one.harness = rec
            run.problems.extend(rec.get("parse_problems", []))
            boots = [p.harness for p in run.passes.values() if p.harness]
            bad = [h for h in boots if h.get("status") != "ok"]
            run.harness = dict(bad[0] if bad else rec,
                               elapsed_s=round(sum(h.get("elapsed_s") or 0 for h in boots), 3))
        return
    one.records.append(rec)
    run.records.append(dict(rec, run=rec["run"] + run0) if isinstance(rec.get("run"), int) else rec)


def passes_of(run):
    """The boots a size's records came from: its passes, or the size itself."""
    passes = getattr(run, "passes", None) or {}
    return [passes[k] for k in sorted(passes)] or [run]


def load_logs(folder):
    """A folder with only serial-<size>.log files -> Results."""
    results = Results(os.path.abspath(folder))
    for name in sorted(os.listdir(folder)):
        m = re.fullmatch(r"serial-(.+)\.log", name)
        if not m:
            continue
        try:
            nbytes = parse_size(m.group(1))
        except ValueError:
            results.problems.append(f"{name}: cannot tell the memory size from the name")
            continue
        run = SizeRun(nbytes, m.group(1))
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            run.records, run.problems = parse_serial(f.read())
        results.sizes.append(run)
    results.sizes.sort(key=lambda s: s.nbytes)
    return results


def load_folder(folder):
    if not os.path.isdir(folder):
        raise BenchError(f"{folder}: no such results folder")
    path = os.path.join(folder, "records.jsonl")
    results = load_jsonl(path) if os.path.exists(path) else load_logs(folder)
    if not results.sizes:
        raise BenchError(f"{folder}: no records.jsonl records and no serial-<size>.log files")
    return results

