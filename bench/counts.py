#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Exact counts: runs build/bootheap-host under valgrind's callgrind with cache
simulation and reports, per page handed over, the instructions, data reads and
writes and simulated cache misses of each timed window.

The runner zeroes callgrind's counters as a window opens and dumps them as it
closes (hosted/platform/window.c), so each dump holds one window. The same
binary and map give the same counts on every run, whatever else the machine
is doing: the project's noise-free measure on shared machines."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "build", "bootheap-host")

# The simulated caches, fixed so that counts compare across machines: this
# project's machines' L1s (AMD Zen 5: 32 KiB 8-way I1, 48 KiB 12-way D1) and
# one CCD's L3 as the last level (32 MiB, 16-way), 64-byte lines. Valgrind
# reads these machines' own LL as 512 MiB, 2-way, which no CPU has.
CACHE = ["--I1=32768,8,64", "--D1=49152,12,64", "--LL=33554432,16,64"]
CACHE_TEXT = "I1 32 KiB 8-way, D1 48 KiB 12-way, LL 32 MiB 16-way, 64 B lines"

EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"]
LABEL = re.compile(r"^desc: Trigger: Client Request: bootheap (\S+) (\S+) (\d+)$")
ORDER = ["page", "chunk", "once", "lazy", "floor"]


class CountsError(Exception):
    pass


def valgrind_command(runner, size, dump_prefix, kernel_args):
    return (["valgrind", "--tool=callgrind", "--cache-sim=yes", *CACHE,
             f"--callgrind-out-file={dump_prefix}", runner, "--mem", size, *kernel_args])


def parse_dump(path):
    """One callgrind dump -> (strategy, phase, run, {event: count}) or None."""
    label, events, totals = None, None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LABEL.match(line.rstrip("\n"))
            if m:
                label = (m.group(1), m.group(2), int(m.group(3)))
            elif line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:"):
                totals = [int(x) for x in line.split()[1:]]
    if label is None:
        return None
    if events is None or totals is None:
        raise CountsError(f"{path}: a dump without events or totals")
    counts = dict.fromkeys(EVENTS, 0)
    counts.update(zip(events, totals))          # callgrind leaves trailing zeros out
    return (*label, counts)


def parse_records(text):
    records = []
    for line in text.replace("\r", "").splitlines():
        if line.startswith('{"type":'):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return records


def collect(folder, prefix="cg.out"):
    """Every window's counts in folder: {(strategy, phase, run): counts}."""
    out = {}
    for name in sorted(os.listdir(folder)):
        if not name.startswith(prefix + "."):
            continue
        got = parse_dump(os.path.join(folder, name))
        if got:
            strategy, phase, run, counts = got
            out[(strategy, phase, run)] = counts
    return out


def per_page(counts, pages):
    """The figures reported per page: a dict of floats."""
    return {
        "instructions": counts["Ir"] / pages,
        "data_reads": counts["Dr"] / pages,
        "data_writes": counts["Dw"] / pages,
        "l1_misses": (counts["I1mr"] + counts["D1mr"] + counts["D1mw"]) / pages,
        "ll_misses": (counts["ILmr"] + counts["DLmr"] + counts["DLmw"]) / pages,
    }


