# SPDX-License-Identifier: MIT
"""`run`: the plan of a run over sizes (harness/sizes/plan.py) carried out: one boot per
size under the plan's accelerator (or one run of the hosted runner), every
record kept with the size it came from in records.jsonl, then the report
(harness/report/)."""
import datetime
import os
import signal
import time

from harness.common import MIB, TCG_LABEL, BenchError, gib_text, say, size_label, warn
from harness.hosted import runner as hosted
from harness.qemu import command, runner
from harness.report.outputs import banner, finish
from harness.results.records import SizeRun, load_folder, new_folder, parse_serial, wrap
from harness.results.stats import failures
from harness.sizes import adding, plan as plan_mod


def make_out_dir(out):
    return new_folder(out)


def run_size(plan, nbytes, append, log_path, args, collect):
    """One boot of the plan with the kernel arguments append: under the
    plan's accelerator, or a run of the hosted runner -> a runner's Result."""
    if plan.hosted:
        r = hosted.run(nbytes, hosted.size_append(nbytes, append, plan.full), log_path, args.timeout)
        for m in r.stderr.splitlines():
            if m.strip():
                collect(m)
        return r
    return runner.run(mode=plan.mode, mem=f"{nbytes // MIB}M", append=append, acc=plan.accel,
                      timeout=args.timeout, quiet=not args.verbose, log_path=log_path, say=collect,
                      stall=args.stall)


# A stop asked for (Ctrl-C, SIGTERM) while a size runs ends that size's run
# at once; asked for between sizes, it waits for the size's records and
# line to be written, and the run stops before the next size.
_STOP = {"asked": False, "running": False}


def _stop(signum, frame):
    """SIGTERM and Ctrl-C: the run keeps what it collected and says which sizes it did not reach."""
    _STOP["asked"] = True
    if _STOP["running"]:
        _STOP["running"] = False
        raise KeyboardInterrupt


def boot(plan, args, out, put, k, nbytes, runs, done, where):
    """One boot of pass k at one size, of `runs` runs numbered from the
    whole run's done[nbytes]; its records written with put -> False when a stop
    was asked for (before it, or while it ran)."""
    log_name = f"serial-{size_label(nbytes)}.log" if k == 0 else f"pass{k}-{size_label(nbytes)}.log"
    said = []

    def collect(*a):
        said.append(" ".join(str(x) for x in a))
    if _STOP["asked"]:
        warn(f"bench: stopped before {gib_text(nbytes)}; writing what was collected")
        return False
    run0 = done[nbytes]
    append = plan.boot_append(nbytes, runs, run0)
    try:
        _STOP["running"] = True
        say(f"bench: {where} {gib_text(nbytes)}: {'running' if plan.hosted else 'booting'} ...")
        r = run_size(plan, nbytes, append, os.path.join(out, log_name), args, collect)
        _STOP["running"] = False
    except KeyboardInterrupt:
        _STOP["running"] = False
        warn(f"bench: interrupted before {gib_text(nbytes)} finished; writing what was collected")
        return False
    except (RuntimeError, ValueError) as e:
        _STOP["running"] = False
        raise BenchError(str(e))
    done[nbytes] += runs
    # Keep what the runner said that matters for reading the numbers
    # (reserve=off, QEMU errors); the full command goes to records.jsonl.
    notes = [m.replace("harness: ", "") for m in said if not m.startswith("harness: qemu-system")]
    for m in said if args.verbose else notes:
        say("bench:   " + m.replace("harness: ", ""))
    tag = {"pass": k, "run0": run0} if plan.hosted else {}
    records, problems = parse_serial(r.log)
    for rec in records:
        put(nbytes, "kernel", rec, tag)
    rc = {"runner_rc": r.runner_rc} if plan.hosted else {}
    put(nbytes, "harness", {"type": "boot_result", "status": r.status, "qemu_rc": r.qemu_rc, **rc,
                            "accel": r.accel, "mode": plan.mode, "append": append,
                            "elapsed_s": round(r.elapsed, 3), "log": log_name,
                            "parse_problems": problems, "notes": notes, "cmd": r.cmd}, tag)
    run = SizeRun(nbytes)
    run.records, run.harness = records, {"status": r.status, "qemu_rc": r.qemu_rc, "accel": r.accel, **rc}
    f = failures(run)
    tag = f" [{TCG_LABEL}]" if r.accel == "tcg" else ""
    say(f"bench: {where} {gib_text(nbytes)}: {'ok' if not f else 'FAILED'} in {r.elapsed:.1f} s{tag}")
    for msg in f:
        warn(f"bench:   {msg} (serial log: {os.path.join(out, log_name)})")
    return True


def cmd_run(args):
    """`run`: the plan, the boots, then their outputs -> exit status. The
    `run` record goes first and every record as it comes, so a run killed
    between sizes still leaves a folder that `report` reads; interrupted
    (Ctrl-C, SIGTERM), it writes its outputs from what it has."""
    _STOP.update(asked=False, running=True)     # the plan: a stop ends it at once
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    plan = plan_mod.make(args)
    mode, accel, sizes, append = plan.mode, plan.accel, plan.sizes, plan.append
    out = make_out_dir(args.out)
    if accel == "tcg":
        banner()
    for n in plan.notes:
        say(f"bench: {n}")
    say(f"bench: {mode} under {accel.upper()}, sizes {', '.join(gib_text(s) for s in sizes)}, "
        f"kernel args '{append}', results in {out}")
    info = {"type": "run", "mode": mode, "accel_requested": args.accel, "accel": accel,
            "sizes_bytes": sizes, "runs": plan.runs, "strategies": args.strategies or "",
            "append": append, "notes": plan.notes, "quick": bool(args.quick),
            "started": datetime.datetime.now().isoformat(timespec="seconds"),
            "host_mem_available": command.mem_available()}
    jsonl_path = os.path.join(out, "records.jsonl")
    start = time.monotonic()
    interrupted = False
    with open(jsonl_path, "w", encoding="utf-8") as jf:
        def put(nbytes, source, rec, tag=None):
            jf.write(wrap(nbytes, source, rec, tag))
            jf.flush()
        put(None, "harness", info)
        _STOP["running"] = False
        done = {n: 0 for n in sizes}           # runs each size has had
        jobs = [(k, n, plan.pass_runs(n)[k]) for k in range(plan.passes) for n in sizes]
        jobs = [j for j in jobs if j[2]]
        for i, (k, nbytes, runs) in enumerate(jobs, 1):
            where = (f"pass {k + 1} of {plan.passes}, " if plan.passes > 1 else "") + f"[{i}/{len(jobs)}]"
            if not boot(plan, args, out, put, k, nbytes, runs, done, where):
                interrupted = True
                break
        # Runs are added to the default sizes, or to any given a --budget.
        if not interrupted and plan.hosted and plan.passes > 1 and \
                (plan.default or getattr(args, "budget", None) is not None):
            interrupted = not adding.add_runs(plan, args, jsonl_path, start,
                                              lambda k, n, where: boot(plan, args, out, put, k, n, 1, done, where))
        info["elapsed_s"] = round(time.monotonic() - start, 3)
        info["interrupted"] = interrupted
    # The run record goes first in the file; rewrite it with the wall time.
    with open(jsonl_path, encoding="utf-8") as f:
        lines = f.readlines()
    lines[0] = wrap(None, "harness", info)
    with open(jsonl_path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return finish(load_folder(out), interrupted)
