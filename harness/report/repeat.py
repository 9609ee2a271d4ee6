# SPDX-License-Identifier: MIT
"""Whether hosted figures repeat: two runs over sizes' headline figures for every
strategy-size side by side with their difference (`run --hosted --repeat`,
`make bench-host MODE=repeat`, `repeat A B`), and how well each estimator a
headline could use (median, minimum, trimmed mean) repeats between them,
which is how the report's headline estimator was chosen."""
import os
import statistics

from harness.common import GIB, gib_text, md_table
from harness.report.cputime import ESTIMATORS, HEADLINE, cpu_times, headline
from harness.report.intervals import summary_line, window_intervals
from harness.results.intervals import CONFIDENCE, binomial_upper, exchanged
from harness.results.stats import INIT, LATER

# Two runs over sizes agree on a strategy-size when their headlines differ by at
# most this, from this size up (issue 28's target).
AGREE = 0.03
FROM_BYTES = 8 * GIB
# Each run's headline inside the other's 95 % interval for this share of
# the strategy-sizes from FROM_BYTES up (issue 37).
INSIDE_TARGET = 0.90
# The permutation test's level: two runs over sizes differ at a strategy-size beyond
# their runs' spread when fewer than this share of the splits of their
# pooled runs set the medians as far apart.
DIFFER_P = 0.05
FIRST_ALLOC = "first_alloc"


def figures(results, estimator=HEADLINE):
    """{(size bytes, strategy, phase): ns a page} by CPU time, for every
    init window, every peer's later part and first allocation."""
    out = {}
    for run in results.sizes:
        pages = (run.first("bench") or {}).get("pages")
        if not pages:
            continue
        for (s, phase), by in cpu_times(run).items():
            if phase in (INIT, FIRST_ALLOC) + LATER and by:
                out[(run.nbytes, s, phase)] = headline(list(by.values()), estimator) / pages
    return out


def compare(a, b, estimator=HEADLINE):
    """[(size bytes, strategy, phase, A, B, difference as a share of A)] for
    the strategy-sizes both runs have, in size order."""
    fa, fb = figures(a, estimator), figures(b, estimator)
    rows = []
    for k in sorted(set(fa) & set(fb)):
        rows.append((*k, fa[k], fb[k], (fb[k] - fa[k]) / fa[k] if fa[k] else None))
    return rows


def intervals(results):
    """{(size bytes, strategy, phase): Interval of ns a page} of the windows figures() holds."""
    out = {}
    for run in results.sizes:
        for (s, phase), iv in window_intervals(run).items():
            if phase in (INIT, FIRST_ALLOC) + LATER:
                out[(run.nbytes, s, phase)] = iv
    return out


def crossed(a, b):
    """[(size bytes, strategy, phase, A's Interval, B's, B's median inside
    A's interval, A's inside B's)] for the strategy-sizes both runs have;
    an inside is None where that interval is missing."""
    ia, ib = intervals(a), intervals(b)
    return [(*k, ia[k], ib[k], ia[k].holds(ib[k].median), ib[k].holds(ia[k].median))
            for k in sorted(set(ia) & set(ib))]


def verdict(rows):
    """(both inside, with both intervals, all) over the crossed rows from FROM_BYTES up."""
    big = [r for r in rows if r[0] >= FROM_BYTES]
    known = [r for r in big if r[5] is not None and r[6] is not None]
    return sum(bool(r[5] and r[6]) for r in known), len(known), len(big)


def exchange(rows):
    """What honest intervals would give over the crossed rows from FROM_BYTES
    up with an interval in both runs, were both runs draws of one host
    (harness/results/intervals.py, exchanged) -> (rows, the strategy-sizes
    expected inside each other's interval, [(row, p)] of those whose runs
    differ beyond their runs' spread, the most of those chance gives)."""
    known = [r for r in rows if r[0] >= FROM_BYTES and r[3].known and r[4].known]
    ex = [exchanged(r[3], r[4]) for r in known]
    differ = [(r, e[1]) for r, e in zip(known, ex) if e[1] < DIFFER_P]
    return known, sum(e[0] for e in ex), differ, binomial_upper(len(known), DIFFER_P)


