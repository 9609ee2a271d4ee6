# SPDX-License-Identifier: MIT
"""Xen's own init_heap_pages() timed on this CPU (`python3 -m harness
xen-src heap-time`): hosted/xenheap/timer.c built against a patched
tree's page_alloc.c as the tester is (harness/real/xen/hostheap.py), at
MAX_ORDER 20 and -O2 as Xen builds it, each heap-init= variant and the
memset floor of its page_info bytes in windows of thread CPU time,
interleaved, each on the hosted runner's prelude. A second build counts
the stand-ins' calls, so that what they add can be named."""
import json
import os
import statistics
import subprocess

from harness.real.xen import hostheap

WAYS = ("page", "chunk-72b02bc", "chunk", "sweep", "floor")
TIMING = ["-O2", "-DXH_TIMING", "-mclflushopt"]


def build_timer(tree, counting=False, out=hostheap.OUT):
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    cut = hostheap.extract(tree, 20, out, ("XH_TIMING", "XH_COUNT") if counting else ("XH_TIMING",))
    binary = os.path.join(out, "xenheap-count" if counting else "xenheap-time")
    flags = [f for f in hostheap.CFLAGS if f != "-O1"] + TIMING + (["-DXH_COUNT"] if counting else [])
    cmd = ["gcc"] + flags + [f"-D{d}" for d in hostheap.tree_defines(tree)] + ["-DXH_MAX_ORDER=20", f'-DXH_EXTRACT="{cut}"', "-I", hostheap.HOSTED,
                             os.path.join(hostheap.HOSTED, "timer.c"), "-o", binary]
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    if r.returncode != 0:
        raise hostheap.HostHeapError(f"the timer does not build against {tree}:\n{r.stderr.strip()[-3000:]}")
    return binary


def windows(binary, sizes, runs):
    r = subprocess.run([binary, ",".join(map(str, sizes)), str(runs)], capture_output=True, text=True)
    if r.returncode != 0:
        raise hostheap.HostHeapError(f"{os.path.basename(binary)} failed: {(r.stdout + r.stderr).strip()[-2000:]}")
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


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
    lines += ["", "| stand-in calls a page | " + " | ".join(WAYS[:4]) + " |", "|---" * 5 + "|"]
    for key in ("locks", "node_lookups", "mfn_valid", "list_ops", "m2p"):
        lines.append(f"| {key} | " + " | ".join(
            f"{statistics.median(w[key] / w['pages'] for w in counted if w['way'] == way):.4f}"
            for way in WAYS[:4]) + " |")
    return "\n".join(lines)


def cmd_time(tree, sizes, runs):
    timed = windows(build_timer(tree), sizes, runs)
    counted = windows(build_timer(tree, counting=True), sizes[:1], 1)
    print(report(timed, counted))
    return 0


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
                   f"`python3 -m harness xen-src heap-time`'s windows (harness/real/xen/hosttime.py): "
                   f"the patched tree's init_heap_pages() of each variant, one range handed over as at "
                   f"boot, MAX_ORDER 20, -O2, interleaved, each window in a fresh process on the hosted "
                   f"runner's prelude; the floor is the faster of memset() and non-temporal stores of the "
                   f"same page_info bytes. Median of {r['runs']} windows, ns a page (the range in "
                   f"brackets); load average {r['load'][0]} before, {r['load'][1]} after.\n\n"
                   + report(r["windows"], r["counted"]) + "\n\n")
    return "".join(out)
