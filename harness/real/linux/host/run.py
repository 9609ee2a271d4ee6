# SPDX-License-Identifier: MIT
"""The host tester of Linux's memory init, run (`linux-src host-test`,
`host-time`; the tester built by harness/real/linux/host/build.py).

host-test: random machines (hosted/linuxmm/u_seq.c) booted as each of two
variants, each boot in a process of its own, and what each left after
memblock_free_all() and after deferred init compared field by field and
struct page by struct page; the sequences split between the testers of
each MAX_PAGE_ORDER, and each tester's share between the CPUs (--jobs).
A difference or a failure prints the seed, the machine and the first
differing field, and `--one SEED` replays it.

host-time: one x86 machine a size booted as each variant, interleaved,
each phase in thread CPU time, beside the floor of the struct pages'
bytes written once; the records and a report with medians and intervals."""
import concurrent.futures
import datetime
import json
import os
import re
import subprocess

from harness.real.linux import source
from harness.real.linux.host import build
from harness.real.source import package
from harness.results.intervals import Interval, ratio_interval

DONE = re.compile(r"linuxmm: (\d+) sequences from seed (\d+), (\d+) with a difference or a failure")
VARIANTS = ("init_pages=stock", "init_pages=sweep")
SWITCH = "early_param(\"init_pages\""    # the line a series adds for the switch between the two ways


def has_switch(patches):
    """Whether the series adds init_pages= (6.12's, 7.1-measure's): then
    one tester boots both ways; a series that is the only way (7.1's) is
    set against a tester of the stock tree."""
    return package.adds(patches, SWITCH)


def pair(release, max_order, say=print, patches=None):
    """The tester run and its two variants at max_order -> (binary,
    variants): init_pages= of one tester, or the stock tree's tester
    (no parameter) against the series' (no parameter)."""
    patches = source.patches_of(release) if patches is None else list(patches)
    binary = build.tester(release, max_order, say, patches)
    if has_switch(patches):
        return binary, VARIANTS
    return binary, (build.tester(release, max_order, say, []), "-")


def run_one(binary, sequences, seed, variants=VARIANTS, extra=()):
    """One tester over `sequences` from `seed` -> (passed, sequences run, its output)."""
    r = subprocess.run([binary, "--sequences", str(sequences), "--seed", str(seed),
                        "--variants", ",".join(variants)] + list(extra), capture_output=True, text=True)
    m = DONE.search(r.stdout)
    out = (r.stdout + r.stderr).strip()
    return r.returncode == 0 and m is not None and m.group(3) == "0", int(m.group(1)) if m else 0, out


