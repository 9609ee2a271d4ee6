# SPDX-License-Identifier: MIT
"""`run`: boots the kernel over a sweep of memory sizes, one boot per size,
and keeps every record with the size it came from in records.jsonl."""
import datetime
import json
import os
import re
import time

from harness import ROOT, accel as accel_mod, boot, hosted, qemu
from harness.common import (DEFAULT_RUNS, DEFAULT_SIZES_GIB, GIB, MIB, TCG_LABEL, BenchError,
                            gib_text, parse_sizes, say, size_label, warn)
from harness.records import SizeRun, load_folder, parse_serial
from harness.report import banner, finish
from harness.stats import failures

# Under TCG the whole default sweep takes about 4 minutes with 3 runs
# (measured here), so an emulated sweep keeps the sizes and does fewer runs.
TCG_SIZES_GIB = DEFAULT_SIZES_GIB
TCG_RUNS = 3
QUICK_SIZES_GIB = (1, 4)
QUICK_RUNS = 3
DEFAULT_TIMEOUT = 600


def plan(args, accel):
    """(sizes in bytes, runs, notes) for a sweep under `accel`."""
    notes = []
    if args.quick:
        sizes, runs = [s * GIB for s in QUICK_SIZES_GIB], QUICK_RUNS
    elif accel == "host":
        sizes, runs = hosted.default_sizes(), hosted.RUNS
    elif accel == "tcg":
        sizes, runs = [s * GIB for s in TCG_SIZES_GIB], TCG_RUNS
        if args.sizes is None:
            notes.append(f"TCG: reduced default sweep ({TCG_RUNS} runs per strategy instead of "
                         f"{DEFAULT_RUNS}) because every boot is emulated; "
                         "pass --sizes (and --runs) for another sweep.")
    else:
        sizes, runs = [s * GIB for s in DEFAULT_SIZES_GIB], DEFAULT_RUNS
    if args.sizes is not None:
        sizes = parse_sizes(args.sizes)
    if args.runs is not None:
        if args.runs < 1:
            raise BenchError("--runs must be at least 1")
        runs = args.runs
    return sizes, runs, notes


def kernel_args(runs, strategies):
    append = f"runs={runs}"
    if strategies:
        names = [s.strip() for s in strategies.split(",") if s.strip()]
        for s in names:
            if not re.fullmatch(r"[a-z0-9_]+", s):
                raise BenchError(f"bad strategy name {s!r} in --strategies")
        append += " strategies=" + ",".join(names)
    return append


def make_out_dir(out):
    if out is None:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
        out = os.path.join(ROOT, "results", stamp)
        n = 1
        while os.path.exists(out):
            n += 1
            out = os.path.join(ROOT, "results", f"{stamp}-{n}")
    if os.path.isdir(out) and os.listdir(out):
        raise BenchError(f"{out} is not empty: choose another --out")
    os.makedirs(out, exist_ok=True)
    return out


def choose_accel(args):
    """The sweep's accelerator, for the work of the whole default sweep."""
    sizes, runs, _ = plan(args, "kvm")
    work = accel_mod.Work.for_boot(sum(sizes), kernel_args(runs, args.strategies))
    return accel_mod.choose(args.accel, args.mode, lambda m: say("bench: " + m.replace("harness: ", "")),
                            work)


