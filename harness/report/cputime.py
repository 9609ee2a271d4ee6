# SPDX-License-Identifier: MIT
"""The CPU time of a hosted run's windows, as every report reads it: a
window's figure a run (one repetition's, a floor's fastest way), the
headline over runs and the estimators it was chosen from, the core's
clock beside the windows, and which windows shared their core."""
import statistics

from harness.report.probe import believed
from harness.results.stats import FIRST_TOUCH, median


def trimmed_mean(values):
    """The mean of what is left once the fastest and the slowest fifth (at
    least one each, from three values up) are dropped: with three runs, the
    median."""
    s = sorted(values)
    k = max(1, len(s) // 5) if len(s) >= 3 else 0
    return statistics.fmean(s[k:len(s) - k])


# Every estimator a headline could use; HEADLINE is the one the reports use,
# chosen by how each repeated between two runs over sizes (docs/hosted-speeds.md).
ESTIMATORS = {"median": median, "minimum": min, "trimmed mean": trimmed_mean}
HEADLINE = "median"


def headline(values, estimator=HEADLINE):
    """The headline of one strategy-size's runs (ns a repetition each)."""
    return ESTIMATORS[estimator](list(values))


def cpu_times(run):
    """{(strategy, phase): {run index: CPU ns}} from the cpu_time records of
    one size: ns a repetition where a window was repeated, and for a floor
    timed several ways (its `way`) the fastest of them in that run."""
    by = {}
    for r in run.of("cpu_time"):
        runs = by.setdefault((r.get("strategy"), r.get("phase")), {})
        ns = r.get("ns", 0)
        if r.get("run") not in runs or ns < runs[r.get("run")]:
            runs[r.get("run")] = ns
    return by


def repetitions(run):
    """{(strategy, phase): median repetitions a run} of the windows repeated
    (bench/measure.h); a window timed once is not listed."""
    by = {}
    for r in run.of("cpu_time"):
        if not r.get("way"):
            by.setdefault((r.get("strategy"), r.get("phase")), []).append(r.get("reps") or 1)
    return {k: median(v) for k, v in by.items() if max(v) > 1}


def clock_mhz(run):
    """{(strategy, phase): median core MHz} of the clock probes beside each window."""
    by = {}
    for r in run.of("cpu_time"):
        if r.get("mhz"):
            by.setdefault((r.get("strategy"), r.get("phase")), []).append(r["mhz"])
    return {k: median(v) for k, v in by.items()}


# A window whose core issued under this share of the run's best
# (adds_per_cycle_x100 in its cpu_time record) shared its core with
# another thread: an SMT sibling on the machine's host.
SHARED_CORE = 0.9


def shared_core(results):
    """(best adds_per_cycle_x100 of the run over sizes, {(size bytes, strategy,
    phase): windows on a shared core}); (0, {}) when no record has it.
    Only sizes whose probes are believed count (harness/report/probe.py);
    the others' windows are left out, and their count is unknown."""
    sizes = [run for run in results.sizes if believed(run)[1]]
    best = max((r.get("adds_per_cycle_x100") or 0 for run in sizes for r in run.of("cpu_time")), default=0)
    runs = {}
    for run in sizes:
        for r in run.of("cpu_time"):
            k = (run.nbytes, r.get("strategy"), r.get("phase"))
            # A floor's ways are windows of one run: the run counts once.
            if 0 < (r.get("adds_per_cycle_x100") or 0) < best * SHARED_CORE:
                runs.setdefault(k, set()).add(r.get("run"))
            else:
                runs.setdefault(k, set())
    return best, {k: len(v) for k, v in runs.items()}


# The row of a first touch the eager strategies shared (touch_shared).
SHARED = "eager (shared)"


def shared_touch(run):
    """The strategies whose first touch was timed once a run for all of them."""
    out = set()
    for r in run.of("result"):
        if r.get("phase") == FIRST_TOUCH and r.get("shared_from"):
            out |= {r.get("strategy"), r["shared_from"]}
    return out


def cpu_medians(run):
    """{(strategy, phase): headline ns} of the cpu_time records of one size."""
    return {k: headline(v.values()) for k, v in cpu_times(run).items()}
