#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The page/chunk ratio under each Xen cost model: all costs, each cost alone
removed, none. Times end_boot_allocator() natively with build/costs/heapcount
(the heap built for the host with the kernel's code generation), by the
thread's CPU time so that other processes on a shared machine drop out, and
counts it exactly under callgrind with cache simulation (a 32 MiB last-level
cache, costslib.LL); prints a Markdown table.

    python3 tests/costs/ablation.py --mem 8G --runs 5 [--json out.json]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import costslib  # noqa: E402


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def measure(mem, runs, counts, count_sets=costslib.ABLATION):
    costslib.build()
    times, pages = costslib.timed(mem, ["page", "chunk"], costslib.ABLATION, runs) if runs else ({}, None)
    wall, _ = costslib.timed(mem, ["page", "chunk"], ["all", "none"], runs, key="ns") if runs else ({}, None)
    cg, cg_pages = costslib.callgrind(mem, ["page", "chunk"], count_sets, cache_sim=True) if counts else ({}, None)
    return {"mem": mem, "runs": runs, "pages": pages or cg_pages, "load": os.getloadavg(),
            "times": {f"{k[0]}|{k[1]}": v for k, v in times.items()},
            "wall": {f"{k[0]}|{k[1]}": v for k, v in wall.items()},
            "counts": {f"{k[0]}|{k[1]}": v for k, v in cg.items()}}


def table(m):
    pages = m["pages"]
    times = {tuple(k.split("|")): v for k, v in m["times"].items()}
    counts = {tuple(k.split("|")): v for k, v in m["counts"].items()}
    head = ("| costs | page ns/page | chunk ns/page | page/chunk (time) | page Ir/page | chunk Ir/page "
            "| page/chunk (Ir) | page D1 misses/page | chunk D1 misses/page | page LL misses/page |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for s in costslib.ABLATION:
        row = [f"`{s}`"]
        if times:
            p, c = times[(s, "page")], times[(s, "chunk")]
            ratio = median([a / b for a, b in zip(p, c)])
            row += [f"{median(p) / pages:.1f}", f"{median(c) / pages:.2f}", f"{ratio:.2f}x"]
        else:
            row += ["-", "-", "-"]
        if (s, "page") in counts:
            n = pages
            p, c = counts[(s, "page")], counts[(s, "chunk")]
            d1 = lambda x: (x.get("D1mr", 0) + x.get("D1mw", 0)) / n  # noqa: E731
            ll = (p.get("DLmr", 0) + p.get("DLmw", 0)) / n
            row += [f"{p['Ir'] / n:.1f}", f"{c['Ir'] / n:.1f}", f"{p['Ir'] / c['Ir']:.2f}x",
                    f"{d1(p):.3f}", f"{d1(c):.3f}", f"{ll:.3f}"]
        else:
            row += ["-"] * 6
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mem", default="8G", help="RAM of the q35-like map (default 8G)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per set and strategy, interleaved (0: none)")
    ap.add_argument("--no-counts", action="store_true", help="skip the callgrind counts")
    ap.add_argument("--count-sets", help="count only these sets, ';'-separated (default: every set)")
    ap.add_argument("--json", help="also write the raw measurements here")
    ap.add_argument("--from-json", help="format measurements written earlier with --json")
    a = ap.parse_args()
    if a.from_json:
        with open(a.from_json) as f:
            m = json.load(f)
    else:
        sets = tuple(a.count_sets.split(";")) if a.count_sets else costslib.ABLATION
        m = measure(a.mem, a.runs, not a.no_counts, sets)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(m, f, indent=1)
    print(f"{m['mem']}, {m['pages']} pages; {m['runs']} timed runs per set "
          f"(median), load average {m['load'][0]:.1f} at the end")
    print(table(m))


if __name__ == "__main__":
    main()
