# SPDX-License-Identifier: MIT
"""Whether hosted figures repeat: two sweeps' headline figures for every
strategy-size side by side with their difference (`run --hosted --repeat`,
`make bench-host-repeat`, `repeat A B`), and how well each estimator a
headline could use (median, minimum, trimmed mean) repeats between them,
which is how the report's headline estimator was chosen."""
import os
import statistics

from harness.common import GIB, gib_text, md_table
from harness.report.cputime import ESTIMATORS, HEADLINE, cpu_times, headline
from harness.results.stats import INIT, LATER

# Two sweeps agree on a strategy-size when their headlines differ by at
# most this, from this size up (issue 28's target).
AGREE = 0.03
FROM_BYTES = 8 * GIB
FIRST_ALLOC = "first_alloc"


def figures(sweep, estimator=HEADLINE):
    """{(size bytes, strategy, phase): ns a page} by CPU time, for every
    init window, every peer's later part and first allocation."""
    out = {}
    for run in sweep.sizes:
        pages = (run.first("bench") or {}).get("pages")
        if not pages:
            continue
        for (s, phase), by in cpu_times(run).items():
            if phase in (INIT, FIRST_ALLOC) + LATER and by:
                out[(run.nbytes, s, phase)] = headline(list(by.values()), estimator) / pages
    return out


def compare(a, b, estimator=HEADLINE):
    """[(size bytes, strategy, phase, A, B, difference as a share of A)] for
    the strategy-sizes both sweeps have, in size order."""
    fa, fb = figures(a, estimator), figures(b, estimator)
    rows = []
    for k in sorted(set(fa) & set(fb)):
        rows.append((*k, fa[k], fb[k], (fb[k] - fa[k]) / fa[k] if fa[k] else None))
    return rows


def agreement(rows):
    """(within AGREE, all, worst |difference|) over the rows from FROM_BYTES up."""
    big = [r for r in rows if r[0] >= FROM_BYTES and r[5] is not None]
    return sum(abs(r[5]) <= AGREE for r in big), len(big), max((abs(r[5]) for r in big), default=0.0)


def compact_table(rows, phase=INIT):
    """One row a size, one column a strategy or floor: `A -> B (difference)`
    for one phase, the shape docs/hosted-speeds.md quotes."""
    names = []
    for r in rows:
        if r[2] == phase and r[1] not in names:
            names.append(r[1])
    by = {(r[0], r[1]): r for r in rows if r[2] == phase}
    lines = []
    for nbytes in sorted({r[0] for r in rows if r[2] == phase}):
        cells = []
        for n in names:
            r = by.get((nbytes, n))
            cells.append(f"{r[3]:.3f} / {r[4]:.3f} ({r[5]:+.1%})" if r and r[5] is not None else "")
        lines.append([gib_text(nbytes)] + cells)
    return md_table(["RAM"] + names, lines)


def _shown(folder):
    """A folder as a reader finds it: from here when it lies below, else whole."""
    rel = os.path.relpath(folder)
    return rel if not rel.startswith("..") else os.path.abspath(folder)


def repeat_text(a, b):
    """The markdown that says how sweep b repeats sweep a."""
    rows = compare(a, b)
    L = ["# Two sweeps, back to back", "",
         f"A: {_shown(a.folder)}", f"B: {_shown(b.folder)}", "",
         f"Headline: the {HEADLINE} over runs of each window's CPU time a page (a repeated window "
         "counts as its mean repetition; a floor as its fastest way each run). Difference is B over A "
         f"less one; within {AGREE:.0%} counts from {gib_text(FROM_BYTES)} up.", ""]
    for s, label in ((a, "A"), (b, "B")):
        hosts = [r.first("host") for r in s.sizes if r.first("host")]
        if hosts:
            L.append(f"- {label}: load average {min(h['load_start'] for h in hosts):.2f} to "
                     f"{max(h['load_end'] for h in hosts):.2f}, "
                     f"{s.info.get('elapsed_s', 0):.1f} s, runs {s.info.get('runs', '?')}")
    within, n, worst = agreement(rows)
    L += ["", f"From {gib_text(FROM_BYTES)} up: {within} of {n} strategy-sizes within {AGREE:.0%} "
          f"(worst {worst:.1%}): {'met' if n and within == n else 'MISSED'}.", ""]
    study = []
    for est in ESTIMATORS:
        w, m, bad = agreement(compare(a, b, est))
        diffs = sorted(abs(r[5]) for r in compare(a, b, est) if r[0] >= FROM_BYTES and r[5] is not None)
        study.append([est + (" (the headline)" if est == HEADLINE else ""), f"{w} of {m}",
                      f"{statistics.median(diffs):.2%}" if diffs else "", f"{bad:.1%}"])
    L += ["## Which estimator repeats", "",
          md_table(["estimator", f"within {AGREE:.0%}", "median |difference|", "worst"], study), ""]
    L += ["## The init windows, a column a strategy", "", "ns a page, A / B (difference):", "",
          compact_table(rows), ""]
    L += ["## Every strategy-size", "",
          md_table(["RAM", "strategy", "phase", "A ns/page", "B ns/page", "difference"],
                   [[gib_text(r[0]), r[1], r[2], f"{r[3]:.4f}", f"{r[4]:.4f}",
                     f"{r[5]:+.1%}" if r[5] is not None else ""] for r in rows]), ""]
    return "\n".join(L)
