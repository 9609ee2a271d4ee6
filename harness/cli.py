# SPDX-License-Identifier: MIT
"""The command line: `python3 -m harness COMMAND ...`, one subcommand each
(`python3 -m harness --help` lists them all, its description made from the
subcommands themselves). `run` (the run over sizes) is the default: `python3 -m
harness --sizes 1,2` runs it."""
import argparse
import sys
import textwrap

from harness.common import DEFAULT_RUNS, DEFAULT_SIZES_GIB, BenchError, parse_size, say, size_label, warn
from harness.counts import ablation, codegen
from harness.counts import callgrind as counts
from harness.hosted import runner as hosted
from harness.real import cli as real_cli
from harness.real.binaries import icount as models_icount, run as binaries
from harness.real.linux import cli as linux_src
from harness.real.xen import cli as xen_src
from harness.qemu import accel, boot, command
from harness.report import answer, hosted as hosted_report
from harness.report.compare import compare_text
from harness.qemu import folder as run_folder
from harness.report.outputs import finish
from harness.results import maps, qrpayload
from harness.results.records import load_folder
from harness.sizes import plan as sizes_plan, repeat as sizes_repeat, run as sizes_run

MAP_KINDS = ("a memory map: bootheap's serial log, records.jsonl or results folder; a Linux boot log "
             "(dmesg, journalctl -k); a Xen boot log; a /sys/firmware/memmap folder; or a map file")
COMMANDS = ("run", "report", "add", "compare", "beside", "repeat", "boot", "accel", "counts", "codegen", "ablation",
            "hosted", "map", "binaries", "peers-icount", "xen-src", "linux-src")


def cmd_report(args):
    return finish(load_folder(args.folder))


def cmd_add(args):
    """A run read back from its QR code joins a results folder."""
    label = qrpayload.add_to_folder(args.folder, args.payload)
    say(f"bench: the run read from its QR code joins {args.folder} as {label}")
    return finish(load_folder(args.folder))


def cmd_compare(args):
    say(compare_text(load_folder(args.a), load_folder(args.b)))
    return 0


def cmd_beside(args):
    say(hosted_report.beside_text(load_folder(args.a), load_folder(args.b)))
    return 0


def cmd_map(args):
    """A map of any kind as the map file the hosted runner reads."""
    m = maps.read(args.path, parse_size(args.mem) if args.mem else None)
    if m.plain:
        with open(m.plain, encoding="utf-8", errors="replace") as f:
            out = f.read()
    else:
        out = maps.text(m)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    return 0


def cmd_boot(args):
    """One boot, as `make run` does (any BOOT=, GDB=1 too) -> 0 ok, 1 the
    kernel failed, 2 no verdict (timeout, stall, QEMU error). The
    terminal gets the kernel's human lines (its records too with
    --verbose), the results folder everything (harness/qemu/folder.py)."""
    notes = []

    def said(msg):
        """The harness's lines: all in the folder; the QEMU command and the
        accelerator probe's figures on the terminal only with --verbose."""
        notes.append(msg)
        if args.verbose or not msg.startswith(("harness: qemu-system", "harness:   probe under")):
            print(msg, file=sys.stderr, flush=True)
    try:
        mem_bytes, _ = command.prepare(args.mode, args.mem, args.stall, not args.no_serial, args.gdb,
                                       args.cpus, args.nodes)
        folder = run_folder.RunFolder(args.out)
        log_name = f"serial-{size_label(mem_bytes)}.log"
        r = boot.boot(args.mode, args.mem, args.append, args.accel, args.timeout, args.quiet,
                      folder.file(log_name), args.machine_opts, not args.no_serial, args.gdb,
                      stall=args.stall, cpus=args.cpus, nodes=args.nodes, say=said, records=args.verbose)
    except (RuntimeError, ValueError, BenchError) as e:
        print(f"harness: {e}", file=sys.stderr)
        return 2
    print(f"harness: {args.mode} boot under {r.accel.upper()} ended: {r.status} "
          f"(qemu exit {r.qemu_rc}, {r.elapsed:.1f} s)", file=sys.stderr)
    if r.status not in ("ok", "stalled"):     # a stalled boot's ending the runner said already
        print(f"harness: the log ends:\n{r.ending()}", file=sys.stderr)
    folder.keep_boot(r, mem_bytes, args.mode, args.append, args.accel, log_name, notes)
    # Emulated figures are not the answer: the same code on this CPU goes beside them (make run).
    if args.hosted_beside and r.accel == "tcg" and r.status == "ok":
        hosted_result, lines = answer.after_tcg(r, mem_bytes, args.append)
        folder.keep_answer(hosted_result, mem_bytes, lines)
    for line in folder.closing_lines():
        print(line, file=sys.stderr, flush=True)
    return {"ok": 0, "fail": 1}.get(r.status, 2)


