# SPDX-License-Identifier: MIT
"""Runs build/costs/heapcount (tests/costs/heapcount.c): the heap built for
the host with the kernel's code generation, under each Xen cost model,
timed natively or counted exactly under valgrind's callgrind."""
import glob
import json
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, "build", "costs", "heapcount")
COSTS = ("lfence", "mfn_valid", "lock", "m2p", "node_heap", "heap_ptrs", "pdx", "memnode", "zone",
         "scrub_check")
# The ablation's sets: all, each cost alone removed, none.
ABLATION = ("all",) + tuple("-" + c for c in COSTS) + ("none",)
DUMP = "desc: Trigger: Client Request: "


def build():
    subprocess.run(["make", "--no-print-directory", "-s", "build/costs/heapcount"], cwd=ROOT, check=True)


def have_valgrind():
    return shutil.which("valgrind") is not None


# The simulated last-level cache: 32 MiB, 16-way, as one Zen 5 CCD's L3. This
# machine's virtual CPU reports a 512 MiB L3, which valgrind would take as is.
LL = "33554432,16,64"


def callgrind(mem, strategies, sets, runs=1, cache_sim=False):
    """Exact counts per (set, strategy): {event: total over runs / runs},
    and the pages handed over. Events: Ir (instructions), Dr, Dw, and with
    cache_sim the L1 and last-level misses (D1mr, D1mw, DLmr, DLmw, ...)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out}",
               f"--cache-sim={'yes' if cache_sim else 'no'}", f"--LL={LL}", BINARY, "--mem", mem, "--runs", str(runs),
               "--strategies", ",".join(strategies), "--costs", ";".join(sets), "--callgrind"]
        res = subprocess.run(cmd, check=True, capture_output=True, text=True)
        pages = json.loads(res.stdout.splitlines()[-1])["pages"]
        counts = {}
        for path in glob.glob(out + ".*"):
            label, events, totals = None, None, None
            with open(path) as f:
                for line in f:
                    if line.startswith(DUMP):
                        label = line[len(DUMP):].strip()
                    elif line.startswith("events: "):
                        events = line.split()[1:]
                    elif line.startswith("totals: "):
                        totals = [int(x) for x in line.split()[1:]]
            if label is None:
                continue
            desc, strategy, _run = label.split("|")
            acc = counts.setdefault((desc, strategy), dict.fromkeys(events, 0))
            for e, v in zip(events, totals + [0] * (len(events) - len(totals))):
                acc[e] += v / runs
    return counts, pages


def timed(mem, strategies, sets, runs=5, key="cpu_ns"):
    """Native times: {(set, strategy): [ns, ...]} and the pages handed over;
    key "cpu_ns" for the thread's CPU time, "ns" for the wall clock."""
    out = subprocess.run([BINARY, "--mem", mem, "--runs", str(runs), "--strategies", ",".join(strategies),
                          "--costs", ";".join(sets)], check=True, capture_output=True, text=True).stdout
    times, pages = {}, None
    for line in out.splitlines():
        r = json.loads(line)
        times.setdefault((r["costs"], r["strategy"]), []).append(r[key])
        pages = r["pages"]
    return times, pages
