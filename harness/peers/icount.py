# SPDX-License-Identifier: MIT
"""`peers-icount`: the Linux peers (`linux`, `linux_deferred`) under the
deterministic emulator (`-icount shift=0,sleep=off`, where one virtual ns is
one guest instruction), as instructions per page for each phase Linux has:
memmap init, memblock_free_all() and the deferred init; and, given the real
Debian 6.1 kernel's figures for the same phases, each phase held to within
10 % of them (docs/fidelity.md, "The check against the real Linux"). The real
figures come from `make peers` (harness/peers/run.py), which boots Debian's
Linux 6.1 under the same emulator and writes them to peers.jsonl."""
import json
import os
import sys

from harness.qemu import runner
from harness.common import parse_size, say

ICOUNT = ("-icount", "shift=0,sleep=off")
PHASES = ("memmap_init", "memblock_free_all", "deferred_init")
TOLERANCE = 0.10


def phases_per_page(records):
    """{strategy: {phase: instructions per page}} from a run's records (run 0):
    memmap init and the free over the pages the boot part took, the
    deferred init over the pages it took."""
    bench = next(r for r in records if r["type"] == "bench")
    pages = bench["pages"]
    out = {}
    for p in records:
        if p["type"] != "peer" or p["run"] != 0 or not p["strategy"].startswith("linux"):
            continue
        deferred = sum(n["pages"] for n in p["nodes"])
        boot_pages = pages - deferred
        row = {"memmap_init": p["init_ns"] / boot_pages, "memblock_free_all": p["free_ns"] / boot_pages}
        later = [r for r in records if r["type"] == "result" and r["strategy"] == p["strategy"]
                 and r["phase"] == "deferred" and r["run"] == 0]
        if later and deferred:
            row["deferred_init"] = later[0]["ns"] / deferred
        out[p["strategy"]] = row
    return out


REAL_PHASES = {"memmap": "memmap_init", "memblock_free_all": "memblock_free_all",
               "deferred": "deferred_init"}


def real_per_page(path, mem=None):
    """The real Linux's instructions a page per phase: from `make peers`'
    records (a results folder or its peers.jsonl; the size nearest `mem`
    when several), or from a JSON object of them."""
    if os.path.isdir(path):
        path = os.path.join(path, "peers.jsonl")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        one = json.loads(text)
        if isinstance(one, dict) and "type" not in one:
            return one
    except json.JSONDecodeError:
        pass
    recs = [json.loads(line) for line in text.splitlines() if line.strip()]
    recs = [r for r in recs if r.get("type") == "peer" and r.get("peer", "").startswith("linux")
            and r.get("phase") in REAL_PHASES and r.get("pages")]
    if not recs:
        return {}
    sizes = sorted({r["mem_bytes"] for r in recs}, key=lambda m: abs(m - (mem or m)))
    return {REAL_PHASES[r["phase"]]: r["instructions"] / r["pages"] for r in recs if r["mem_bytes"] == sizes[0]}


def compare(ours, real, tolerance=TOLERANCE):
    """[(strategy, phase, ours, real, within)] for each phase both have."""
    rows = []
    for strategy, phases in ours.items():
        for phase in PHASES:
            if phase in phases and phase in real:
                ratio = phases[phase] / real[phase]
                rows.append((strategy, phase, phases[phase], real[phase], abs(ratio - 1) <= tolerance))
    return rows


def cmd_peers_icount(args):
    """Boots the Linux peers under icount; prints instructions per page per
    phase, and with --real the comparison -> 0 within 10 % (or nothing to
    compare), 1 a phase outside it, 2 the boot failed."""
    r = runner.run("pvh", args.mem, "runs=1 cpus=1 strategies=linux,linux_deferred icount", "tcg",
                   args.timeout, True, args.log, extra=ICOUNT, cpus=1)
    if r.status != "ok":
        print(f"harness: the icount boot ended {r.status}\n{r.tail()}", file=sys.stderr)
        return 2
    ours = phases_per_page(r.records())
    for strategy, phases in ours.items():
        say(f"{strategy}: " + ", ".join(f"{k} {v:.1f} instructions a page" for k, v in phases.items()))
    if not args.real:
        return 0
    real = real_per_page(args.real, parse_size(args.mem))
    bad = 0
    for strategy, phase, mine, theirs, within in compare(ours, real):
        say(f"{strategy} {phase}: {mine:.1f} against the real Linux's {theirs:.1f} instructions a page "
            f"({(mine / theirs - 1) * 100:+.1f} %): {'within' if within else 'OUTSIDE'} 10 %")
        bad += not within
    return 1 if bad else 0
