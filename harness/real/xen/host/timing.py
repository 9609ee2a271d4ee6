# SPDX-License-Identifier: MIT
"""Xen's own init_heap_pages() timed on this CPU (`python3 -m harness
xen-src heap-time`): hosted/xenheap/timer.c built against one or more
trees' page_alloc.c as the tester is (harness/real/xen/host/heap.py), at
MAX_ORDER 20 and -O2 with ASSERT() compiled out as Xen's release builds
it, each way (a tree, and where the tree has heap-init= a variant of it)
and the memset() and non-temporal floors of its page_info bytes in
windows of thread CPU time, interleaved, each on the hosted runner's
prelude. A second build counts the stand-ins' calls, so that what they
add can be named.

Two kinds of run: the variants of one tree with the measuring series
(WAYS), and with --proposal a stock tree against its version's proposal
series, each of the series' split patches on their own (PROPOSAL_WAYS)
and the measured alternatives (patches/xen/<series>-alternatives/, each
on top of the whole series), reported with 95 % intervals
(harness/results/intervals.py)."""
import json
import os
import statistics
import subprocess

from harness.real.xen.host import heap as hostheap
from harness.results.intervals import Interval, ratio_interval

WAYS = ("page", "chunk-72b02bc", "chunk", "sweep", "floor")
TIMING = ["-O2", "-DXH_TIMING", "-mclflushopt"]
# The proposal's patches timed on their own, by file number: the node scan
# alone, and the fast marking with the two patches it needs.
PROPOSAL_WAYS = {"staging": (("node scan (0003)", ("0003",)), ("marking (0001, 0002, 0004)", ("0001", "0002", "0004")))}


class Timer:
    """A timer binary and its ways: [(name, side, variant)]."""

    def __init__(self, binary, ways):
        self.binary, self.ways = binary, ways


def build_timer(trees, counting=False, out=hostheap.OUT, ways=None, max_order=20):
    """The timer built against `trees` (one path or a list, a side each) ->
    Timer. `ways` default: the four heap-init= variants of a single tree.
    max_order: 20, Xen's default, as the kept reports were timed; x86 sets
    18 (CONFIG_PAGEALLOC_MAX_ORDER), which the parallel hand-over's blocks
    follow."""
    trees = [trees] if isinstance(trees, str) else list(trees)
    out = os.path.abspath(out)
    defines = ("XH_TIMING", "XH_COUNT") if counting else ("XH_TIMING",)
    flags = [f for f in hostheap.CFLAGS if f != "-O1"] + TIMING + (["-DXH_COUNT"] if counting else []) + [
        f"-DXH_MAX_ORDER={max_order}", "-I", hostheap.HOSTED]
    layouts = {tuple(d for d in hostheap.tree_defines(t) if "HEAP_INIT" not in d) for t in trees}
    if len(layouts) > 1:
        raise hostheap.HostHeapError(f"the timer's trees are not the same Xen: the stand-ins see {sorted(layouts)}")
    objects = []
    for side, tree in enumerate(trees):
        folder = os.path.join(out, f"time-side-{side}")
        cut = hostheap.extract(tree, max_order, folder, defines, heap_init=False)
        objects.append(os.path.join(folder, "side.o"))
        _gcc(flags + [f"-D{d}" for d in hostheap.tree_defines(tree)] + [
            f"-D{n}={n}_{side}" for n in hostheap.globals_of(cut)] + [
            f"-DXH_SIDE={side}", f'-DXH_EXTRACT="{cut}"', f'-DXH_ARCH_M2P="{os.path.join(folder, hostheap.M2P_HEADER)}"',
            "-c", os.path.join(hostheap.HOSTED, "timeside.c"), "-o", objects[-1]], tree)
    binary = os.path.join(out, "xenheap-count" if counting else "xenheap-time")
    _gcc(flags + [f"-D{d}" for d in hostheap.tree_defines(trees[0]) if "HEAP_INIT" not in d] + [
        f"-DXH_NSIDES={len(trees)}", os.path.join(hostheap.HOSTED, "timer.c"),
        os.path.join(hostheap.HOSTED, "stand.c"), *objects, "-o", binary], trees[0])
    return Timer(binary, ways or [(w, 0, v) for v, w in enumerate(WAYS[:4])])