def cmd_run(args):
    """`run`: the sweep, then its outputs -> exit status."""
    accel = "host" if args.hosted else choose_accel(args)
    mode = "hosted" if args.hosted else args.mode
    sizes, runs, notes = plan(args, accel)
    append = kernel_args(runs, args.strategies)
    if args.hosted and not getattr(args, "full", False) and any(n >= hosted.TOUCH_SAMPLED_FROM for n in sizes):
        notes.append(hosted.sampling_note())
    out = make_out_dir(args.out)
    emulated = accel == "tcg"
    if emulated:
        banner()
    for n in notes:
        say(f"bench: {n}")
    say(f"bench: {mode} under {accel.upper()}, sizes {', '.join(gib_text(s) for s in sizes)}, "
        f"kernel args '{append}', results in {out}")
    info = {"type": "sweep", "mode": mode, "accel_requested": args.accel, "accel": accel,
            "sizes_bytes": sizes, "runs": runs, "strategies": args.strategies or "",
            "append": append, "notes": notes, "quick": bool(args.quick),
            "started": datetime.datetime.now().isoformat(timespec="seconds"),
            "host_mem_available": qemu.mem_available()}
    jsonl_path = os.path.join(out, "records.jsonl")
    start = time.monotonic()
    interrupted = False
    with open(jsonl_path, "w", encoding="utf-8") as jf:
        def put(nbytes, source, rec):
            jf.write(json.dumps({"size_bytes": nbytes, "size": size_label(nbytes) if nbytes else None,
                                 "size_gib": nbytes / GIB if nbytes else None,
                                 "source": source, "record": rec}) + "\n")
            jf.flush()
        put(None, "harness", info)
        for k, nbytes in enumerate(sizes, 1):
            label = size_label(nbytes)
            log_name = f"serial-{label}.log"
            said = []

            def collect(*a):
                said.append(" ".join(str(x) for x in a))
            say(f"bench: [{k}/{len(sizes)}] {gib_text(nbytes)}: {'running' if args.hosted else 'booting'} ...")
            try:
                if args.hosted:
                    r = hosted.run(nbytes, hosted.size_append(nbytes, append, getattr(args, "full", False)),
                                   os.path.join(out, log_name), args.timeout)
                    said += [m for m in r.stderr.splitlines() if m.strip()]
                else:
                    r = boot.boot(mode=args.mode, mem=f"{nbytes // MIB}M", append=append, accel=accel,
                                  timeout=args.timeout, quiet=not args.verbose,
                                  log_path=os.path.join(out, log_name), say=collect, stall=args.stall)
            except KeyboardInterrupt:
                interrupted = True
                warn("bench: interrupted; writing what was collected")
                break
            except (RuntimeError, ValueError) as e:
                raise BenchError(str(e))
            # Keep what the runner said that matters for reading the numbers
            # (reserve=off, QEMU errors); the full command goes to records.jsonl.
            notes = [m.replace("harness: ", "") for m in said
                     if not m.startswith("harness: qemu-system") and "accelerator" not in m]
            for m in said if args.verbose else notes:
                say("bench:   " + m.replace("harness: ", ""))
            records, problems = parse_serial(r.log)
            for rec in records:
                put(nbytes, "kernel", rec)
            put(nbytes, "harness", {"type": "boot_result", "status": r.status, "qemu_rc": r.qemu_rc,
                                    **({"runner_rc": r.runner_rc} if args.hosted else {}),
                                    "accel": r.accel, "mode": mode, "append": append,
                                    "elapsed_s": round(r.elapsed, 3), "log": log_name,
                                    "parse_problems": problems, "notes": notes, "cmd": r.cmd})
            run = SizeRun(nbytes)
            run.records, run.harness = records, {"status": r.status, "qemu_rc": r.qemu_rc, "accel": r.accel,
                                                 **({"runner_rc": r.runner_rc} if args.hosted else {})}
            f = failures(run)
            tag = f" [{TCG_LABEL}]" if r.accel == "tcg" else ""
            say(f"bench: [{k}/{len(sizes)}] {gib_text(nbytes)}: {'ok' if not f else 'FAILED'} "
                f"in {r.elapsed:.1f} s{tag}")
            for msg in f:
                warn(f"bench:   {msg} (serial log: {os.path.join(out, log_name)})")
        info["elapsed_s"] = round(time.monotonic() - start, 3)
    # The sweep record goes first in the file; rewrite it with the wall time.
    with open(jsonl_path, encoding="utf-8") as f:
        lines = f.readlines()
    lines[0] = json.dumps({"size_bytes": None, "size": None, "size_gib": None,
                           "source": "harness", "record": info}) + "\n"
    with open(jsonl_path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return finish(load_folder(out), interrupted)


