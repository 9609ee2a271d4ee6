# SPDX-License-Identifier: MIT
"""`counts`: exact counts. Runs build/bootheap-host under valgrind's callgrind
with cache simulation and reports, per page handed over, the instructions,
data reads and writes and simulated cache misses of each timed window.

The runner zeroes callgrind's counters as a window opens and dumps them as it
closes (hosted/platform/window.c), so each dump holds one window, and
settles both L1s to one state just before it opens, so that what ran between
windows (records whose numbers vary in length) leaves no trace in them. The
same binary and map give the same counts on every run, whatever else the
machine is doing: the project's noise-free measure on shared machines."""
import json
import os
import re
import shutil
import subprocess
import time

from harness import ROOT
from harness.common import BenchError, gib_text, md_table, parse_sizes, read_jsonl, say, size_label
from harness.results.names import kernel_record
from harness.results.records import new_folder, parse_serial

RUNNER = os.path.join(ROOT, "build", "bootheap-host")

# The simulated caches, fixed so that counts compare across machines: this
# project's machines' L1s (AMD Zen 5: 32 KiB 8-way I1, 48 KiB 12-way D1) and
# one CCD's L3 as the last level (32 MiB, 16-way), 64-byte lines. Valgrind
# reads these machines' own LL as 512 MiB, 2-way, which no CPU has.
# Each L1 at most hosted/platform/window.c's SETTLE (64 KiB), which it settles.
CACHE = ["--I1=32768,8,64", "--D1=49152,12,64", "--LL=33554432,16,64"]
CACHE_TEXT = "I1 32 KiB 8-way, D1 48 KiB 12-way, LL 32 MiB 16-way, 64 B lines"

EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"]
LABEL = re.compile(r"^desc: Trigger: Client Request: bootheap (\S+) (\S+) (\d+)$")
ORDER = ["page", "chunk", "sweep", "lazy", "linux", "linux_deferred", "linux612", "freebsd", "freebsd_lazy",
         "freebsd_lazy0", "floor", "floor_linux", "floor_freebsd"]
COUNTS_FILE = "counts.jsonl"


def valgrind_command(runner, size, dump_prefix, kernel_args):
    return ["valgrind", "--tool=callgrind", "--cache-sim=yes", *CACHE,
            f"--callgrind-out-file={dump_prefix}", runner, "--mem", size, *kernel_args]


def parse_dump(path):
    """One callgrind dump -> (strategy, phase, run, {event: count}), or None
    for a dump that is not a window's (the one callgrind writes at exit)."""
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
        raise BenchError(f"{path}: a dump without events or totals")
    counts = dict.fromkeys(EVENTS, 0)
    counts.update(zip(events, totals))          # callgrind leaves trailing zeros out
    return (*label, counts)


def collect(folder, prefix="cg.out"):
    """Every window's counts in folder: {(strategy, phase, run): counts}."""
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith(prefix + "."):
            got = parse_dump(os.path.join(folder, name))
            if got:
                out[got[:3]] = got[3]
    return out


def per_page(counts, pages):
    """The figures reported per page."""
    return {
        "instructions": counts["Ir"] / pages,
        "data_reads": counts["Dr"] / pages,
        "data_writes": counts["Dw"] / pages,
        "l1_misses": (counts["I1mr"] + counts["D1mr"] + counts["D1mw"]) / pages,
        "ll_misses": (counts["ILmr"] + counts["DLmr"] + counts["DLmw"]) / pages,
    }