def exchange_lines(cross):
    """repeat.md's lines on how honest the intervals are, by exchange()."""
    known, expected, differ, chance = exchange(cross)
    if not known:
        return []
    inside = sum(bool(r[5] and r[6]) for r in known)
    named = ", ".join(f"{r[1]} {r[2]} {gib_text(r[0])} (p {p:.3g})" for r, p in differ[:8])
    return [f"- Were A and B draws of one host (each strategy-size's runs pooled and split every way "
            f"into two runs' worth), {expected:.1f} of the {len(known)} would lie inside each other's "
            f"interval ({expected / len(known):.0%}), against {inside} measured: two medians both "
            f"move, so honest {CONFIDENCE:.0%} intervals hold each other's medians less often than "
            f"{CONFIDENCE:.0%}.",
            f"- Runs over sizes that differ beyond their runs' spread (a permutation test of the two medians, "
            f"p < {DIFFER_P:.0%}): {len(differ)} of {len(known)}"
            + (f" ({named}{', ...' if len(differ) > 8 else ''})" if differ else "")
            + f"; chance alone gives up to {chance} of {len(known)} {CONFIDENCE:.0%} of the time: "
            + ("the two runs are draws of one host, as far as their runs can tell."
               if len(differ) <= chance else "MORE: the host moved between the two runs beyond what "
               "their runs sample.")]


def _inside(x):
    return "no interval" if x is None else "yes" if x else "NO"


def agreement(rows):
    """(within AGREE, all, worst |difference|) over the rows from FROM_BYTES up."""
    big = [r for r in rows if r[0] >= FROM_BYTES and r[5] is not None]
    return sum(abs(r[5]) <= AGREE for r in big), len(big), max((abs(r[5]) for r in big), default=0.0)


def compact_table(rows, phase=INIT):
    """One row a size, one column a strategy or floor: `A -> B (difference)`
    for one phase, the shape docs/results-hosted-repeat.md quotes."""
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
    """The markdown that says how run over sizes b repeats run a."""
    rows = compare(a, b)
    L = ["# Two runs over sizes, back to back", "",
         f"A: {_shown(a.folder)}", f"B: {_shown(b.folder)}", "",
         f"Headline: the {HEADLINE} over runs of each window's CPU time a page (a repeated window "
         "counts as its mean repetition; a floor as its fastest way each run). Difference is B over A "
         f"less one; within {AGREE:.0%} counts from {gib_text(FROM_BYTES)} up.", ""]
    for s, label in ((a, "A"), (b, "B")):
        hosts = [h for r in s.sizes for h in r.of("host")]
        if hosts:
            L.append(f"- {label}: load average {min(h['load_start'] for h in hosts):.2f} to "
                     f"{max(h['load_end'] for h in hosts):.2f}, "
                     f"{s.info.get('elapsed_s', 0):.1f} s, runs {s.info.get('runs', '?')}")
    within, n, worst = agreement(rows)
    cross = crossed(a, b)
    inside, known, big = verdict(cross)
    L += ["", f"From {gib_text(FROM_BYTES)} up, by {CONFIDENCE:.0%} intervals: {inside} of {known} strategy-sizes "
          f"with an interval in both runs have each run's headline inside the other's interval "
          f"({inside / known:.0%}; target {INSIDE_TARGET:.0%}): {'met' if known and inside >= INSIDE_TARGET * known else 'MISSED'}"
          if known else f"From {gib_text(FROM_BYTES)} up, by {CONFIDENCE:.0%} intervals: no strategy-size has an "
          "interval in both runs over sizes (six runs are the fewest that give one)", ]
    if known < big:
        L[-1] += f"; {big - known} of {big} without an interval in one run or both"
    L[-1] += "."
    L += exchange_lines(cross)
    for s, label in ((a, "A"), (b, "B")):
        L.append(f"- {label}: {summary_line(s)[0]}.")
    L += ["", f"From {gib_text(FROM_BYTES)} up, by the old rule: {within} of {n} strategy-sizes within {AGREE:.0%} "
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
    by = {(r[0], r[1], r[2]): r for r in cross}
    table = []
    for r in rows:
        c = by.get(r[:3])
        table.append([gib_text(r[0]), r[1], r[2], f"{r[3]:.4f}", f"{r[4]:.4f}",
                      f"{r[5]:+.1%}" if r[5] is not None else ""]
                     + ([c[3].text(4), c[4].text(4), _inside(c[5]), _inside(c[6])] if c else [""] * 4)
                     + [("yes" if abs(r[5]) <= AGREE else "no") if r[5] is not None else ""])
    L += ["## Every strategy-size", "",
          f"Each run's {CONFIDENCE:.0%} interval of its median (harness/results/intervals.py), whether "
          f"each headline lies inside the other run's, and the old rule, within {AGREE:.0%}, beside them.", "",
          md_table(["RAM", "strategy", "phase", "A ns/page", "B ns/page", "difference", "A interval",
                    "B interval", "B inside A's", "A inside B's", f"within {AGREE:.0%}"], table), ""]
    return "\n".join(L)
