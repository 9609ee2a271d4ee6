# SPDX-License-Identifier: MIT
"""`peers-icount`: the Linux models under the deterministic emulator
(`-icount shift=0,sleep=off`, where one virtual ns is one guest
instruction), as instructions a page for each phase Linux has: memmap init,
memblock_free_all() and the deferred init; and, given the real Debian
kernels' figures from `binaries` (harness/real/binaries/run.py, binaries.jsonl),
each model held to within 10 % of its kernel at every size asked:
`linux_deferred` to Linux 6.1, `linux612` to Linux 6.12
(docs/fidelity-linux.md, "The check against the real Linux"). `linux` (6.1
without deferred init) is printed for what defer_init() costs, and held to
nothing.

One rule for the real figures, the one the report's tables use
(report.linux_per_page()): memmap and the deferred init over their own
pages, memblock_free_all() less the reserved-page init it also does."""
import json
import os
import sys
import time

from harness.qemu import runner
from harness.common import GIB, parse_size, say
from harness.real.binaries.report import REAL_OF_MODEL, linux_per_page, read_records, records_path

ICOUNT = ("-icount", "shift=0,sleep=off")
PHASES = ("memmap", "memblock_free_all", "deferred")
STRATEGIES = ("linux", "linux_deferred", "linux612")
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
        row = {"memmap": p["init_ns"] / boot_pages, "memblock_free_all": p["free_ns"] / boot_pages}
        later = [r for r in records if r["type"] == "result" and r["strategy"] == p["strategy"]
                 and r["phase"] == "deferred" and r["run"] == 0]
        if later and deferred:
            row["deferred"] = later[0]["ns"] / deferred
        out[p["strategy"]] = row
    return out


