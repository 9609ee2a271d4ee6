# SPDX-License-Identifier: MIT
"""The outputs of a results folder: summary.csv, report.md (written by
harness/report/markdown.py), plot.png (harness/report/plot.py), and the
findings on the terminal."""
import csv
import os

from harness.common import GIB, TCG_LABEL, BenchError, fmt, gib_text, say, warn
from harness.report.intervals import cell, ratio_intervals, window_intervals
from harness.report.markdown import render_markdown
from harness.report.plot import write_plot
from harness.results.stats import (FLOOR, INIT, SizeStats, check_text, cross_check, disagreements, failures,
                                   request_mismatch)


CSV_COLUMNS = ["size_gib", "mem_bytes", "pages", "accel", "emulated", "timings", "status",
               "strategy", "phase", "runs", "median_ns", "min_ns", "max_ns", "cv_pct",
               "ns_per_page", "speedup_vs_page", "x_floor", "init_plus_first_touch_ns",
               "init_plus_first_touch_ns_per_page", "first_alloc_median_ns", "kernel_check",
               "cpu_ns_per_page", "cpu_interval_lo", "cpu_interval_hi", "cpu_interval",
               "ratio_intervals"]


def csv_rows(results):
    rows = []
    for run in results.sizes:
        ss, cpu, ratios = SizeStats(run), window_intervals(run), ratio_intervals(run)
        checks = cross_check(ss)
        timings = TCG_LABEL if run.emulated else {"kvm": "KVM", "host": "hosted (user space, real CPU)"}.get(
            run.accel, "unknown accelerator")
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
                iv = cpu.get((s, phase))
                if iv is not None:
                    # By CPU time (hosted): the median a page and its 95 % interval, or why none.
                    row.update(cpu_ns_per_page=fmt(iv.median, 4), cpu_interval_lo=fmt(iv.lo, 4),
                               cpu_interval_hi=fmt(iv.hi, 4), cpu_interval=iv.text(4))
                if phase == INIT and ratios:
                    row["ratio_intervals"] = "; ".join(f"{a}/{b} {cell(v, 3)}" for (a, b), v in ratios.items()
                                                       if s in (a, b))
                if phase == INIT and s != FLOOR:
                    e2e = ss.end_to_end(s)
                    row.update(speedup_vs_page=fmt(ss.speedup(s), 2), x_floor=fmt(ss.x_floor(s), 2),
                               init_plus_first_touch_ns=e2e if e2e is not None else "",
                               init_plus_first_touch_ns_per_page=fmt(st.per_page(e2e) if e2e is not None else None, 3),
                               first_alloc_median_ns=ss.first_alloc(s) if ss.first_alloc(s) is not None else "")
                rows.append(row)
    return rows


def write_csv(results, path):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="")
        w.writeheader()
        for row in csv_rows(results):
            w.writerow(row)


def write_outputs(results):
    """summary.csv, plot.png and report.md in the results folder -> (report
    path, plot error or None)."""
    folder = results.folder
    write_csv(results, os.path.join(folder, "summary.csv"))
    plot_error = None
    try:
        write_plot(results, folder)
    except BenchError as e:
        plot_error = str(e)
    note = f"No plot: {plot_error}" if plot_error else None
    report = os.path.join(folder, "report.md")
    with open(report, "w", encoding="utf-8") as f:
        f.write(render_markdown(results, note))
    return report, plot_error


def print_findings(results):
    """Failures and disagreements on the terminal -> number of failed boots."""
    failed = 0
    for run in results.sizes:
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


def problems(results):
    """What could not be read: the folder's lines, and each boot's log."""
    return results.problems + [f"log {run.label}: {p}" for run in results.sizes for p in run.problems]


def finish(results, interrupted=False):
    """Writes the outputs and says what they found -> 0, 1 when a boot
    failed, gnuplot failed, a record could not be read or a planned size
    has no records (a run stopped before it), 130 when the run was
    interrupted."""
    report, plot_error = write_outputs(results)
    failed = print_findings(results)
    unread = problems(results)
    for p in unread:
        warn(f"bench: UNREADABLE {p}")
    if results.missing:
        warn(f"bench: the run stopped before {', '.join(gib_text(n) for n in results.missing)}: "
             "the report covers the sizes it finished")
    if results.emulated:
        banner()
    say(f"bench: report: {report}")
    if plot_error:
        warn(f"bench: {plot_error}")
    if failed:
        warn(f"bench: {failed} of {len(results.sizes)} boot(s) FAILED; what was collected is in {results.folder}")
    if unread:
        warn(f"bench: {len(unread)} record line(s) of {results.folder} could not be read: the report "
             "leaves them out")
    if interrupted:
        return 130
    return 1 if failed or plot_error or unread or results.missing else 0


