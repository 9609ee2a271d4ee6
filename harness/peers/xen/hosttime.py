# SPDX-License-Identifier: MIT
"""Xen's own init_heap_pages() timed on this CPU (`python3 -m harness
xen-heap-test --time`): hosted/xenheap/timer.c built against a patched
tree's page_alloc.c as the tester is (harness/peers/xen/hostheap.py), at
MAX_ORDER 20 and -O2 as Xen builds it, each heap-init= variant and the
memset floor of its page_info bytes in windows of thread CPU time,
interleaved, each on the hosted runner's prelude. A second build counts
the stand-ins' calls, so that what they add can be named."""
import json
import os
import statistics
import subprocess

from harness.peers.xen import hostheap

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


def report(timed, counted):
    """The table: ns a page (median of the runs, and the range), the ratios, and the stand-ins' calls a page."""
    lines = ["| GiB | " + " | ".join(f"{w} ns/page" for w in WAYS) +
             " | chunk/sweep | page/chunk | sweep/floor |", "|---" * (len(WAYS) + 4) + "|"]
    for gib in sorted({w["gib"] for w in timed}):
        med = {}
        cells = []
        for way in WAYS:
            ns = [w["ns"] / w["pages"] for w in timed if w["gib"] == gib and w["way"] == way]
            med[way] = statistics.median(ns)
            cells.append(f"{med[way]:.2f} ({min(ns):.2f}-{max(ns):.2f})")
        lines.append(f"| {gib} | " + " | ".join(cells) + f" | {med['chunk'] / med['sweep']:.2f}x | "
                     f"{med['page'] / med['chunk']:.2f}x | {med['sweep'] / med['floor']:.2f}x |")
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