def real_phases(path):
    """{(binary, mem_bytes): {phase: instructions a page}} of the real
    kernels in `binaries`' records (a results folder or its records file),
    by the one rule; or {(None, None): {...}} from a JSON object of figures."""
    if not os.path.isdir(path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            one = json.loads(text)
            if isinstance(one, dict) and "type" not in one:
                return {(None, None): one}
        except json.JSONDecodeError:
            pass
    out = {}
    for r in read_records(path, header=False):
        if r["type"] == "binary" and r.get("binary", "").startswith("linux") and r.get("phase") in PHASES \
                and r.get("pages"):
            out.setdefault((r["binary"], r["mem_bytes"]), {})[r["phase"]] = linux_per_page(r)
    return out


def compare(ours, real, mem, tolerance=TOLERANCE):
    """[(strategy, binary, phase, ours, real, within)] at one size: each
    model against its kernel, phase by phase, where the real figures have
    this very size (or are one JSON object of figures)."""
    rows = []
    for strategy, phases in ours.items():
        binary = REAL_OF_MODEL.get(strategy)
        theirs = real.get((binary, mem)) or real.get((None, None))
        if not binary or not theirs:
            continue
        for phase in PHASES:
            if phase in phases and phase in theirs:
                ratio = phases[phase] / theirs[phase]
                rows.append((strategy, binary, phase, phases[phase], theirs[phase], abs(ratio - 1) <= tolerance))
    return rows


def boot_models(mem, timeout=900, log=None):
    """The Linux models under -icount at mem bytes -> ({strategy: {phase:
    per page}}, wall seconds), or RuntimeError with the boot's end."""
    t = time.monotonic()
    r = runner.run("pvh", mem, f"runs=1 cpus=1 strategies={','.join(STRATEGIES)} icount", "tcg",
                   timeout, True, log, extra=ICOUNT, cpus=1)
    if r.status != "ok":
        raise RuntimeError(f"the icount boot of the Linux models at {mem // GIB} GiB ended {r.status}\n"
                           f"{r.tail()}")
    return phases_per_page(r.records()), time.monotonic() - t


def model_records(mem, out):
    """`linux_model` records for binaries.jsonl: each Linux model's phases at mem."""
    ours, wall = boot_models(mem, log=os.path.join(out, f"serial-bootheap-linux-{mem // GIB}G.log"))
    return [{"type": "linux_model", "strategy": s, "mem_bytes": mem, "per_page": phases, "wall_s": round(wall, 1)}
            for s, phases in ours.items()]


def real_pages(path, binary, mem, phase):
    """The pages of a real Linux phase in `binaries`' records, or None."""
    for r in read_records(path, header=False):
        if r["type"] == "binary" and (r.get("binary"), r.get("mem_bytes"), r.get("phase")) == (binary, mem, phase):
            return r["pages"]
    return None


def cmd_profile(args):
    """--profile VERSION:PHASE: both sides function by function -> 0, or 2."""
    from harness.real.binaries import linux_profile
    version, _, phase = args.profile.partition(":")
    if version not in ("6.1", "6.12") or phase not in linux_profile.PHASES:
        print(f"harness: --profile takes 6.1 or 6.12, a colon and one of {', '.join(linux_profile.PHASES)}",
              file=sys.stderr)
        return 2
    mem = parse_size(args.mem.split(",")[0])
    real, model = linux_profile.run(version, phase, mem, None, say)
    pages = real_pages(args.real, f"linux-{version}", mem, phase) if args.real else None
    for side, prof, n in (("real", real, pages), ("model", model, model.get("pages"))):
        say(f"{side} Linux {version}, {phase}, {mem // GIB} GiB: {prof['total']:,} instructions"
            + (f" over {n:,} pages = {prof['total'] / n:.2f} a page" if n else ""))
        for name, count in sorted(prof["exclusive"].items(), key=lambda kv: -kv[1]):
            per = f"{count / n:8.3f} a page" if n else ""
            say(f"  {name:40} {prof['calls'].get(name, 0):9,} calls {count:14,} {per}")
    return 0


def cmd_peers_icount(args):
    """Boots the Linux models under icount at each size; prints instructions
    a page per phase, and with --real the comparison -> 0 within 10 % (or
    nothing to compare), 1 a phase outside it, 2 a boot failed."""
    if getattr(args, "profile", None):
        return cmd_profile(args)
    real = real_phases(args.real) if args.real else {}
    bad, records = 0, []
    for size in args.mem.split(","):
        mem = parse_size(size)
        try:
            ours, wall = boot_models(mem, args.timeout, args.log)
        except RuntimeError as e:
            print(f"harness: {e}", file=sys.stderr)
            return 2
        with open("/proc/loadavg") as f:
            load = f.read().split()[0]
        say(f"{size}: booted in {wall:.0f} s (TCG, -icount; load average {load})")
        for strategy, phases in ours.items():
            say(f"  {strategy}: " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()) +
                " instructions a page")
            records.append({"type": "linux_model", "strategy": strategy, "mem_bytes": mem, "per_page": phases,
                            "wall_s": round(wall, 1)})
        if args.real and not any(k[1] in (mem, None) for k in real):
            say(f"  the real figures have no {size}: nothing to compare at this size")
        for strategy, binary, phase, mine, theirs, within in compare(ours, real, mem):
            say(f"  {strategy} against {binary}, {phase}: {mine:.2f} against {theirs:.2f} instructions a page "
                f"({(mine / theirs - 1) * 100:+.1f} %): {'within' if within else 'OUTSIDE'} 10 %")
            bad += not within
    if args.record:
        record_into(args.record, records)
    return 1 if bad else 0


def record_into(folder, records):
    """Puts the models' records into a `binaries` folder's records file, in
    place of those it had for the same sizes, and writes its report again.
    The records already there are written back as they were."""
    from harness.real.binaries import report
    path = records_path(folder)
    with open(path, encoding="utf-8") as f:
        old = [json.loads(line) for line in f if line.strip()]
    sizes = {r["mem_bytes"] for r in records}
    kept = [r for r in old if not (r.get("type") == "linux_model" and r.get("mem_bytes") in sizes)]
    at = next((i for i, r in enumerate(kept) if r.get("type") == "end"), len(kept))
    with open(path, "w", encoding="utf-8") as f:
        for r in kept[:at] + records + kept[at:]:
            f.write(json.dumps(r) + "\n")
    report.write(folder)
    say(f"peers-icount: the models' records are in {path}; {folder}/report.md written again")