def count_size(size, out_dir, runner=RUNNER, kernel_args=("runs=1",)):
    """Runs the runner for one size; returns its counts records."""
    if not shutil.which("valgrind"):
        raise CountsError("valgrind is not installed (Debian package valgrind; `make setup`)")
    folder = os.path.join(out_dir, f"counts-{size}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    cmd = valgrind_command(runner, size, os.path.join(folder, "cg.out"), list(kernel_args))
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.monotonic() - t0
    with open(os.path.join(out_dir, f"serial-{size}.log"), "w", encoding="utf-8") as f:
        f.write(p.stdout)
    with open(os.path.join(folder, "valgrind.log"), "w", encoding="utf-8") as f:
        f.write(p.stderr)
    if p.returncode != 0:
        raise CountsError(f"{size}: bootheap-host under callgrind exited {p.returncode}; "
                          f"see {folder}/valgrind.log and serial-{size}.log")
    records = parse_records(p.stdout)
    bench = next((r for r in records if r.get("type") == "bench"), None)
    if not bench or not bench.get("pages"):
        raise CountsError(f"{size}: no bench record with pages in the runner's output")
    pages = bench["pages"]
    rows = []
    for (strategy, phase, run), counts in sorted(collect(folder).items()):
        rows.append({"type": "counts", "size": size, "mem_bytes": bench.get("mem_bytes"),
                     "pages": pages, "strategy": strategy, "phase": phase, "run": run,
                     "cache": CACHE_TEXT, "counts": counts,
                     "per_page": {k: round(v, 4) for k, v in per_page(counts, pages).items()},
                     "elapsed_s": round(elapsed, 1)})
    if not rows:
        raise CountsError(f"{size}: callgrind wrote no window dumps")
    return rows


def table(rows, phase="init"):
    """Markdown: one line per size and strategy (run 0), the floor last."""
    head = ["RAM", "strategy", "phase", "instr/page", "reads/page", "writes/page",
            "L1 misses/page", "LL misses/page", "instr x floor"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for size in dict.fromkeys(r["size"] for r in rows):
        mine = [r for r in rows if r["size"] == size and r["run"] == 0 and
                (r["phase"] == phase or r["strategy"] == "floor")]
        floor = next((r for r in mine if r["strategy"] == "floor"), None)
        mine.sort(key=lambda r: ORDER.index(r["strategy"]) if r["strategy"] in ORDER else 99)
        for r in mine:
            pp = r["per_page"]
            xf = (f"{pp['instructions'] / floor['per_page']['instructions']:.2f}"
                  if floor and floor["per_page"]["instructions"] else "-")
            lines.append(f"| {size} | {r['strategy']} | {r['phase']} | {pp['instructions']:.3f} | "
                         f"{pp['data_reads']:.3f} | {pp['data_writes']:.3f} | {pp['l1_misses']:.4f} | "
                         f"{pp['ll_misses']:.4f} | {xf} |")
    return "\n".join(lines)


def write(rows, out_dir):
    with open(os.path.join(out_dir, "counts.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    text = (f"# Exact counts (callgrind, hosted runner, {CACHE_TEXT})\n\n"
            "Per page handed over, run 0 of each size.\n\n## init\n\n" + table(rows, "init") +
            "\n\n## first touch\n\n" + table(rows, "first_touch") + "\n")
    with open(os.path.join(out_dir, "counts.md"), "w", encoding="utf-8") as f:
        f.write(text)
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="count each size under callgrind")
    r.add_argument("--sizes", default="256M,8G", help="comma-separated sizes (default 256M,8G)")
    r.add_argument("--out", default=None, help="results folder (default results/counts-<time>)")
    r.add_argument("--runner", default=RUNNER)
    r.add_argument("kernel_args", nargs="*", help="kernel options (default runs=1)")
    s = sub.add_parser("show", help="print the tables of a results folder")
    s.add_argument("folder")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "show":
            with open(os.path.join(args.folder, "counts.jsonl"), encoding="utf-8") as f:
                rows = [json.loads(line) for line in f if line.strip()]
            print(table(rows, "init") + "\n\n" + table(rows, "first_touch"))
            return 0
        out = args.out or os.path.join(ROOT, "results", time.strftime("counts-%Y%m%d-%H%M%S"))
        os.makedirs(out, exist_ok=True)
        rows = []
        for size in [x for x in args.sizes.split(",") if x]:
            print(f"counts: {size} under callgrind ...", flush=True)
            got = count_size(size, out, args.runner, args.kernel_args or ["runs=1"])
            print(f"counts: {size} done in {got[0]['elapsed_s']} s", flush=True)
            rows += got
        print(write(rows, out))
        print(f"counts: written to {out}")
        return 0
    except CountsError as e:
        print(f"counts: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
