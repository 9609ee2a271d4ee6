# SPDX-License-Identifier: MIT
"""`compare A B`: the per-strategy change between two results folders, with
a noise estimate from their spread."""
import math

from harness.common import TCG_LABEL, fmt_ms, gib_text
from harness.common import fmt
from harness.results.stats import SizeStats, failures


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
                if x.cv is None or y.cv is None:
                    row["verdict"] = "no noise estimate (medians only)"
                elif x.runs < 2 or y.runs < 2:
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
    for name, results in (("A", a), ("B", b)):
        for run in results.sizes:
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


