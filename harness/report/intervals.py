# SPDX-License-Identifier: MIT
"""The 95 % intervals of a hosted run's headlines (harness/results/intervals.py):
every window's median CPU time a page with its interval, the ratios the
report prints (page/chunk, results/floor, chunk/results), each taken within a
run and then given its interval, the windows left wider than the run's
target, and the report's section of them."""
import statistics

from harness.common import GIB, gib_text, md_table
from harness.report.cputime import SHARED, cpu_times, shared_touch
from harness.results.intervals import CONFIDENCE, NO_INTERVAL, Interval, ratio_interval
from harness.results.stats import FIRST_TOUCH, FLOOR, INIT, NEW, OLD, SWEEP

# The target: a half-width of at most HALF_WIDTH for windows of at least
# TARGET_NS (one repetition), from TARGET_FROM up (issue 37).
HALF_WIDTH = 0.05
TARGET_NS = 1_000_000
TARGET_FROM = 8 * GIB
# The ratios the report prints: numerator, denominator, both init windows.
RATIOS = ((OLD, NEW), (SWEEP, FLOOR), (NEW, SWEEP))


def pages_of(run):
    return (run.first("bench") or {}).get("pages")


def window_intervals(run):
    """{(strategy, phase): Interval of CPU ns a page} of one size; the first
    touch the eager strategies shared (touch_shared) is one window, SHARED."""
    pages = pages_of(run)
    if not pages:
        return {}
    shared, out, pooled = shared_touch(run), {}, []
    for (s, phase), by in cpu_times(run).items():
        if s in shared and phase == FIRST_TOUCH:
            pooled += by.values()
        elif by:
            out[(s, phase)] = Interval(by.values()).scaled(pages)
    if pooled:
        out[(SHARED, FIRST_TOUCH)] = Interval(pooled).scaled(pages)
    # A window with results but no CPU time left (every run of it lost) has no interval.
    for r in run.of("result") if out else []:
        k = (r.get("strategy"), r.get("phase", INIT))
        if k not in out and not (k[0] in shared and k[1] == FIRST_TOUCH):
            out[k] = Interval([])
    return out


def ratio_intervals(run):
    """{(num, den): Interval} of the ratios of RATIOS the size has, run by run."""
    cpu = cpu_times(run)
    return {(a, b): ratio_interval(cpu[(a, INIT)], cpu[(b, INIT)]) for a, b in RATIOS
            if (a, INIT) in cpu and (b, INIT) in cpu}


def cell(iv, digits=3):
    """`median [lo-hi]`, or `median (no interval: n runs)`."""
    if iv.median is None:
        return iv.text()
    if not iv.known:
        return f"{iv.median:.{digits}f} ({iv.text()})"
    return f"{iv.median:.{digits}f} [{iv.text(digits)}]"


def target(results):
    """The run's half-width target (its `run` record, else HALF_WIDTH)."""
    return results.info.get("interval_target") or HALF_WIDTH


def counted(run, k, iv):
    """Whether a window counts toward the half-width target."""
    return run.nbytes >= TARGET_FROM and iv.median is not None and iv.median * pages_of(run) >= TARGET_NS \
        and k[1] == INIT


def wide_windows(results, width=None, sizes=None):
    """[(size bytes, strategy, phase, half-width or None)] of the windows of
    1 ms and more whose interval is wider than width, or missing; from
    TARGET_FROM up, or at the sizes given."""
    width = target(results) if width is None else width
    out = []
    for run in results.sizes:
        if sizes is not None and run.nbytes not in sizes:
            continue
        for k, iv in sorted(window_intervals(run).items()):
            if (counted(run, k, iv) or sizes is not None and k[1] == INIT and iv.median and
                    iv.median * pages_of(run) >= TARGET_NS) and (not iv.known or iv.half_width > width):
                out.append((run.nbytes, k[0], k[1], iv.half_width))
    return out


def half_widths(results):
    """The half-widths of the counted windows that have an interval."""
    return [iv.half_width for run in results.sizes for k, iv in window_intervals(run).items()
            if counted(run, k, iv) and iv.known]


def wide_text(rows, limit=12):
    """The windows left wide, named: `chunk 8 GiB 6.1%`, `lazy 1024 GiB no interval`."""
    names = [f"{s} {gib_text(n)} " + (f"{h:.1%}" if h is not None else NO_INTERVAL) for n, s, _, h in rows]
    return ", ".join(names[:limit]) + (f", and {len(names) - limit} more" if len(names) > limit else "")


def summary_line(results):
    """The width reached, in words: the median half-width of the counted windows and those left wide."""
    hw, wide = half_widths(results), wide_windows(results)
    t = target(results)
    text = (f"median half-width {statistics.median(hw):.1%} over {len(hw)} init windows of 1 ms and more "
            f"from {gib_text(TARGET_FROM)} up (target {t:.0%})" if hw else
            f"no init window of 1 ms and more from {gib_text(TARGET_FROM)} up has an interval")
    if wide:
        text += f"; wider than {t:.0%} or without an interval: {wide_text(wide)}"
    return text, bool(hw) and statistics.median(hw) <= t


def interval_section(results):
    """report.md's section: every window's median and 95 % interval, the ratios' beside them."""
    rows, ratio_rows = [], []
    for run in results.sizes:
        for (s, phase), iv in window_intervals(run).items():
            rows.append([gib_text(run.nbytes), s, phase, iv.n, cell(iv) if iv.n else f"({iv.text()})",
                         f"{iv.half_width:.1%}" if iv.known else NO_INTERVAL])
        ratios = ratio_intervals(run)
        if ratios:
            ratio_rows.append([gib_text(run.nbytes)] + [cell(ratios[r], 2) if r in ratios else ""
                                                        for r in RATIOS])
    if not rows:
        return []
    text, _ = summary_line(results)
    return ["## Hosted: 95 % intervals", "",
            f"Each window's median CPU time a page over its runs, with the {CONFIDENCE:.0%} interval of "
            "that median between two of its runs' order statistics (distribution-free: "
            "docs/hosted-speeds.md says why this and not a bootstrap). Six runs are the fewest whose "
            f"extremes reach {CONFIDENCE:.0%} (96.9 %); with fewer, or with every run of a window lost, "
            f"the figure says `{NO_INTERVAL}`. The ratios are taken within each run, then given the same "
            "interval over the runs.", "",
            md_table(["RAM", "strategy", "phase", "runs", f"ns/page, median [{CONFIDENCE:.0%} interval]",
                      "half-width"], rows), "",
            md_table(["RAM"] + [f"{a}/{b}, median [{CONFIDENCE:.0%} interval]" for a, b in RATIOS],
                     ratio_rows), "",
            f"Width reached: {text}.", ""]