def cmd_accel(args):
    """Which accelerator a boot of this size would get, and why."""
    work = accel.Work.for_boot(command.guest_mem(args.mem), args.append)
    acc = accel.choose(args.accel, args.mode, lambda m: say(m), work)
    say(acc)
    return 0


def seconds(text):
    """An argparse type: seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: seconds cannot be negative (0 means no limit)")
    return value


def add_boot_options(p):
    p.add_argument("--mode", choices=command.MODES, default="pvh", help="boot path")
    p.add_argument("--accel", choices=command.ACCELS, default=command.default_accel(),
                   help="accelerator (default: BOOTHEAP_ACCEL, else auto: chosen by measurement)")
    p.add_argument("--stall", type=seconds, default=None,
                   help=f"seconds of serial silence that end a boot (default: BOOTHEAP_STALL, else "
                        f"{command.STALL_BASE:g} plus {command.STALL_PER_GIB:g} per GiB of guest, at most "
                        f"{command.STALL_MAX:g}; 0 never)")


def parser():
    ap = argparse.ArgumentParser(
        prog="python3 -m harness", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python3 -m harness --sizes 4,8 --runs 5\n"
               "  python3 -m harness report results/<date-time>\n"
               "  python3 -m harness add results/<date-time> payload.txt\n"
               "  python3 -m harness compare results/<before> results/<after>\n"
               "  python3 -m harness boot --mem 8G --append 'runs=3'\n"
               "  python3 -m harness run --hosted --sizes 1,8 --runs 3\n"
               "  python3 -m harness beside results/<hosted> results/<tcg>\n"
               "  python3 -m harness counts --sizes 256M,8G --out results/<hosted>\n"
               "  python3 -m harness ablation --sizes 8G --runs 9 --counts 8G\n"
               "  python3 -m harness hosted --map dmesg.txt runs=3\n"
               "  python3 -m harness map /sys/firmware/memmap -o this-machine.map")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND", title="commands")
    r = sub.add_parser("run", help="the run over memory sizes: a boot each, then the report (the default; --hosted: on the "
                       "hosted runner)",
                       description=f"Sizes default to {','.join(map(str, DEFAULT_SIZES_GIB))} GiB with "
                       f"{DEFAULT_RUNS} runs under KVM, and to "
                       f"{','.join(map(str, sizes_plan.TCG_SIZES_GIB))} GiB with {sizes_plan.TCG_RUNS} runs "
                       "under TCG; with --hosted to "
                       f"{','.join(map(str, hosted.SIZES_GIB))} GiB with {hosted.RUNS} runs; "
                       "--sizes and --runs always win.")
    r.add_argument("--sizes", help="GiB list, e.g. 1,2,4 or 0.5 (units like 512M also work)")
    r.add_argument("--runs", type=int, help="runs per strategy (kernel arg runs=N)")
    r.add_argument("--strategies", help="comma list passed as strategies=...; default: the kernel's")
    add_boot_options(r)
    r.add_argument("--out", help="results folder (default results/<date-time>)")
    r.add_argument("--quick", action="store_true",
                   help=f"sizes {','.join(map(str, sizes_plan.QUICK_SIZES_GIB))} GiB, {sizes_plan.QUICK_RUNS} runs")
    r.add_argument("--hosted", action="store_true",
                   help=f"run build/bootheap-host, the kernel's heap code in user space, instead of QEMU "
                        f"(sizes {','.join(map(str, hosted.SIZES_GIB))} GiB, {hosted.RUNS} runs)")
    r.add_argument("--repeat", action="store_true",
                   help="the run over sizes twice, back to back, into OUT/1 and OUT/2, and OUT/repeat.md with "
                        "each strategy-size's two headline figures and their difference")
    r.add_argument("--full", action="store_true",
                   help="with --hosted: time the first touch in every run at every size (by default "
                        f"the first run only from {hosted.TOUCH_SAMPLED_FROM >> 30} GiB up)")
    r.add_argument("--passes", type=int,
                   help="with --hosted: spread each size's runs over N passes of the sizes, a boot a size "
                        "each (default: a pass a run)")
    r.add_argument("--budget", type=seconds,
                   help="with --hosted: seconds for the runs added where a window's 95%% interval is wider "
                        "than --target (default: none, and for the default sizes what is left of 280 s from the start)")
    r.add_argument("--target", type=float, default=5.0,
                   help="with --hosted: the interval half-width, in %% of the median, that added runs aim for")
    r.add_argument("--timeout", type=seconds, default=sizes_plan.DEFAULT_TIMEOUT, help="seconds per boot")
    r.add_argument("--verbose", "-v", action="store_true", help="show the serial output and QEMU command")
    p = sub.add_parser("report", help="rewrite summary.csv, report.md and plot.png of a results folder")
    p.add_argument("folder")
    q = sub.add_parser("add", help="add a run read from its QR code to a results folder",
                       description="PAYLOAD is the scanned text (newlines, or \\n on one line) or a "
                       "file holding it; docs/records.md, 'The QR code's payload', defines it.")
    q.add_argument("folder")
    q.add_argument("payload")
    c = sub.add_parser("compare", help="per-strategy change from results folder A to B")
    c.add_argument("a")
    c.add_argument("b")
    t = sub.add_parser("repeat", help="two hosted runs over sizes: headline figures side by side, with their "
                       "difference")
    t.add_argument("a")
    t.add_argument("b")
    t.add_argument("--out", help="where to write the markdown (default B/repeat.md)")
    s = sub.add_parser("beside", help="two results folders side by side, e.g. a hosted run and a TCG run")
    s.add_argument("a")
    s.add_argument("b")
    n = sub.add_parser("counts", help="exact counts per page under callgrind (the hosted runner)")
    n.add_argument("--sizes", default="256M,8G", help="sizes to count (default 256M,8G)")
    n.add_argument("--append", default="", help="kernel options (default runs=1)")
    n.add_argument("--out", help="results folder, new or existing (default results/counts-<date-time>)")
    n.add_argument("--runner", default=counts.RUNNER, help=argparse.SUPPRESS)
    x = sub.add_parser("ablation", help="the page/chunk ratio under each model of Xen's per-call costs "
                       "(the hosted runner, timed and counted)")
    x.add_argument("--sizes", default=ablation.DEFAULT_SIZES,
                   help=f"sizes to time (default {ablation.DEFAULT_SIZES})")
    x.add_argument("--runs", type=int, default=ablation.DEFAULT_RUNS,
                   help=f"interleaved rounds of every set (default {ablation.DEFAULT_RUNS}; 0: none)")
    x.add_argument("--counts", default=ablation.DEFAULT_COUNTS,
                   help="sizes to count under callgrind, each with every set or SIZE=set;set "
                        f"(default '{ablation.DEFAULT_COUNTS}'; '' counts nothing)")
    x.add_argument("--out", help="results folder, new or existing (default results/ablation-<date-time>)")
    x.add_argument("--timeout", type=seconds, default=600, help="seconds per hosted run")
    pi = sub.add_parser("peers-icount", help="the Linux models' instructions per page per phase under "
                        "-icount, against the real Linux 6.1 and 6.12 when given")
    pi.add_argument("--mem", default="1G", help="a size or a comma list of them (1G,2G,...)")
    pi.add_argument("--timeout", type=seconds, default=900)
    pi.add_argument("--log", default=None)
    pi.add_argument("--profile", metavar="VERSION:PHASE", help="instead, the real Linux VERSION (6.1, 6.12) "
                    "and its model function by function in PHASE (memmap, memblock_free_all, deferred) at "
                    "the first --mem size, by breakpoints; --real gives the real phase's pages")
    pi.add_argument("--record", metavar="FOLDER", help="also put the models' figures into FOLDER's "
                    "records (a `binaries` folder), in place of any for the same sizes, and rewrite "
                    "its report")
    pi.add_argument("--real", default=None, help="the real Linux's figures: a `binaries` results "
                    "folder or its binaries.jsonl, "
                    'or JSON {"memmap": N, "memblock_free_all": N, "deferred": N} a page')
    g = sub.add_parser("codegen", help="the hosted runner's hot functions against the kernel's machine code")
    g.add_argument("kernel", nargs="?", default=codegen.KERNEL)
    g.add_argument("hosted", nargs="?", default=codegen.HOSTED)
    g.add_argument("--diff", action="store_true", help="print the differences")
    h = sub.add_parser("hosted", help="the hosted runner once, on a memory map of any kind",
                       description="Runs build/bootheap-host on MAP after writing it as a map file "
                       "(docs/usage-hosted.md, 'Map files'), or on q35's map of --mem SIZE. Exits with the "
                       "runner's status (0 ok, 1 the run failed, 2 a bad map or arguments, 3 not "
                       "enough memory).")
    h.add_argument("--map", help=MAP_KINDS)
    h.add_argument("--mem", help="without --map: q35's map of SIZE (default 8G); with --map: the "
                   "guest of SIZE, where bootheap's records hold several")
    h.add_argument("--cpus", help="threads for the parallel init (the runner's --cpus)")
    h.add_argument("--mem-limit", help="the runner's --mem-limit SIZE")
    h.add_argument("--map-only", action="store_true", help="print the boot record with the map, and stop")
    h.add_argument("--keep-map", metavar="FILE", help="write the map file here and keep it")
    h.add_argument("--append", default="", help="kernel options, e.g. 'runs=3 strategies=page,chunk'")
    h.add_argument("options", nargs="*", help="more kernel options")
    h.add_argument("--runner", default=hosted.RUNNER, help=argparse.SUPPRESS)
    m = sub.add_parser("map", help="a memory map of any kind as the hosted runner's map file")
    m.add_argument("path", metavar="MAP", help=MAP_KINDS)
    m.add_argument("--mem", help="the guest of SIZE, where bootheap's records hold several")
    m.add_argument("-o", "--out", help="write it here instead of to stdout")
    b = sub.add_parser("boot", help="boot once, the kernel's human lines on the terminal and everything in "
                       "a results folder; exit 0 ok, 1 fail, 2 no verdict")
    add_boot_options(b)
    b.add_argument("--mem", default="1G", help="guest memory, e.g. 512M, 8G, 1T")
    b.add_argument("--append", default="", help="kernel command line")
    b.add_argument("--timeout", type=seconds, default=600, help="seconds; 0 waits forever")
    b.add_argument("--log", help="also write the serial log here")
    b.add_argument("--machine-opts", default="", help="extra -machine options, e.g. pit=off")
    b.add_argument("--cpus", type=int, default=1,
                   help="vCPUs (multi-threaded TCG under TCG); make run gives one per host core")
    b.add_argument("--nodes", type=int, default=1,
                   help="NUMA nodes: memory and CPUs split evenly, one memory-backend-ram each")
    b.add_argument("--no-serial", action="store_true", help="boot without a serial port")
    b.add_argument("--hosted-beside", action="store_true",
                   help="under TCG, then run build/bootheap-host at the same size and end with both "
                        "answers, each labelled (make run)")
    b.add_argument("--gdb", action="store_true", help="wait for gdb on :1234")
    b.add_argument("--out", help="results folder: the serial log, records.jsonl, report.md and the QR "
                   "code's payload (default results/run-<date-time>)")
    b.add_argument("--verbose", "-v", action="store_true",
                   help="show the kernel's JSON records, the QEMU command and the accelerator probe's "
                        "figures on the terminal too (make run V=1); they are in the results folder "
                        "either way")
    b.add_argument("--quiet", action="store_true", help="no serial output on the terminal")
    binaries.add_parser(sub)
    xen_src.add_parser(sub)
    linux_src.add_parser(sub)
    a = sub.add_parser("accel", help="the accelerator a boot would get, and why (probes when KVM is offered)")
    add_boot_options(a)
    a.add_argument("--mem", default="8G", help="guest memory of the boot in question")
    a.add_argument("--append", default="", help="its kernel command line")
    ap.description = describe(sub)
    return ap


def describe(sub):
    """The top-level description, made from the subcommands `sub` holds, so
    that it names every one of them."""
    names = list(sub.choices)
    return textwrap.fill(
        f"bootheap's host side, in {len(names)} commands: {', '.join(names[:-1])} and {names[-1]}, each "
        "described below. `run` is the default, so `python3 -m harness --sizes 1,2` runs those sizes; "
        "`python3 -m harness COMMAND --help` gives a command's options.", 79, break_on_hyphens=False)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in real_cli.RETIRED:
        return real_cli.retired_command(argv[0])
    if not argv or argv[0] not in COMMANDS + ("-h", "--help"):
        argv.insert(0, "run")
    try:
        ap = parser()
        args, extra = ap.parse_known_args(argv)
    except ValueError as e:         # a bad BOOTHEAP_ACCEL
        warn(f"harness: {e}")
        return 2
    # hosted's kernel options may come between its own, where argparse stops taking them.
    if args.cmd == "hosted" and not any(x.startswith("-") for x in extra):
        args.options += extra
    elif extra:
        ap.error(f"unrecognized arguments: {' '.join(extra)}")
    run = {"run": sizes_repeat.cmd_run_twice if getattr(args, "repeat", False) else sizes_run.cmd_run,
           "repeat": sizes_repeat.cmd_repeat, "report": cmd_report, "add": cmd_add, "compare": cmd_compare,
           "beside": cmd_beside, "boot": cmd_boot, "accel": cmd_accel, "counts": counts.cmd_counts,
           "codegen": codegen.cmd_codegen, "ablation": ablation.cmd_ablation, "hosted": hosted.cmd_hosted,
           "map": cmd_map, "binaries": real_cli.run, "peers-icount": models_icount.cmd_peers_icount,
           "xen-src": real_cli.run, "linux-src": real_cli.run}[args.cmd]
    try:
        return run(args)
    except BenchError as e:
        warn(f"bench: {e}")
        return 2
    except (RuntimeError, ValueError) as e:
        warn(f"harness: {e}")
        return 2
