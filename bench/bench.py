#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`make bench`: boots bootheap over a sweep of memory sizes, then writes
summary.csv, report.md and plot.png from the kernel's records.

Subcommands: run (the sweep; the default), report DIR (rewrite the outputs of
a results folder), compare A B (per-strategy change between two results
folders, with a noise estimate). README.md's Records table is the schema read
here; every statistic is recomputed from the `result` records and checked
against the kernel's own `summary` and `comparison` records.
"""
import argparse
import csv
import datetime
import io
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import qemu  # noqa: E402  (bench/qemu.py: the runner shared with make run and make test)

GIB = 1 << 30
MIB = 1 << 20
PAGE = 4096

# The sweep. Xen published figures at 4, 8 and 90 GB.
DEFAULT_SIZES_GIB = (1, 2, 4, 8, 16, 32, 64, 90)
DEFAULT_RUNS = 5
# Under TCG the whole default sweep takes about 4 minutes with 3 runs
# (measured here), so an emulated sweep keeps the sizes and does fewer runs.
TCG_SIZES_GIB = DEFAULT_SIZES_GIB
TCG_RUNS = 3
QUICK_SIZES_GIB = (1, 4)
QUICK_RUNS = 3
DEFAULT_TIMEOUT = 600

OLD, NEW, FLOOR = "page", "chunk", "floor"   # Xen before 4.17, Xen 4.17, memset of page_info and M2P
INIT, FIRST_TOUCH = "init", "first_touch"

TCG_LABEL = "EMULATED TIMINGS (TCG) — not comparable with KVM or Xen's figures"

# Xen's published end_boot_allocator() times, x86 nested KVM on c5.metal, in
# ms: (GB, v1 before, v1 after, v2 before, v2 after). v2 is a non-debug build.
XEN_X86 = ((4, 60, 6, 62, 4), (8, 124, 12, 126, 8), (90, 1426, 166, 1445, 96))
# Arm64 Neoverse N1, 32 GB: (GB, before, after).
XEN_ARM = (32, 1180, 63)

# The kernel prints ns_per_page with 3 decimals and ratios and cv_pct with 2.
# Rounding or truncating there moves a value by up to one unit of the last
# place; the speedup is a median of already-rounded ratios, which can add
# one more unit. Anything beyond that is a real disagreement.
TOLERANCE_UNITS = {"ns_per_page": (3, 1), "cv_pct": (2, 1), "x_floor": (2, 1),
                   "speedup_vs_page": (2, 2)}


class BenchError(Exception):
    """A problem the user must fix (bad option, missing tool, empty folder)."""


def say(msg=""):
    print(msg, flush=True)


def warn(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- sizes -------------------------------------------------------------------

def parse_sizes(text):
    """'1,2,4' or '0.5' (GiB), or with units ('512M', '4G') -> sorted, unique
    byte counts. QEMU takes memory in MiB, so a size must be whole MiB."""
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        if not tok:
            continue
        try:
            n = int(float(tok) * GIB) if re.fullmatch(r"[0-9]+(\.[0-9]+)?", tok) else qemu.parse_size(tok)
        except ValueError:
            raise BenchError(f"bad size {tok!r} in --sizes: use GiB numbers like 1,2,4 or 0.5, or 512M")
        if n < 64 * MIB or n % MIB:
            raise BenchError(f"bad size {tok!r} in --sizes: must be a whole number of MiB, at least 64 MiB")
        out.append(n)
    if not out:
        raise BenchError("--sizes is empty")
    return sorted(set(out))


def size_label(nbytes):
    """File-name form of a size: 4G, or 512M when not whole GiB."""
    return f"{nbytes // GIB}G" if nbytes % GIB == 0 else f"{nbytes // MIB}M"


def gib_text(nbytes):
    return f"{nbytes / GIB:g} GiB"


# ---- parsing -----------------------------------------------------------------

RECORD_START = '{"type":'


def parse_serial(text):
    """Records from a raw serial log -> (records, problems).

    The log mixes the kernel's human text with one JSON record per line.
    Serial capture may keep CR characters, and a boot that dies mid-line
    leaves a truncated last record: that one is reported, not fatal."""
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
            records.append(rec)
    return records, problems


class SizeRun:
    """One boot of the sweep: its size, the kernel's records and what the
    harness saw (None when read back from a bare serial log)."""

    def __init__(self, nbytes, label=None):
        self.nbytes = nbytes
        self.label = label or size_label(nbytes)
        self.records = []
        self.harness = None
        self.problems = []

    def of(self, rtype):
        return [r for r in self.records if r.get("type") == rtype]

    def first(self, rtype):
        recs = self.of(rtype)
        return recs[0] if recs else None

    @property
    def accel(self):
        """'kvm', 'tcg' or 'unknown'."""
        if self.harness and self.harness.get("accel") in ("kvm", "tcg"):
            return self.harness["accel"]
        for rec in (self.first("bench"), self.first("boot")):
            if rec and str(rec.get("accel", "")).upper() in ("KVM", "TCG"):
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


class Sweep:
    def __init__(self, folder):
        self.folder = folder
        self.info = {}          # the harness's `sweep` record, when there is one
        self.sizes = []         # SizeRun, ascending
        self.problems = []

    @property
    def emulated(self):
        return any(s.emulated for s in self.sizes) or self.info.get("accel") == "tcg"

    @property
    def accels(self):
        return sorted({s.accel for s in self.sizes} | ({self.info["accel"]} if "accel" in self.info else set()))


def load_jsonl(path):
    """records.jsonl -> Sweep. Each line wraps one record with the size it
    came from; a truncated last line is reported, not fatal."""
    sweep = Sweep(os.path.dirname(os.path.abspath(path)))
    by_label = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().replace("\r", "").split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            w = json.loads(line)
        except json.JSONDecodeError:
            where = "truncated last line" if i == len(lines) - 1 else f"line {i + 1}"
            sweep.problems.append(f"{os.path.basename(path)}: unreadable ({where})")
            continue
        rec = w.get("record") if isinstance(w, dict) else None
        if not isinstance(rec, dict):
            sweep.problems.append(f"{os.path.basename(path)}: line {i + 1} has no record")
            continue
        if w.get("source") == "harness" and rec.get("type") == "sweep":
            sweep.info = rec
            continue
        if w.get("size_bytes") is None:
            sweep.problems.append(f"{os.path.basename(path)}: line {i + 1} has no size")
            continue
        nbytes = int(w["size_bytes"])
        label = w.get("size") or size_label(nbytes)
        run = by_label.get(label)
        if run is None:
            run = by_label[label] = SizeRun(nbytes, label)
        if w.get("source") == "harness":
            if rec.get("type") == "boot_result":
                run.harness = rec
                run.problems.extend(rec.get("parse_problems", []))
        else:
            run.records.append(rec)
    sweep.sizes = sorted(by_label.values(), key=lambda s: s.nbytes)
    return sweep


def load_logs(folder):
    """A folder with only serial-<size>.log files -> Sweep."""
    sweep = Sweep(os.path.abspath(folder))
    for name in sorted(os.listdir(folder)):
        m = re.fullmatch(r"serial-(.+)\.log", name)
        if not m:
            continue
        try:
            nbytes = qemu.parse_size(m.group(1))
        except ValueError:
            sweep.problems.append(f"{name}: cannot tell the memory size from the name")
            continue
        run = SizeRun(nbytes, m.group(1))
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            run.records, run.problems = parse_serial(f.read())
        sweep.sizes.append(run)
    sweep.sizes.sort(key=lambda s: s.nbytes)
    return sweep


def load_folder(folder):
    if not os.path.isdir(folder):
        raise BenchError(f"{folder}: no such results folder")
    path = os.path.join(folder, "records.jsonl")
    sweep = load_jsonl(path) if os.path.exists(path) else load_logs(folder)
    if not sweep.sizes:
        raise BenchError(f"{folder}: no records.jsonl records and no serial-<size>.log files")
    return sweep


# ---- statistics (README.md, "Statistics") ------------------------------------

def median(values):
    """Middle value; for even n the mean of the two middle values, rounded
    down when both are integers (as the kernel does), exact for ratios."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        raise ValueError("median of no values")
    if n % 2:
        return s[n // 2]
    a, b = s[n // 2 - 1], s[n // 2]
    if isinstance(a, int) and isinstance(b, int):
        return (a + b) // 2
    return (a + b) / 2


def cv_pct(values):
    """Sample standard deviation (n - 1) over the mean, in percent; 0 for
    one run (and for a zero mean, where it means nothing)."""
    if len(values) < 2:
        return 0.0
    mean = statistics.fmean(values)
    if mean == 0:
        return 0.0
    return statistics.stdev(values) / mean * 100


def paired_speedup(ref_by_run, ns_by_run):
    """Median over runs of ref[i] / ns[i], paired by run index; None when no
    run index is in both."""
    ratios = [ref_by_run[i] / ns_by_run[i] for i in sorted(ref_by_run)
              if i in ns_by_run and ns_by_run[i] > 0]
    return median(ratios) if ratios else None


class Stat:
    """One strategy and phase at one size, from its `result` records."""

    def __init__(self, strategy, phase):
        self.strategy, self.phase = strategy, phase
        self.by_run = {}            # run index -> ns
        self.pages = None
        self.first_alloc = []       # first_alloc_ns of init results
        self.notes = []

    def add(self, rec):
        run = rec.get("run")
        if run in self.by_run:
            self.notes.append(f"run {run} reported twice")
        self.by_run[run] = int(rec["ns"])
        pages = rec.get("pages")
        if self.pages is None:
            self.pages = pages
        elif pages != self.pages:
            self.notes.append(f"pages differ between runs ({self.pages} vs {pages})")
        if "first_alloc_ns" in rec:
            self.first_alloc.append(int(rec["first_alloc_ns"]))

    @property
    def values(self):
        return list(self.by_run.values())

    @property
    def runs(self):
        return len(self.by_run)

    @property
    def median(self):
        return median(self.values)

    @property
    def min(self):
        return min(self.values)

    @property
    def max(self):
        return max(self.values)

    @property
    def cv(self):
        return cv_pct(self.values)

    def per_page(self, ns=None):
        ns = self.median if ns is None else ns
        return ns / self.pages if self.pages else None


class SizeStats:
    """Everything the outputs show for one size, computed from the records."""

    def __init__(self, run):
        self.run = run
        self.stats = {}             # (strategy, phase) -> Stat
        order = list((run.first("bench") or {}).get("strategies") or [])
        for rec in run.of("result"):
            key = (rec.get("strategy"), rec.get("phase", INIT))
            if key not in self.stats:
                self.stats[key] = Stat(*key)
            if rec.get("strategy") not in order:
                order.append(rec.get("strategy"))
            self.stats[key].add(rec)
        # Run order from the bench record, then any strays, the floor last.
        present = {s for s, _ in self.stats}
        self.strategies = [s for s in order if s in present and s != FLOOR]
        if FLOOR in present:
            self.strategies.append(FLOOR)

    def get(self, strategy, phase=INIT):
        return self.stats.get((strategy, phase))

    def phases(self, strategy):
        return [p for p in (INIT, FIRST_TOUCH) if (strategy, p) in self.stats] + \
            sorted(p for s, p in self.stats if s == strategy and p not in (INIT, FIRST_TOUCH))

    @property
    def heap_strategies(self):
        return [s for s in self.strategies if s != FLOOR]

    @property
    def pages(self):
        bench = self.run.first("bench")
        if bench and bench.get("pages"):
            return bench["pages"]
        st = self.get(OLD) or next(iter(self.stats.values()), None)
        return st.pages if st else None

    def speedup(self, strategy):
        ref, st = self.get(OLD), self.get(strategy)
        if not ref or not st:
            return None
        return paired_speedup(ref.by_run, st.by_run)

    def x_floor(self, strategy, phase=INIT):
        st, fl = self.get(strategy, phase), self.get(FLOOR)
        if not st or not fl or fl.median == 0:
            return None
        return st.median / fl.median

    def end_to_end(self, strategy):
        """Init median + first-touch median (README: end_to_end_median_ns)."""
        a, b = self.get(strategy, INIT), self.get(strategy, FIRST_TOUCH)
        return a.median + b.median if a and b else None

    def first_alloc(self, strategy):
        st = self.get(strategy, INIT)
        return median(st.first_alloc) if st and st.first_alloc else None

    def digests(self):
        return {a.get("digest") for a in self.run.of("audit")}


def failures(run):
    """Why one boot of the sweep cannot be trusted; empty when it can."""
    out = []
    h = run.harness
    if h and h.get("status") != "ok":
        out.append(f"boot ended {h.get('status')} (qemu exit {h.get('qemu_rc')})")
    done = run.first("done")
    if done is None:
        out.append("no done record: the log ends before the kernel finished")
    elif done.get("status") != "ok":
        out.append(f"kernel reported failure: {done.get('reason') or 'no reason given'}")
    if run.first("bench") is None or not run.of("result"):
        out.append("no benchmark records (bench/result): does the kernel run the benchmark?")
    for a in run.of("audit"):
        if a.get("ok") is not True:
            errs = "; ".join(a.get("errors") or []) or "no errors listed"
            out.append(f"audit failed: {a.get('strategy')} run {a.get('run')}: {errs}")
    for c in run.of("comparison"):
        if c.get("digest_equal") is False:
            out.append(f"{c.get('strategy')} built a different heap (digest_equal=false)")
    return out


def request_mismatch(run):
    """Where the kernel's bench record differs from what the harness asked
    for on the command line (an option the kernel ignored, say)."""
    out = []
    bench = run.first("bench")
    append = (run.harness or {}).get("append", "")
    if not bench or not append:
        return out
    opts = dict(kv.split("=", 1) for kv in append.split() if "=" in kv)
    if "runs" in opts and str(bench.get("runs")) != opts["runs"]:
        out.append(f"asked for runs={opts['runs']}, the kernel ran {bench.get('runs')}")
    if "strategies" in opts and [s for s in bench.get("strategies") or [] if s != FLOOR] != \
            opts["strategies"].split(","):
        out.append(f"asked for strategies={opts['strategies']}, the kernel ran "
                   f"{','.join(bench.get('strategies') or [])}")
    return out


def _beyond_rounding(key, kernel, host):
    decimals, units = TOLERANCE_UNITS[key]
    return abs(float(kernel) - host) > units * 10 ** -decimals + 1e-9


def cross_check(ss):
    """The kernel's summary/comparison records against the host's own
    statistics -> {(strategy, phase): [disagreement, ...]}; a missing
    kernel record shows as 'absent'."""
    out = {key: [] for key in ss.stats}
    seen = set()
    for rec in ss.run.of("summary"):
        key = (rec.get("strategy"), rec.get("phase", INIT))
        st = ss.stats.get(key)
        if st is None:
            out.setdefault(key, []).append("kernel summary without result records")
            continue
        seen.add(key)
        bad = out[key]
        for k, host in (("runs", st.runs), ("median_ns", st.median), ("min_ns", st.min),
                        ("max_ns", st.max)):
            if k in rec and rec[k] != host:
                bad.append(f"{k} kernel {rec[k]} vs host {host}")
        if "ns_per_page" in rec and st.pages and _beyond_rounding("ns_per_page", rec["ns_per_page"], st.per_page()):
            bad.append(f"ns_per_page kernel {rec['ns_per_page']} vs host {st.per_page():.4f}")
        if "cv_pct" in rec and _beyond_rounding("cv_pct", rec["cv_pct"], st.cv):
            bad.append(f"cv_pct kernel {rec['cv_pct']} vs host {st.cv:.3f}")
    for key in ss.stats:
        if key not in seen:
            out[key].append("absent")
    digests = ss.digests()
    for rec in ss.run.of("comparison"):
        s = rec.get("strategy")
        key = (s, INIT)
        if key not in ss.stats:
            out.setdefault(key, []).append("kernel comparison without result records")
            continue
        bad = out[key]
        for k, host in (("speedup_vs_page", ss.speedup(s)), ("x_floor", ss.x_floor(s))):
            if k in rec and host is not None and _beyond_rounding(k, rec[k], host):
                bad.append(f"{k} kernel {rec[k]} vs host {host:.3f}")
        ft = ss.get(s, FIRST_TOUCH)
        for k, host in (("init_median_ns", ss.get(s).median),
                        ("first_touch_median_ns", ft.median if ft else None),
                        ("end_to_end_median_ns", ss.end_to_end(s)),
                        ("first_alloc_median_ns", ss.first_alloc(s))):
            if k in rec and host is not None and rec[k] != host:
                bad.append(f"{k} kernel {rec[k]} vs host {host}")
        if "digest_equal" in rec and digests and rec["digest_equal"] != (len(digests) == 1):
            bad.append(f"digest_equal kernel {rec['digest_equal']} but audits show "
                       f"{len(digests)} distinct digest(s)")
    # Each result's own ns_per_page against ns / pages.
    for rec in ss.run.of("result"):
        if rec.get("pages") and "ns_per_page" in rec and \
                _beyond_rounding("ns_per_page", rec["ns_per_page"], rec["ns"] / rec["pages"]):
            key = (rec.get("strategy"), rec.get("phase", INIT))
            out[key].append(f"run {rec.get('run')} ns_per_page kernel {rec['ns_per_page']} "
                            f"vs host {rec['ns'] / rec['pages']:.4f}")
    for key, st in ss.stats.items():
        out[key].extend(st.notes)
    return out


def check_text(problems):
    """CSV/Markdown cell for one cross-check result."""
    if not problems:
        return "agrees"
    if problems == ["absent"]:
        return "no kernel summary"
    return "DISAGREES: " + "; ".join(p for p in problems if p != "absent")


def disagreements(ss):
    return {k: v for k, v in cross_check(ss).items() if v and v != ["absent"]}


# ---- formatting --------------------------------------------------------------

def fmt(x, decimals):
    return "" if x is None else f"{x:.{decimals}f}"


def fmt_ms(ns):
    return "" if ns is None else f"{ns / 1e6:.3f}"


def xen_pages(gb):
    """Pages in Xen's nominal RAM size: GB read as GiB, 4 KiB pages."""
    return gb * GIB // PAGE


def xen_ns_per_page(gb, ms):
    return ms * 1e6 / xen_pages(gb)


def xen_row(nbytes):
    for row in XEN_X86:
        if nbytes == row[0] * GIB:
            return row
    return None


def md_table(headers, rows):
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        out.append("| " + " | ".join("" if c is None else str(c) for c in r) + " |")
    return "\n".join(out)


# ---- summary.csv ---------------------------------------------------------------

CSV_COLUMNS = ["size_gib", "mem_bytes", "pages", "accel", "emulated", "timings", "status",
               "strategy", "phase", "runs", "median_ns", "min_ns", "max_ns", "cv_pct",
               "ns_per_page", "speedup_vs_page", "x_floor", "init_plus_first_touch_ns",
               "init_plus_first_touch_ns_per_page", "first_alloc_median_ns", "kernel_check"]


def csv_rows(sweep):
    rows = []
    for run in sweep.sizes:
        ss = SizeStats(run)
        checks = cross_check(ss)
        timings = TCG_LABEL if run.emulated else ("KVM" if run.accel == "kvm" else "unknown accelerator")
        base = {"size_gib": f"{run.nbytes / GIB:g}", "mem_bytes": run.nbytes, "pages": ss.pages,
                "accel": run.accel, "emulated": str(run.emulated).lower(), "timings": timings,
                "status": "ok" if not failures(run) else "FAILED"}
        if not ss.stats:
            rows.append(dict(base))
            continue
        for s in ss.strategies:
            for phase in ss.phases(s):
                st = ss.get(s, phase)
                row = dict(base, strategy=s, phase=phase, runs=st.runs, median_ns=st.median,
                           min_ns=st.min, max_ns=st.max, cv_pct=fmt(st.cv, 2),
                           ns_per_page=fmt(st.per_page(), 3), kernel_check=check_text(checks[(s, phase)]))
                if phase == INIT and s != FLOOR:
                    e2e = ss.end_to_end(s)
                    row.update(speedup_vs_page=fmt(ss.speedup(s), 2), x_floor=fmt(ss.x_floor(s), 2),
                               init_plus_first_touch_ns=e2e if e2e is not None else "",
                               init_plus_first_touch_ns_per_page=fmt(st.per_page(e2e) if e2e is not None else None, 3),
                               first_alloc_median_ns=ss.first_alloc(s) if ss.first_alloc(s) is not None else "")
                rows.append(row)
    return rows


def write_csv(sweep, path):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="")
        w.writeheader()
        for row in csv_rows(sweep):
            w.writerow(row)


# ---- report.md -----------------------------------------------------------------

WHY_DIFFERENT = """\
Why bootheap's absolute numbers differ from Xen's:

- **Different machine.** Xen's figures come from an AWS c5.metal; bootheap's
  come from whatever host ran this sweep, with its own CPU, memory and clock.
- **Nesting.** Xen's x86 figures were taken with Xen itself running as a
  nested guest under KVM, where every TLB miss walks two levels of page
  tables. bootheap runs as a single guest (or, under TCG, inside an emulator
  that translates every instruction, which is slower still and not a model
  of any real CPU).
- **page_info work.** Xen's free_heap_pages() does more per page than
  bootheap's strategies: a node lookup, the heap lock, TLB-flush stamps,
  machine-to-phys invalidation, scrub flags and per-node/zone counters. The
  shape of the change (page by page versus aligned chunks) is what carries
  over, not the absolute times.
- **Page counts.** Xen's ns/page in this report divide its published time by the
  nominal size in 4 KiB pages (GB read as GiB: GB x 2^30 / 4096); the heap it
  built had somewhat fewer pages, so its true per-page cost is a little
  higher. bootheap's ns/page divides by the pages actually handed to the heap.
"""


def xen_section(emulated):
    lines = ["## Xen's published figures", ""]
    if emulated:
        lines += [f"> **{TCG_LABEL}.** The figures below were measured on real hardware "
                  "under KVM; bootheap's emulated numbers above must not be compared with them.", ""]
    lines += ["end_boot_allocator(), x86, nested KVM on c5.metal, in ms. ns/page is derived as "
              "ms x 10^6 / pages, with pages = GB x 2^30 / 4096 (4 KiB pages, GB read as GiB).", ""]
    rows = []
    for gb, b1, a1, b2, a2 in XEN_X86:
        p = xen_pages(gb)
        rows.append([f"{gb} GB", p, b1, a1, b2, a2,
                     f"{xen_ns_per_page(gb, b1):.2f} -> {xen_ns_per_page(gb, a1):.2f}",
                     f"{xen_ns_per_page(gb, b2):.2f} -> {xen_ns_per_page(gb, a2):.2f}"])
    lines.append(md_table(["RAM", "pages", "v1 before ms", "v1 after ms", "v2 before ms",
                           "v2 after ms", "v1 ns/page", "v2 ns/page"], rows))
    gb, b, a = XEN_ARM
    lines += ["", f"Arm64 Neoverse N1, {gb} GB: {b} ms -> {a} ms "
              f"({xen_ns_per_page(gb, b):.2f} -> {xen_ns_per_page(gb, a):.2f} ns/page by the same derivation).",
              ""]
    return lines


def render_markdown(sweep, plot_note=None):
    """report.md for a loaded Sweep."""
    emulated = sweep.emulated
    info = sweep.info
    stats = [SizeStats(run) for run in sweep.sizes]
    L = [f"# bootheap benchmark: {os.path.basename(sweep.folder.rstrip('/'))}", ""]
    if emulated:
        L += [f"> **{TCG_LABEL}.**", "> These numbers come from QEMU's TCG emulator: they show "
              "relative behaviour at best, and are not set beside Xen's figures.", ""]
    accels = ", ".join(a.upper() for a in sweep.accels) or "unknown"
    strategies = []
    for ss in stats:
        strategies += [s for s in ss.strategies if s not in strategies]
    runs = info.get("runs") or ", ".join(sorted({str(r.first("bench").get("runs"))
                                                for r in sweep.sizes if r.first("bench")})) or "unknown"
    L.append(f"Boot path {info.get('mode', 'unknown')}, accelerator {accels}, "
             f"runs {runs}, sizes "
             f"{', '.join(gib_text(r.nbytes) for r in sweep.sizes)}; strategies "
             f"{', '.join(strategies) or 'none recorded'}.")
    for note in info.get("notes", []):
        L += ["", f"Note: {note}"]
    L.append("")

    # Old versus new, one row per size.
    side_by_side = not emulated
    L += ["## Old (page by page) versus new (aligned chunks), init phase", ""]
    headers = ["RAM", "pages", f"{OLD} (old) ms", f"{NEW} (new) ms", "speedup",
               f"{OLD} ns/page", f"{NEW} ns/page", f"{FLOOR} ns/page", f"{NEW} x floor"]
    if side_by_side:
        headers += ["Xen v1 ms (before -> after)", "Xen v2 ms (before -> after)",
                    "Xen speedup (v1, v2)", "Xen v2 ns/page (before -> after)"]
    rows = []
    for ss in stats:
        old, new, fl = ss.get(OLD), ss.get(NEW), ss.get(FLOOR)
        row = [gib_text(ss.run.nbytes), ss.pages, fmt_ms(old.median if old else None),
               fmt_ms(new.median if new else None), fmt(ss.speedup(NEW), 2),
               fmt(old.per_page() if old else None, 3), fmt(new.per_page() if new else None, 3),
               fmt(fl.per_page() if fl else None, 3), fmt(ss.x_floor(NEW), 2)]
        if side_by_side:
            x = xen_row(ss.run.nbytes)
            row += [f"{x[1]} -> {x[2]}", f"{x[3]} -> {x[4]}", f"{x[1] / x[2]:.2f}, {x[3] / x[4]:.2f}",
                    f"{xen_ns_per_page(x[0], x[3]):.2f} -> {xen_ns_per_page(x[0], x[4]):.2f}"] if x else [""] * 4
        rows.append(row)
    L += [md_table(headers, rows), ""]
    if side_by_side:
        L += ["Xen's columns are its published end_boot_allocator() times (nested KVM, c5.metal) at "
              "the same nominal size; see the derivation of their ns/page below.", ""]

    # Every strategy.
    L += ["## Every strategy, init phase", ""]
    rows = []
    for ss in stats:
        for s in ss.strategies:
            st = ss.get(s)
            if not st:
                continue
            rows.append([gib_text(ss.run.nbytes), s, st.runs, fmt_ms(st.median), fmt_ms(st.min),
                         fmt_ms(st.max), fmt(st.cv, 2), fmt(st.per_page(), 3),
                         fmt(ss.speedup(s), 2) if s != FLOOR else "",
                         fmt(ss.x_floor(s), 2)])
    L += [md_table(["RAM", "strategy", "runs", "median ms", "min ms", "max ms", "cv %", "ns/page",
                    "speedup vs page", "x floor"], rows), ""]
    L += [f"`{FLOOR}` is a plain memset, in the same boot, of the page_info and M2P entries of the "
          "pages handed over: the least an eager init must write. speedup is the median over runs of page[i] / strategy[i], paired by "
          "run index; x floor is the strategy's median over the floor's.", ""]

    # End to end.
    L += ["## End to end: init + first touch, and time to first allocation", ""]
    rows = []
    for ss in stats:
        for s in ss.heap_strategies:
            init, ft = ss.get(s), ss.get(s, FIRST_TOUCH)
            e2e = ss.end_to_end(s)
            rows.append([gib_text(ss.run.nbytes), s, fmt_ms(init.median if init else None),
                         fmt_ms(ft.median if ft else None), fmt_ms(e2e),
                         fmt(init.per_page(e2e) if init and e2e is not None else None, 3),
                         ss.first_alloc(s) if ss.first_alloc(s) is not None else ""])
    L += [md_table(["RAM", "strategy", "init ms", "first touch ms", "init + first touch ms",
                    "end-to-end ns/page", "first allocation ns"], rows), ""]
    L += ["A lazy init escapes the floor only by moving work to the first touch, so compare "
          "strategies on the end-to-end column as well.", ""]

    # Plot.
    L += ["## ns per page against memory size", ""]
    if plot_note:
        L += [plot_note, ""]
    else:
        L += ["![ns per page against memory size](plot.png)", "",
              "Log-log axes; one line per strategy (init phase) and the floor; Xen's published "
              "points are marked" + (" for reference only (KVM, not comparable)" if emulated else "")
              + ". Points at zero cannot sit on a log axis and are left out.", ""]

    L += xen_section(emulated)
    L += [WHY_DIFFERENT]

    # Checks.
    L += ["## Checks", ""]
    any_fail = False
    for ss in stats:
        f = failures(ss.run)
        any_fail |= bool(f)
        for msg in f:
            L.append(f"- **FAILED** {gib_text(ss.run.nbytes)}: {msg}")
    n_checked = 0
    any_disagree = False
    for ss in stats:
        n_checked += len(ss.run.of("summary")) + len(ss.run.of("comparison"))
        for (s, phase), probs in disagreements(ss).items():
            any_disagree = True
            L.append(f"- **DISAGREES** {gib_text(ss.run.nbytes)} {s}/{phase}: "
                     + "; ".join(p for p in probs if p != "absent"))
    for ss in stats:
        for msg in request_mismatch(ss.run):
            L.append(f"- **NOTE** {gib_text(ss.run.nbytes)}: {msg}")
        for p in ss.run.problems:
            L.append(f"- log {ss.run.label}: {p}")
    for p in sweep.problems:
        L.append(f"- {p}")
    if not any_fail:
        L.append("- every boot finished ok; every audit passed and every strategy built the "
                 "same heap (digests equal)")
    if not any_disagree:
        L.append(f"- the kernel's {n_checked} summary/comparison records agree with the host's "
                 "statistics within rounding")
    L.append("")

    # Boots.
    L += ["## Boots", ""]
    rows = []
    for run in sweep.sizes:
        h = run.harness or {}
        memory = "reserve=off" if any("reserve=off" in n for n in h.get("notes", [])) else ""
        rows.append([gib_text(run.nbytes), run.status, "FAILED" if failures(run) else "ok",
                     run.accel.upper(), fmt(h.get("elapsed_s"), 1), memory,
                     f"`{h.get('log') or 'serial-' + run.label + '.log'}`"])
    L += [md_table(["RAM", "boot", "verdict", "accelerator", "wall s", "guest RAM", "serial log"], rows), "",
          "reserve=off: the guest is larger than the host's free RAM, so only the pages it "
          "touches are backed.", ""]
    if "elapsed_s" in info:
        L += [f"Sweep wall time: {info['elapsed_s']:.1f} s.", ""]
    # The speed targets hold for PVH under KVM only.
    if not emulated and info.get("mode") == "pvh":
        for run in sweep.sizes:
            h = run.harness or {}
            if run.nbytes == 8 * GIB and info.get("runs") == DEFAULT_RUNS and "elapsed_s" in h:
                L.append(f"- target: one 8 GiB boot with {DEFAULT_RUNS} runs per strategy under 10 s: "
                         f"{h['elapsed_s']:.1f} s, {'met' if h['elapsed_s'] < 10 else 'MISSED'}")
        if [r.nbytes for r in sweep.sizes] == [g * GIB for g in DEFAULT_SIZES_GIB] and "elapsed_s" in info:
            L.append(f"- target: the default sweep under 3 minutes: {info['elapsed_s']:.1f} s, "
                     f"{'met' if info['elapsed_s'] < 180 else 'MISSED'}")
        L.append("")
    return "\n".join(L)


# ---- plot.png (gnuplot) ----------------------------------------------------------

def gnuplot_terminal():
    """'pngcairo' when gnuplot has it, else 'png'. Fails naming the package."""
    exe = shutil.which("gnuplot")
    if not exe:
        raise BenchError("gnuplot is not installed: install the Debian package gnuplot-nox "
                         "(`make setup` does)")
    r = subprocess.run([exe, "-e", "set terminal"], capture_output=True, text=True)
    listing = r.stdout + r.stderr
    if re.search(r"^\s*pngcairo\s", listing, re.M):
        return "pngcairo"
    if re.search(r"^\s*png\s", listing, re.M):
        return "png"
    raise BenchError("this gnuplot has no PNG terminal: install the Debian package gnuplot-nox")


def gp_str(s):
    """A gnuplot double-quoted string."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def plot_script(sweep, terminal="pngcairo", output="plot.png"):
    """The gnuplot script for plot.png: ns/page (init) against GiB, log-log,
    one line per strategy and the floor, Xen's published points marked."""
    emulated = sweep.emulated
    series = {}                 # strategy -> [(gib, ns_per_page)]
    for run in sweep.sizes:
        ss = SizeStats(run)
        for s in ss.strategies:
            st = ss.get(s)
            if st and st.pages:
                series.setdefault(s, []).append((run.nbytes / GIB, st.per_page()))
    # The floor last so it draws above the others, heap strategies in order.
    names = [s for s in series if s != FLOOR] + ([FLOOR] if FLOOR in series else [])
    xen = {"v1 before": [], "v1 after": [], "v2 before": [], "v2 after": []}
    for gb, b1, a1, b2, a2 in XEN_X86:
        for key, ms in zip(xen, (b1, a1, b2, a2)):
            xen[key].append((gb, xen_ns_per_page(gb, ms)))
    gb, b, a = XEN_ARM
    xen["Arm64 N1 before -> after"] = [(gb, xen_ns_per_page(gb, b)), (gb, xen_ns_per_page(gb, a))]

    xs = [x for pts in list(series.values()) + list(xen.values()) for x, _ in pts]
    title = "bootheap: boot memory to buddy heap, ns per page (init phase)"
    if emulated:
        title += "\n" + TCG_LABEL + "\n(Xen's points: real hardware under KVM, for reference only)"
    out = io.StringIO()
    w = out.write
    w("# SPDX-License-Identifier: MIT\n# Written by bench/bench.py; rerun with: gnuplot plot.gp\n")
    font = ' font "Sans,10"' if terminal == "pngcairo" else ""
    w("set encoding utf8\n")
    w(f"set terminal {terminal} size 1100,700{font}\n")
    w(f"set output {gp_str(output)}\n")
    w(f"set title {gp_str(title)} noenhanced\n")
    w('set xlabel "guest memory (GiB, log scale)"\nset ylabel "ns per page (log scale)"\n')
    w("set logscale x 2\nset logscale y 10\nset grid xtics ytics mytics\n")
    w(f"set xrange [{min(xs) / 1.4:g}:{max(xs) * 1.4:g}]\n")
    ticks = sorted({x for x in xs})
    w("set xtics (" + ", ".join(f'"{t:g}" {t:g}' for t in ticks) + ")\n")
    w("set key below maxcols 3 noenhanced\n")
    plots = []
    for i, s in enumerate(names):
        pts = [(x, y) for x, y in series[s] if y and y > 0]     # log axis: drop zeros
        if not pts:
            continue
        w(f"$s{i} << EOD\n" + "".join(f"{x:g} {y:.6g}\n" for x, y in pts) + "EOD\n")
        if s == FLOOR:
            plots.append(f'$s{i} using 1:2 with linespoints lw 2 dt 2 lc rgb "black" pt 1 '
                         f'title {gp_str("floor (memset of page_info and M2P)")}')
        else:
            plots.append(f"$s{i} using 1:2 with linespoints lw 2 pt 7 title {gp_str(s)}")
    # Xen's points in grey: reference marks, not another curve of this run.
    styles = {"v1 before": "pt 8", "v1 after": "pt 10", "v2 before": "pt 9", "v2 after": "pt 11",
              "Arm64 N1 before -> after": "pt 12"}
    for j, (key, pts) in enumerate(xen.items()):
        w(f"$x{j} << EOD\n" + "".join(f"{x:g} {y:.6g}\n" for x, y in pts) + "EOD\n")
        plots.append(f'$x{j} using 1:2 with points {styles[key]} ps 1.6 lc rgb "#666666" '
                     f'title {gp_str("Xen " + key + " (published)")}')
    w("plot " + ", \\\n     ".join(plots) + "\n")
    return out.getvalue()


def write_plot(sweep, folder):
    """Writes plot.gp and runs gnuplot on it -> path of plot.png."""
    terminal = gnuplot_terminal()
    script = plot_script(sweep, terminal)
    gp = os.path.join(folder, "plot.gp")
    with open(gp, "w", encoding="utf-8") as f:
        f.write(script)
    png = os.path.join(folder, "plot.png")
    if os.path.exists(png):
        os.remove(png)
    r = subprocess.run(["gnuplot", "plot.gp"], cwd=folder, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) == 0:
        raise BenchError(f"gnuplot failed on {gp}:\n{r.stderr.strip()}")
    return png


def write_outputs(sweep):
    """summary.csv, plot.png and report.md in the sweep's folder -> (report
    path, plot error or None)."""
    folder = sweep.folder
    write_csv(sweep, os.path.join(folder, "summary.csv"))
    plot_error = None
    try:
        write_plot(sweep, folder)
    except BenchError as e:
        plot_error = str(e)
    note = f"No plot: {plot_error}" if plot_error else None
    report = os.path.join(folder, "report.md")
    with open(report, "w", encoding="utf-8") as f:
        f.write(render_markdown(sweep, note))
    return report, plot_error


def print_findings(sweep):
    """Failures and disagreements on the terminal -> number of failed boots."""
    failed = 0
    for run in sweep.sizes:
        f = failures(run)
        failed += bool(f)
        for msg in f:
            warn(f"bench: FAILED {gib_text(run.nbytes)}: {msg}")
        for msg in request_mismatch(run):
            warn(f"bench: note {gib_text(run.nbytes)}: {msg}")
        for (s, phase), probs in disagreements(SizeStats(run)).items():
            warn(f"bench: kernel and host statistics DISAGREE at {gib_text(run.nbytes)} {s}/{phase}: "
                 + "; ".join(p for p in probs if p != "absent"))
    return failed


def banner():
    warn("bench: " + "!" * 72)
    warn(f"bench: !! {TCG_LABEL}")
    warn("bench: " + "!" * 72)


# ---- compare -----------------------------------------------------------------------

def compare_rows(a, b):
    """Per size, strategy and phase in both folders: medians, change and a
    noise estimate. The change is within noise when the two runs' min..max
    ranges overlap or it is within twice the combined cv; with a single run
    on either side there is no noise estimate."""
    rows = []
    a_by = {r.nbytes: SizeStats(r) for r in a.sizes}
    b_by = {r.nbytes: SizeStats(r) for r in b.sizes}
    for nbytes in sorted(set(a_by) | set(b_by)):
        sa, sb = a_by.get(nbytes), b_by.get(nbytes)
        keys = []
        for ss in (sa, sb):
            if ss:
                keys += [(s, p) for s in ss.strategies for p in ss.phases(s) if (s, p) not in keys]
        for key in keys:
            x = sa.stats.get(key) if sa else None
            y = sb.stats.get(key) if sb else None
            row = {"nbytes": nbytes, "strategy": key[0], "phase": key[1],
                   "a": x.median if x else None, "b": y.median if y else None,
                   "change_pct": None, "noise_pct": None, "verdict": None}
            if not x or not y:
                row["verdict"] = "only in " + ("B" if y else "A")
            elif x.median == 0:
                row["verdict"] = "A median is zero"
            else:
                change = (y.median - x.median) / x.median * 100
                row["change_pct"] = change
                if x.runs < 2 or y.runs < 2:
                    row["verdict"] = "no noise estimate (1 run)"
                else:
                    noise = 2 * math.hypot(x.cv, y.cv)
                    row["noise_pct"] = noise
                    overlap = x.min <= y.max and y.min <= x.max
                    if overlap or abs(change) <= noise:
                        row["verdict"] = "within noise"
                    else:
                        row["verdict"] = "faster" if change < 0 else "slower"
                if x.pages != y.pages:
                    row["verdict"] += f" (pages differ: {x.pages} vs {y.pages})"
            rows.append(row)
    return rows


def compare_text(a, b):
    lines = []
    if a.emulated or b.emulated:
        lines.append(f"!! {TCG_LABEL}")
    if a.accels != b.accels:
        lines.append(f"!! A ran under {'/'.join(x.upper() for x in a.accels)} and B under "
                     f"{'/'.join(x.upper() for x in b.accels)}: the change says nothing about the code")
    for name, sweep in (("A", a), ("B", b)):
        for run in sweep.sizes:
            for msg in failures(run):
                lines.append(f"!! {name} {gib_text(run.nbytes)} FAILED: {msg}")
    lines += [f"A: {a.folder}", f"B: {b.folder}", ""]
    headers = ["RAM", "strategy", "phase", "A median ms", "B median ms", "change %", "noise ±%", "verdict"]
    table = [headers]
    for r in compare_rows(a, b):
        table.append([gib_text(r["nbytes"]), r["strategy"], r["phase"], fmt_ms(r["a"]), fmt_ms(r["b"]),
                      "" if r["change_pct"] is None else f"{r['change_pct']:+.2f}",
                      fmt(r["noise_pct"], 2), r["verdict"]])
    widths = [max(len(str(row[i])) for row in table) for i in range(len(headers))]
    for row in table:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    real = [r for r in compare_rows(a, b) if r["verdict"].startswith(("faster", "slower"))]
    lines += ["", f"{len(real)} of {len(table) - 1} changes are beyond noise.",
              "change = (B - A) / A on the medians; noise = 2 x sqrt(cv_A^2 + cv_B^2); "
              "within noise when that covers the change or the min..max ranges overlap."]
    return "\n".join(lines)


# ---- run ---------------------------------------------------------------------------

def plan(args, accel):
    """(sizes in bytes, runs, notes) for a sweep under `accel`."""
    notes = []
    if args.quick:
        sizes, runs = [s * GIB for s in QUICK_SIZES_GIB], QUICK_RUNS
    elif accel == "tcg":
        sizes, runs = [s * GIB for s in TCG_SIZES_GIB], TCG_RUNS
        if args.sizes is None:
            notes.append(f"TCG: reduced default sweep ({TCG_RUNS} runs per strategy instead of "
                         f"{DEFAULT_RUNS}) because every boot is emulated; "
                         "pass --sizes (and --runs) for another sweep.")
    else:
        sizes, runs = [s * GIB for s in DEFAULT_SIZES_GIB], DEFAULT_RUNS
    if args.sizes is not None:
        sizes = parse_sizes(args.sizes)
    if args.runs is not None:
        if args.runs < 1:
            raise BenchError("--runs must be at least 1")
        runs = args.runs
    return sizes, runs, notes


def kernel_args(runs, strategies):
    append = f"runs={runs}"
    if strategies:
        names = [s.strip() for s in strategies.split(",") if s.strip()]
        for s in names:
            if not re.fullmatch(r"[a-z0-9_]+", s):
                raise BenchError(f"bad strategy name {s!r} in --strategies")
        append += " strategies=" + ",".join(names)
    return append


def make_out_dir(out):
    if out is None:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
        out = os.path.join(ROOT, "results", stamp)
        n = 1
        while os.path.exists(out):
            n += 1
            out = os.path.join(ROOT, "results", f"{stamp}-{n}")
    if os.path.isdir(out) and os.listdir(out):
        raise BenchError(f"{out} is not empty: choose another --out")
    os.makedirs(out, exist_ok=True)
    return out


def cmd_run(args):
    notes_from_qemu = []
    accel = qemu.choose_accel(args.accel, args.mode, say=lambda m: notes_from_qemu.append(m))
    for m in notes_from_qemu:
        say("bench: " + m.replace("harness: ", ""))
    sizes, runs, notes = plan(args, accel)
    append = kernel_args(runs, args.strategies)
    out = make_out_dir(args.out)
    emulated = accel == "tcg"
    if emulated:
        banner()
    for n in notes:
        say(f"bench: {n}")
    say(f"bench: {args.mode} under {accel.upper()}, sizes {', '.join(gib_text(s) for s in sizes)}, "
        f"kernel args '{append}', results in {out}")
    info = {"type": "sweep", "mode": args.mode, "accel_requested": args.accel, "accel": accel,
            "sizes_bytes": sizes, "runs": runs, "strategies": args.strategies or "",
            "append": append, "notes": notes, "quick": bool(args.quick),
            "started": datetime.datetime.now().isoformat(timespec="seconds"),
            "host_mem_available": qemu.mem_available()}
    jsonl_path = os.path.join(out, "records.jsonl")
    start = time.monotonic()
    interrupted = False
    with open(jsonl_path, "w", encoding="utf-8") as jf:
        def put(nbytes, source, rec):
            jf.write(json.dumps({"size_bytes": nbytes, "size": size_label(nbytes) if nbytes else None,
                                 "size_gib": nbytes / GIB if nbytes else None,
                                 "source": source, "record": rec}) + "\n")
            jf.flush()
        put(None, "harness", info)
        for k, nbytes in enumerate(sizes, 1):
            label = size_label(nbytes)
            log_name = f"serial-{label}.log"
            said = []

            def collect(*a):
                said.append(" ".join(str(x) for x in a))
            say(f"bench: [{k}/{len(sizes)}] {gib_text(nbytes)}: booting ...")
            try:
                r = qemu.boot(mode=args.mode, mem=f"{nbytes // MIB}M", append=append, accel=accel,
                              timeout=args.timeout, quiet=not args.verbose,
                              log_path=os.path.join(out, log_name), say=collect)
            except KeyboardInterrupt:
                interrupted = True
                warn("bench: interrupted; writing what was collected")
                break
            except (RuntimeError, ValueError) as e:
                raise BenchError(str(e))
            # Keep what the runner said that matters for reading the numbers
            # (reserve=off, QEMU errors); the full command goes to records.jsonl.
            notes = [m.replace("harness: ", "") for m in said
                     if not m.startswith("harness: qemu-system") and "accelerator" not in m]
            for m in said if args.verbose else notes:
                say("bench:   " + m.replace("harness: ", ""))
            records, problems = parse_serial(r.log)
            for rec in records:
                put(nbytes, "kernel", rec)
            put(nbytes, "harness", {"type": "boot_result", "status": r.status, "qemu_rc": r.qemu_rc,
                                    "accel": r.accel, "mode": args.mode, "append": append,
                                    "elapsed_s": round(r.elapsed, 3), "log": log_name,
                                    "parse_problems": problems, "notes": notes, "cmd": r.cmd})
            run = SizeRun(nbytes)
            run.records, run.harness = records, {"status": r.status, "qemu_rc": r.qemu_rc, "accel": r.accel}
            f = failures(run)
            tag = f" [{TCG_LABEL}]" if r.accel == "tcg" else ""
            say(f"bench: [{k}/{len(sizes)}] {gib_text(nbytes)}: {'ok' if not f else 'FAILED'} "
                f"in {r.elapsed:.1f} s{tag}")
            for msg in f:
                warn(f"bench:   {msg} (serial log: {os.path.join(out, log_name)})")
        info["elapsed_s"] = round(time.monotonic() - start, 3)
    # The sweep record goes first in the file; rewrite it with the wall time.
    with open(jsonl_path, encoding="utf-8") as f:
        lines = f.readlines()
    lines[0] = json.dumps({"size_bytes": None, "size": None, "size_gib": None,
                           "source": "harness", "record": info}) + "\n"
    with open(jsonl_path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return finish(load_folder(out), interrupted)


def finish(sweep, interrupted=False):
    report, plot_error = write_outputs(sweep)
    failed = print_findings(sweep)
    if sweep.emulated:
        banner()
    say(f"bench: report: {report}")
    if plot_error:
        warn(f"bench: {plot_error}")
    if failed:
        warn(f"bench: {failed} of {len(sweep.sizes)} boot(s) FAILED; what was collected is in {sweep.folder}")
    if interrupted:
        return 130
    return 1 if failed or plot_error else 0


def cmd_report(args):
    return finish(load_folder(args.folder))


def cmd_compare(args):
    say(compare_text(load_folder(args.a), load_folder(args.b)))
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    # `run` is the default subcommand: `bench.py --sizes 1,2` means `bench.py run --sizes 1,2`.
    if not argv or (argv[0] not in ("run", "report", "compare", "-h", "--help")):
        argv.insert(0, "run")
    ap = argparse.ArgumentParser(
        prog="bench.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="bootheap's benchmark harness: boot a sweep (run, the default), rewrite a "
                    "results folder's outputs (report), or compare two results folders (compare).",
        epilog="examples:\n  bench/bench.py --sizes 4,8 --runs 5\n  bench/bench.py report results/<date-time>\n"
               "  bench/bench.py compare results/<before> results/<after>")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="boot a sweep of memory sizes and report it",
                       description=f"Sizes default to {','.join(map(str, DEFAULT_SIZES_GIB))} GiB with "
                       f"{DEFAULT_RUNS} runs under KVM, and to {','.join(map(str, TCG_SIZES_GIB))} GiB "
                       f"with {TCG_RUNS} runs under TCG; --sizes and --runs always win.")
    r.add_argument("--sizes", help="GiB list, e.g. 1,2,4 or 0.5 (units like 512M also work)")
    r.add_argument("--runs", type=int, help="runs per strategy (kernel arg runs=N)")
    r.add_argument("--strategies", help="comma list passed as strategies=...; default: the kernel's")
    r.add_argument("--accel", choices=("auto", "kvm", "tcg"), default="auto")
    r.add_argument("--mode", choices=qemu.MODES, default="pvh", help="boot path")
    r.add_argument("--out", help="results folder (default results/<date-time>)")
    r.add_argument("--quick", action="store_true", help=f"sizes {','.join(map(str, QUICK_SIZES_GIB))} GiB, "
                   f"{QUICK_RUNS} runs")
    r.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per boot")
    r.add_argument("--verbose", "-v", action="store_true", help="show the serial output and QEMU command")
    p = sub.add_parser("report", help="rewrite summary.csv, report.md and plot.png of a results folder")
    p.add_argument("folder")
    c = sub.add_parser("compare", help="per-strategy change from results folder A to B")
    c.add_argument("a")
    c.add_argument("b")
    args = ap.parse_args(argv)
    try:
        return {"run": cmd_run, "report": cmd_report, "compare": cmd_compare}[args.cmd](args)
    except BenchError as e:
        warn(f"bench: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
