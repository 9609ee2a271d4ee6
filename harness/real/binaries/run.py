# SPDX-License-Identifier: MIT
"""`python3 -m harness binaries` (`binaries`): the seed's experiment on the
real binaries. Debian's Xen 4.14 (page by page), Xen 4.17 (chunked), Linux
6.1 and Linux 6.12 boot under QEMU's deterministic TCG beside bootheap's
strategies and Linux models, at each size; every figure is an exact count
of guest instructions. The
records go to binaries.jsonl in a results folder, with the serial logs, a
report.md and a plot (harness/real/binaries/report.py)."""
import datetime
import json
import os
import subprocess
import time

from harness.real import cli as real_cli
from harness.real.bracket import boot as realboot
from harness.real.debian import fetch as binfetch
from harness.real.binaries import icount as models_icount
from harness.real.bracket import profile as bracket_profile
from harness.real.binaries import report as binreport
from harness.qemu import command
from harness.common import BenchError, parse_sizes, say, size_label, warn
from harness.qemu.brackets import BracketError
from harness.real.debian.apt import FetchError

DEFAULT_SIZES = "1,2,4,8,16"
COSTS = ("all", "none")
RECORDS = binreport.RECORDS


def load_avg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def _binary_records(name, man, mem, out):
    """One real binary at one size -> its records (or an error record)."""
    log = os.path.join(out, f"serial-{name}-{size_label(mem)}.log")
    binary = man["binaries"][name]
    base = {"type": "binary", "binary": name, "mem_bytes": mem, "package": binary["package"],
            "version": binary["version"],
            "firmware": "seabios" if realboot.TARGETS[name].bios is None else "qboot"}
    results, text = realboot.boot_real(realboot.TARGETS[name], binfetch.files_of(man, name), mem, log)
    if name.startswith("xen"):
        r = realboot.xen_result(results, text)
        return [dict(base, phase="end_boot_allocator", instructions=r["instructions"],
                     pages=r["pages"], bracket=r["bracket"], log_facts=r["log"])]
    r = realboot.linux_result(results, text)
    return [dict(base, phase=phase, instructions=p["instructions"], pages=p["pages"],
                 pages_total=r["pages_total"], present_pages=r["present_pages"],
                 bracket=p["bracket"], log_facts=r["log"])
            for phase, p in r["phases"].items()]


def _model_records(mem, costs, out):
    log = os.path.join(out, f"serial-bootheap-{costs}-{size_label(mem)}.log")
    counts, bench, cal = realboot.boot_bootheap(mem, costs, log)
    return [{"type": "model", "strategy": s, "xen_costs": bench["xen_costs"], "mem_bytes": mem,
             "instructions": ticks, "pages": pages, "tsc_khz": cal["khz"], "firmware": "qboot"}
            for s, (ticks, pages) in counts.items()]