def test(release, sequences, seed=1, max_orders=build.MAX_ORDERS, jobs=2, say=print, variants=None,
         patches=None):
    """`sequences` split between the testers of `max_orders`, built with
    `patches` (the release's series by default) -> (all passed,
    [(max_order, passed, sequences run, output)]). variants: pair()'s by
    default."""
    build.series_files(release, patches, say)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        built = {o: pool.submit(pair, release, o, say, patches) for o in max_orders}
        pairs = {o: f.result() for o, f in built.items()}
    share = max(1, sequences // len(max_orders))
    # Each share in `jobs` pieces, so that no CPU idles while the last tester runs alone.
    cuts = [share * k // jobs for k in range(jobs + 1)]
    pieces = [(o, seed + i * share + a, b - a) for i, o in enumerate(max_orders)
              for a, b in zip(cuts, cuts[1:]) if b > a]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [(o, first, pool.submit(run_one, pairs[o][0], n, first, variants or pairs[o][1]))
                   for o, first, n in pieces]
        done = [(o, first) + f.result() for o, first, f in futures]
    results = []
    for o in max_orders:
        mine = [d for d in done if d[0] == o]
        passed, n = all(d[2] for d in mine), sum(d[3] for d in mine)
        out = "\n".join(d[4] for d in mine)
        if len(mine) > 1:
            out += (f"\nlinuxmm: {n} sequences from seed {mine[0][1]}, "
                    f"{sum(not d[2] for d in mine)} pieces of {len(mine)} with a difference or a failure")
        results.append((o, passed, n, out))
    return all(r[1] for r in results), results


def time_records(release, sizes, runs, threads=1, say=print, variants=None):
    """Each size booted `runs` times as each variant (pair()'s by default)
    on this CPU -> the tester's records (JSON lines: `time` and `floor`)."""
    binary, paired = pair(release, 10, say)
    variants = variants or paired
    load = os.getloadavg()[0]
    r = subprocess.run([binary, "--time", ",".join(map(str, sizes)), "--runs", str(runs),
                        "--threads", str(threads), "--variants", ",".join(variants)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise build.HostTestError(f"the timing run failed: {(r.stdout + r.stderr).strip()[-2000:]}")
    head = {"type": "host", "release": release, "cpu": cpu_name(), "cpus": os.cpu_count(), "runs": runs,
            "threads": threads, "load": [round(load, 2), round(os.getloadavg()[0], 2)],
            "date": datetime.datetime.now().isoformat(timespec="seconds")}
    return [head] + [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


def cpu_name():
    """This CPU's model name, as /proc/cpuinfo gives it."""
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            return m.group(1).strip() if m else "unknown"
    except OSError:
        return "unknown"


def section(records, level="##"):
    """The timing as a report section: how it was run, then the table."""
    head = next((r for r in records if r["type"] == "host"), {})
    runs = head.get("runs", "?")
    how = (f"**Hosted, real CPU time:** Linux {head.get('release', '?')}'s own memory-init code (mm/mm_init.c, "
           "page_alloc.c, memblock.c and the rest of hosted/linuxmm's list, built from the tree by its own "
           "command lines) in user space on this CPU "
           f"({head.get('cpu', '?')}, {head.get('cpus', '?')} CPUs, load {'-'.join(map(str, head.get('load', [])))}), "
           f"one x86 node, deferred init on {head.get('threads', '?')} thread(s); {runs} boots of each variant "
           "a size, interleaved, each in a fresh process with its struct pages prefilled; thread CPU time; "
           "the median of the runs and its 95% interval, ns a page handed over; ratios taken within each "
           "run. Not an emulated figure and not a count: the stand-ins' own costs (locks, per-CPU "
           "counters) are the same in both variants.")
    return "\n".join([f"{level} On a real CPU: Linux's own code, stock against the single pass", "", how, "",
                      report(records)])


PHASES = (("memmap_ns", "free_area_init()"), ("free_all_ns", "memblock_free_all()"),
          ("deferred_threads_ns", "deferred init"))


def total_ns(t):
    """A boot's hand-over in CPU time: the three phases, deferred init on its threads."""
    return sum(t[k] for k, _ in PHASES)


def _cell(values, digits=2):
    """A median and its 95% interval over the runs (or the words for none)."""
    i = Interval(values)
    return f"{i.median:.{digits}f} ({i.text(digits)})"


def label(variant):
    """A variant's name in the table: init_pages=X's X, `stock` for the
    stock tree's tester, `series` for the tester itself with no parameter."""
    if "=" in variant:
        return variant.split("=")[-1]
    return "series" if variant in ("-", "") else "stock"


def report(records, variants=None):
    """The table: ns a page of each phase and of all three (the median of
    the runs and its 95% interval), the ratio of the variants' totals taken
    within each run (the runs interleave the variants), the floors, and
    the second variant's total over memset()'s. variants: the records'
    two, in the order of run 0."""
    times = [r for r in records if r["type"] == "time"]
    floors = [r for r in records if r["type"] == "floor"]
    if variants is None:
        seen = [t["variant"] for t in times if t["run"] == 0]
        variants = sorted(set(seen), key=lambda v: label(v) != "stock" and not v.endswith("=stock"))
    a, b = (label(v) for v in variants)
    head = ["GiB"] + [f"{name}, {v}" for _, name in PHASES for v in (a, b)] + \
        [f"all, {a}", f"all, {b}", f"{a}/{b}", "memset()", "non-temporal", f"{b}/memset()"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for gib in sorted({t["gib"] for t in times}):
        per = {v: {t["run"]: t for t in times if t["gib"] == gib and t["variant"] == v} for v in variants}
        cells = [str(gib)]
        for key, _ in PHASES:
            cells += [_cell([t[key] / t["pages"] for t in per[v].values()]) for v in variants]
        tot = {v: {r: total_ns(t) / t["pages"] for r, t in per[v].items()} for v in variants}
        memset = {f["run"]: f["ns"] / f["pages"] for f in floors if f["gib"] == gib and f["way"] == "memset"}
        nt = [f["ns"] / f["pages"] for f in floors if f["gib"] == gib and f["way"] == "non-temporal"]
        ratio, over = ratio_interval(tot[variants[0]], tot[variants[1]]), ratio_interval(tot[variants[1]], memset)
        cells += [_cell(tot[v].values()) for v in variants]
        cells += [f"{ratio.median:.2f}x ({ratio.text(2)})", _cell(memset.values()), _cell(nt),
                  f"{over.median:.2f}x ({over.text(2)})"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