def count_size(nbytes, out_dir, runner=RUNNER, kernel_args=("runs=1",)):
    """Counts one size into out_dir/counts-<size>/ -> its counts records."""
    if not shutil.which("valgrind"):
        raise BenchError("valgrind is not installed (Debian package valgrind; `make setup`)")
    size = size_label(nbytes)
    folder = os.path.join(out_dir, f"counts-{size}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    cmd = valgrind_command(runner, size, os.path.join(folder, "cg.out"), list(kernel_args))
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.monotonic() - t0
    for name, text in (("serial.log", p.stdout), ("valgrind.log", p.stderr)):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
    if p.returncode != 0:
        raise BenchError(f"{size}: bootheap-host under callgrind exited {p.returncode}; "
                         f"see {folder}/valgrind.log and serial.log")
    records, _ = parse_serial(p.stdout)
    bench = next((r for r in records if r.get("type") == "bench"), None)
    if not bench or not bench.get("pages"):
        raise BenchError(f"{size}: no bench record with pages in the runner's output")
    pages = bench["pages"]
    rows = [{"type": "counts", "size": size, "size_bytes": nbytes, "mem_bytes": bench.get("mem_bytes"),
             "pages": pages, "strategy": s, "phase": ph, "run": run, "cache": CACHE_TEXT,
             "counts": counts, "per_page": {k: round(v, 4) for k, v in per_page(counts, pages).items()},
             "elapsed_s": round(elapsed, 1)}
            for (s, ph, run), counts in sorted(collect(folder).items())]
    if not rows:
        raise BenchError(f"{size}: callgrind wrote no window dumps")
    return rows


def load(folder):
    """The counts records of a results folder, or [] when it has none (under
    today's strategy names, harness/results/names.py)."""
    return [kernel_record(r) for r in read_jsonl(os.path.join(folder, COUNTS_FILE))]


def table(rows, phase="init"):
    """Markdown: one line per size and strategy (run 0), the floor last."""
    head = ["RAM", "strategy", "instr/page", "reads/page", "writes/page", "L1 misses/page",
            "LL misses/page", "instr x floor"]
    lines = []
    for nbytes in sorted({r["size_bytes"] for r in rows}):
        phases = phase if isinstance(phase, tuple) else (phase,)
        mine = [r for r in rows if r["size_bytes"] == nbytes and r["run"] == 0 and
                (r["phase"] in phases or ("init" in phases and r["strategy"] == "floor"))]
        floor = next((r for r in mine if r["strategy"] == "floor"), None)
        mine.sort(key=lambda r: ORDER.index(r["strategy"]) if r["strategy"] in ORDER else 99)
        for r in mine:
            pp = r["per_page"]
            xf = (f"{pp['instructions'] / floor['per_page']['instructions']:.2f}"
                  if floor and floor["per_page"]["instructions"] else "")
            name = r["strategy"] + (f" ({r['phase']})" if r["phase"] not in ("init", "first_touch") else "")
            lines.append([gib_text(nbytes), name, f"{pp['instructions']:.3f}", f"{pp['data_reads']:.3f}",
                          f"{pp['data_writes']:.3f}", f"{pp['l1_misses']:.4f}", f"{pp['ll_misses']:.4f}", xf])
    return md_table(head, lines)


def section(rows):
    """The counts as report lines: init, then first touch."""
    if not rows:
        return []
    return [f"## Exact counts (callgrind, hosted runner; {CACHE_TEXT})", "",
            "Per page handed over, run 0 of each size. The same binary and map give the same "
            "counts on every run: these are the noise-free figures of a shared machine.", "",
            "### init", "", table(rows, "init"), "", "### first touch", "",
            table(rows, "first_touch"), ""] + \
        (["### the peers' first allocation and later parts", "",
          table(rows, ("first_alloc", "deferred", "drain")), ""]
         if any(r["phase"] in ("first_alloc", "deferred", "drain") for r in rows) else [])


def cmd_counts(args):
    """`counts`: each size under callgrind, into a results folder (a new one,
    or an existing one whose report then shows the counts)."""
    out = args.out or new_folder(None, "counts-")
    os.makedirs(out, exist_ok=True)
    kernel_args = args.append.split() if args.append else ["runs=1"]
    rows = [r for r in load(out) if r["size_bytes"] not in parse_sizes(args.sizes)]
    for nbytes in parse_sizes(args.sizes):
        say(f"counts: {gib_text(nbytes)} under callgrind ...")
        got = count_size(nbytes, out, args.runner, kernel_args)
        say(f"counts: {gib_text(nbytes)} done in {got[0]['elapsed_s']} s")
        rows += got
    with open(os.path.join(out, COUNTS_FILE), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    text = "\n".join(section(rows))
    with open(os.path.join(out, "counts.md"), "w", encoding="utf-8") as f:
        f.write(text)
    say(text)
    say(f"counts: written to {out}")
    return 0