def run(sizes, names, out, refresh=False, models=True, breakdown=None):
    """Fetches, boots everything at every size into `out`, and profiles each
    Xen beside its model at `breakdown` bytes (None: not) -> failures."""
    man = binfetch.fetch(names, refresh, say)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, RECORDS)
    start, load0 = time.monotonic(), load_avg()
    header = {"type": "binaries", "clock": "icount", "icount": realboot.ICOUNT,
              "units": "guest instructions", "machine": "q35", "cpus": 1,
              "qemu": qemu_version(), "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "load_start": load0,
              "packages": {n: {k: man["binaries"][n][k] for k in ("package", "version")} for n in names}}
    failures = 0
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        for mem in sizes:
            jobs = [(n, lambda n=n: _binary_records(n, man, mem, out)) for n in names]
            if models and any(n.startswith("xen") for n in names):
                jobs += [(f"bootheap xen_costs={c}", lambda c=c: _model_records(mem, c, out))
                         for c in COSTS]
            if models and any(n.startswith("linux") for n in names):
                jobs.append(("bootheap's Linux models", lambda: models_icount.model_records(mem, out)))
            for what, job in jobs:
                t = time.monotonic()
                try:
                    recs = job()
                except (realboot.BracketBootError, BenchError, RuntimeError, OSError) as e:
                    failures += 1
                    warn(f"binaries: {what} at {size_label(mem)}: {e}")
                    recs = [{"type": "error", "what": what, "mem_bytes": mem, "message": str(e)}]
                for r in recs:
                    r["wall_s"] = round(time.monotonic() - t, 1)
                    f.write(json.dumps(r) + "\n")
                f.flush()
                if recs[0]["type"] != "error":
                    say(f"binaries: {what} at {size_label(mem)}: " + binreport.one_line(recs) +
                        f" ({time.monotonic() - t:.0f} s)")
        if breakdown and models and all(n in names for n, _, _ in bracket_profile.PAIRS):
            try:
                for r in bracket_profile.records(man, breakdown, out, say):
                    f.write(json.dumps(r) + "\n")
            except (realboot.BracketBootError, BracketError, RuntimeError, OSError) as e:
                failures += 1
                warn(f"binaries: the profile: {e}")
                f.write(json.dumps({"type": "error", "what": "profile", "mem_bytes": breakdown,
                                    "message": str(e)}) + "\n")
        f.write(json.dumps({"type": "end", "wall_s": round(time.monotonic() - start, 1),
                            "load_end": load_avg()}) + "\n")
    return failures


def qemu_version():
    r = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True, text=True)
    return r.stdout.splitlines()[0] if r.stdout else "?"


PROFILED = ("end_boot_allocator",)       # Xen's hand-over, each Xen beside its model


def cmd_measure(args):
    """`binaries measure`: fetch, boot, report -> 0, 1 when a boot failed, 2 when nothing could be fetched."""
    names = [n.strip() for n in args.only.split(",")] if args.only else list(binfetch.ALL)
    sizes = parse_sizes(args.sizes)
    profile = real_cli.profiles(args, PROFILED)
    if not os.path.exists(command.ELF) and not args.no_model:
        raise BenchError(f"{command.ELF} is missing: run `make`")
    out = real_cli.results_folder(args, "binaries-")
    try:
        failures = run(sizes, names, out, args.refresh, not args.no_model, args.profile_size if profile else None)
    except FetchError as e:
        warn(f"binaries: {e}")
        return 2
    binreport.write(out)
    say(f"binaries: {out}/report.md")
    return 1 if failures else 0


def cmd_report(args):
    return binreport.write(args.folder)


def add_parser(sub):
    mode = real_cli.command(
        sub, "binaries", help="the real Xen 4.14, Xen 4.17, Linux 6.1 and 6.12, Debian's binaries, beside "
        "bootheap, exact instruction counts under -icount",
        description="Fetches Debian's Xen 4.14, Xen 4.17, Linux 6.1 and 6.12 (apt-get download, into "
        "build/binaries), boots each under TCG with -icount shift=0 at each size with exact breakpoint brackets "
        "around its heap hand-over, and bootheap's strategies beside them; writes binaries.jsonl, the serial "
        "logs, report.md and plot.png into a results folder.",
        retired={"--report": "`binaries report FOLDER`",
                 "--breakdown": "--profile-size SIZE (--profile '' profiles nothing)"})
    m = mode("measure", "fetch, boot each binary and the models at each size, report", cmd_measure)
    real_cli.add_sizes(m, DEFAULT_SIZES)
    m.add_argument("--only", help=f"comma list of binaries (default all: {','.join(binfetch.ALL)})")
    real_cli.add_out(m, "binaries-")
    real_cli.add_refresh(m)
    m.add_argument("--no-model", action="store_true", help="boot only the real binaries")
    real_cli.add_profile(m, PROFILED, PROFILED[0], "in each Xen beside its model")
    r = mode("report", "rewrite a results folder's report.md and plot.png", cmd_report)
    r.add_argument("folder")