def _gcc(args, tree):
    r = subprocess.run(["gcc"] + args, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    if r.returncode != 0:
        raise hostheap.HostHeapError(f"the timer does not build against {tree}:\n{r.stderr.strip()[-3000:]}")


def windows(timer, sizes, runs, threads=None):
    """The timer's windows at `sizes` (GiB), `runs` of each way -> records,
    each with its way's name. threads: each window a hand-over on that
    many CPUs, on the wall clock (timer.c's THREADS)."""
    spec = ",".join(f"{side}:{variant}" for _, side, variant in timer.ways)
    r = subprocess.run([timer.binary, ",".join(map(str, sizes)), str(runs), spec] +
                       ([str(threads)] if threads else []), capture_output=True, text=True)
    if r.returncode != 0:
        raise hostheap.HostHeapError(f"{os.path.basename(timer.binary)} failed: {(r.stdout + r.stderr).strip()[-2000:]}")
    names = {(side, variant): name for name, side, variant in timer.ways}
    out = []
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            w = json.loads(line)
            w["way"] = "floor" if w["side"] < 0 else names[(w["side"], w["variant"])]
            out.append(w)
    return out


# The target: sweep's median within 1.3x of the median floor of its page_info bytes.
FLOOR_TARGET = 1.3


def worst_over_floor(timed, from_gib, key="ns"):
    """The largest median(sweep) / median(floor) at `from_gib` GiB and up ->
    (ratio, GiB), or None. key "ns" is the floor as timed, the faster of
    memset() and non-temporal stores; "memset_ns" memset()'s alone, where
    the records have it."""
    ratios = []
    for gib in sorted({w["gib"] for w in timed if w["gib"] >= from_gib}):
        sweep = statistics.median(w["ns"] / w["pages"] for w in timed if w["gib"] == gib and w["way"] == "sweep")
        floor = [w[key] / w["pages"] for w in timed if w["gib"] == gib and w["way"] == "floor" and key in w]
        if floor:
            ratios.append((sweep / statistics.median(floor), gib))
    return max(ratios) if ratios else None


def report(timed, counted):
    """The table: ns a page (median of the runs, and the range), the ratios, and the stand-ins' calls a page."""
    split = all("memset_ns" in w for w in timed if w["way"] == "floor")
    lines = ["| GiB | " + " | ".join(f"{w} ns/page" for w in WAYS) +
             " | chunk/sweep | page/chunk | sweep/floor |" + (" floor by memset() alone | sweep/memset() |"
                                                               if split else ""),
             "|---" * (len(WAYS) + 4 + 2 * split) + "|"]
    for gib in sorted({w["gib"] for w in timed}):
        med = {}
        cells = []
        for way in WAYS:
            ns = [w["ns"] / w["pages"] for w in timed if w["gib"] == gib and w["way"] == way]
            med[way] = statistics.median(ns)
            cells.append(f"{med[way]:.2f} ({min(ns):.2f}-{max(ns):.2f})")
        row = f"| {gib} | " + " | ".join(cells) + f" | {med['chunk'] / med['sweep']:.2f}x | " \
              f"{med['page'] / med['chunk']:.2f}x | {med['sweep'] / med['floor']:.2f}x |"
        if split:
            mem = statistics.median(w["memset_ns"] / w["pages"] for w in timed if w["gib"] == gib and w["way"] == "floor")
            row += f" {mem:.2f} | {med['sweep'] / mem:.2f}x |"
        lines.append(row)
    lines += ["", counts(counted, WAYS[:4])]
    return "\n".join(lines)


def counts(counted, ways):
    """The stand-ins' calls a page of each way, as a table."""
    lines = ["| stand-in calls a page | " + " | ".join(ways) + " |", "|---" * (len(ways) + 1) + "|"]
    for key in ("locks", "node_lookups", "mfn_valid", "list_ops", "m2p"):
        lines.append(f"| {key} | " + " | ".join(
            f"{statistics.median(w[key] / w['pages'] for w in counted if w['way'] == way):.4f}"
            for way in ways) + " |")
    return "\n".join(lines)


def by_run(timed, gib, way, key="ns"):
    """{run: ns a page} of one way at one size (the floor's memset() or non-temporal time by key)."""
    return {w["run"]: w[key] / w["pages"] for w in timed if w["gib"] == gib and w["way"] == way and key in w}


def proposal_report(timed, counted, ways, ref="stock", new="series"):
    """The proposal's table: each way's median ns a page with its 95 %
    interval, the floors', and stock/series, series/memset() and
    series/non-temporal taken run by run with their intervals."""
    names = [n for n, _, _ in ways]
    head = names + ["memset()", "non-temporal", f"{ref} / {new}", f"{new} / memset()", f"{new} / non-temporal"]
    lines = ["| GiB | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for gib in sorted({w["gib"] for w in timed}):
        cells = []
        for name in names:
            i = Interval(list(by_run(timed, gib, name).values()))
            cells.append(f"{i.median:.3f} ({i.text()})")
        floors = [by_run(timed, gib, "floor", k) for k in ("memset_ns", "nt_ns")]
        for f in floors:
            i = Interval(list(f.values()))
            cells.append(f"{i.median:.3f} ({i.text()})")
        series = by_run(timed, gib, new)
        for num, den in ((by_run(timed, gib, ref), series), (series, floors[0]), (series, floors[1])):
            i = ratio_interval(num, den)
            cells.append(f"{i.median:.3f}x ({i.text()})")
        lines.append(f"| {gib} | " + " | ".join(cells) + " |")
    return "\n".join(lines + ["", counts(counted, names)])


def cmd_time(tree, sizes, runs):
    timed = windows(build_timer(tree), sizes, runs)
    counted = windows(build_timer(tree, counting=True), sizes[:1], 1)
    print(report(timed, counted))
    return 0


def cmd_time_proposal(sides, sizes, runs, say=print):
    """`heap-time --proposal`: `sides` [(name, tree)] timed side by side -> 0."""
    ways = [(name, k, 0) for k, (name, _) in enumerate(sides)]
    trees = [t for _, t in sides]
    load = os.getloadavg()[0]
    timed = windows(build_timer(trees, ways=ways), sizes, runs)
    counted = windows(build_timer(trees, True, ways=ways), sizes[:1], 1)
    say(f"{LABEL}. {runs} windows of each way a size, interleaved; ns a page, median "
        f"(95 % interval); load average {load:.2f} before, {os.getloadavg()[0]:.2f} after.")
    print(proposal_report(timed, counted, ways))
    print(json.dumps({"type": "host-time-proposal", "runs": runs, "sizes_gib": sizes, "ways": ways,
                      "load": [round(load, 2), round(os.getloadavg()[0], 2)], "windows": timed,
                      "counted": counted}))
    return 0


def parallel_report(timed, names, threads):
    """The hand-over on several CPUs: each way's and the floor's wall ns a
    page on each count of CPUs, median (95 % interval), and the speed-up of
    the most CPUs over one, taken run by run with its interval."""
    def runs(gib, way, k):
        return {w["run"]: w["ns"] / w["pages"] for w in timed
                if w["gib"] == gib and w["way"] == way and w["threads"] == k}
    most = max(threads)
    head = [f"{k} CPU{'s' if k > 1 else ''}" for k in threads] + [f"1 / {most} CPUs"]
    lines = ["| GiB | way | " + " | ".join(head) + " |", "|---" * (len(head) + 2) + "|"]
    for gib in sorted({w["gib"] for w in timed}):
        for way in list(names) + ["floor"]:
            cells = [f"{i.median:.3f} ({i.text()})" for i in (Interval(list(runs(gib, way, k).values()))
                                                             for k in threads)]
            speed = ratio_interval(runs(gib, way, 1), runs(gib, way, most)) if 1 in threads and most > 1 else None
            cells.append(f"{speed.median:.2f}x ({speed.text()})" if speed else "-")
            lines.append(f"| {gib} | {way if way != 'floor' else 'floor: memset()'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# x86's MAX_ORDER (CONFIG_PAGEALLOC_MAX_ORDER, 2 * PAGETABLE_ORDER): the
# hand-over on several CPUs is timed with it, its blocks 1 GiB.
X86_MAX_ORDER = 18
# heap-time --parallel's way: the tree with patches/xen/staging-parallel
# handing over as it does at boot (timer.c's variant AFTER_SMP).
SMP_WAY, AFTER_SMP = "series + staging-parallel", 4


def cmd_time_parallel(sides, sizes, runs, threads, say=print):
    """`heap-time --proposal --threads K,...`: `sides` [(name, tree)] each
    handing over on each count of CPUs -> 0; SMP_WAY's as it does after
    SMP bring-up."""
    ways = [(name, k, AFTER_SMP if name == SMP_WAY else 0) for k, (name, _) in enumerate(sides)]
    load = os.getloadavg()[0]
    timer = build_timer([t for _, t in sides], ways=ways, max_order=X86_MAX_ORDER)
    timed = [w for k in threads for w in windows(timer, sizes, runs, threads=k)]
    say(f"{PARALLEL_LABEL}. {runs} windows of each way a size and count of CPUs, interleaved; wall ns a page, "
        f"median (95 % interval); load average {load:.2f} before, {os.getloadavg()[0]:.2f} after.")
    print(parallel_report(timed, [n for n, _, _ in ways], threads))
    print(json.dumps({"type": "host-time-parallel", "runs": runs, "sizes_gib": sizes, "threads": threads,
                      "ways": ways, "cpus": os.cpu_count(), "load": [round(load, 2), round(os.getloadavg()[0], 2)],
                      "windows": timed}))
    return 0


PARALLEL_LABEL = ("HOSTED: Xen's own code in user space on this machine's CPUs, MAX_ORDER 18 (x86's), the boot "
                  "CPU's first page then the rest cut at 1 GiB between threads (the staging-parallel way: as the "
                  "patch hands it over), on the wall clock, with this project's stand-ins for the rest of Xen; "
                  "not a boot, not Xen's own timing")
LABEL = ("HOSTED: Xen's own code in user space on this machine's CPU, thread CPU time, with this "
         "project's stand-ins for the rest of Xen; not a boot, not Xen's own timing")


def run_records(release, sizes, runs=5, say=print):
    """Xen's own init_heap_pages() of `release`'s patched Debian tree timed at
    `sizes` (GiB, 1 to 256) for `make xen-src`'s report -> one `host-time`
    record, or an `error` record naming what failed (the run goes on)."""
    try:
        tree = hostheap.patched_tree(release, say=say)
        say(f"xen-src: Xen {release}'s own heap code timed on this CPU at {', '.join(map(str, sizes))} GiB")
        load = os.getloadavg()[0]
        timed = windows(build_timer(tree), sizes, runs)
        counted = windows(build_timer(tree, counting=True), sizes[:1], 1)
        return {"type": "host-time", "release": release, "runs": runs, "sizes_gib": list(sizes),
                "load": [round(load, 2), round(os.getloadavg()[0], 2)], "windows": timed, "counted": counted}
    except (hostheap.HostHeapError, hostheap.source.SourceError) as e:
        return {"type": "error", "what": f"Xen {release}'s heap code timed on this CPU", "mem_bytes": 0,
                "nodes": [], "message": str(e)}


def section(recs):
    """report.md's section of the `host-time` records ('' when there are none)."""
    out = []
    for r in recs:
        out.append(f"## Xen {r['release']}'s own heap code on this CPU\n\n**{LABEL}.**\n\n"
                   f"`python3 -m harness xen-src heap-time`'s windows (harness/real/xen/host/timing.py): "
                   f"the patched tree's init_heap_pages() of each variant, one range handed over as at "
                   f"boot, MAX_ORDER 20, -O2, interleaved, each window in a fresh process on the hosted "
                   f"runner's prelude; the floor is the faster of memset() and non-temporal stores of the "
                   f"same page_info bytes. Median of {r['runs']} windows, ns a page (the range in "
                   f"brackets); load average {r['load'][0]} before, {r['load'][1]} after.\n\n"
                   + report(r["windows"], r["counted"]) + "\n\n")
    return "".join(out)
