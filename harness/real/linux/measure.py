# SPDX-License-Identifier: MIT
"""`linux-src measure` (`make linux-src`): Linux 6.12 built from Debian's
source (harness/real/linux/source.py, config.py), booted under TCG with
-icount shift=0 at each size with the brackets `binaries` takes of
Debian's binary (harness/real/bracket/boot.py: memmap init,
memblock_free_all(), the deferred init), each phase profiled function by
function where asked; the records into linux-src.jsonl, which
harness/real/linux/report.py sets beside Debian's binary's figures from a
`binaries` folder."""
import copy
import datetime
import json
import os
import time

from harness import ROOT
from harness.common import say, size_label, warn
from harness.real.bracket import boot as realboot
from harness.real.debian.apt import FetchError
from harness.real.linux import dumpboot, report, source

DEFAULT_SIZES = "1,4"
DEBIAN = os.path.join(ROOT, report.DEBIAN)
RECORDS = report.RECORDS
TARGET = realboot.TARGETS["linux-6.12"]
NODEFER = {"DEFERRED_STRUCT_PAGE_INIT": "n"}     # --no-defer's flip
INIT_PAGES = ("stock", "sweep")         # the values of patches/linux/6.12's init_pages=


def target_of(build, variant=""):
    """How a build boots: its brackets (three phases, or two without
    deferral), with init_pages=`variant` unless it is ""."""
    flips = build.info["config"].get("flipped", {}).get("flips", {})
    target = copy.copy(realboot.TARGETS["linux-6.12-nodefer"] if flips == NODEFER else TARGET)
    # The brackets are those of Debian's 6.12 binary; what failed is named by the build's own release.
    target.name = f"Linux {build.info.get('source_version', '')}".rstrip()
    if variant:
        target.append = f"{target.append} init_pages={variant}"
    return target


def boot_records(build, mem, nodes, out, variant=""):
    """The source build booted once at mem bytes on `nodes`, with
    init_pages=`variant` unless it is "" -> its phase records (three; two
    without deferral), or one error record naming why it gave no bracket."""
    log = os.path.join(out, f"serial-linux-src-{size_label(mem)}-{nodes}n{'-' + variant if variant else ''}.log")
    base = {"type": "phase", "mem_bytes": mem, "nodes": nodes, "version": build.info["source_version"],
            "key": build.info["key"]}
    target = target_of(build, variant)
    if variant:
        base["variant"] = variant
    t = time.monotonic()
    try:
        results, text = realboot.boot_real(target, build.files(), mem, log, nodes=nodes)
        r = realboot.linux_result(results, text)
        if dumpboot.refused(text):
            raise realboot.BracketBootError(f"Linux refused {', '.join(dumpboot.refused(text))}: "
                                       f"Malformed early option '{dumpboot.refused(text)[0]}'")
    except realboot.BracketBootError as e:
        warn(f"linux-src: {e}")
        return [dict(base, type="error", message=str(e))]
    wall = round(time.monotonic() - t, 1)
    return [dict(base, phase=phase, instructions=p["instructions"], pages=p["pages"],
                 pages_total=r["pages_total"], present_pages=r["present_pages"], bracket=p["bracket"],
                 log_facts=r["log"], wall_s=wall) for phase, p in r["phases"].items()]


def debian_files(say):
    """Debian's 6.12 binary and its System.map, as `binaries` fetches them
    (build/binaries/bin; the -dbg package is 0.9 to 1 GB) -> files, or None."""
    from harness.real.debian import fetch
    try:
        return fetch.files_of(fetch.fetch(["linux-6.12"], say=say), "linux-6.12")
    except FetchError as e:
        warn(f"linux-src: Debian's 6.12 binary, to profile beside the source build: {e}")
        return None


def binary_config(build, path):
    """The kept options in Debian's binary's own config (its /boot/config,
    as `binaries` fetched it) -> a `binary_config` record: a check of the
    derivation from the source package's fragments."""
    from harness.real.linux.config import parse_config
    with open(path) as f:
        real = parse_config(f.read())
    return {"type": "binary_config", "path": os.path.relpath(path, ROOT),
            "values": {o["symbol"]: real.get(o["symbol"]) for o in build.info["config"]["options"]}}


def profile_records(files, side, phase, mem, out, target=TARGET, variant=""):
    """One kernel's phase at mem bytes, one node, function by function
    (harness/real/binaries/linux_profile.py: every instruction given to the
    function it ran in) -> one `profile` record, or an error record.
    side: "source" (the build, booted as `target`, target_of(build,
    variant)) or "debian" (Debian's binary)."""
    from harness.real.binaries import linux_profile
    opener, names = linux_profile.PHASES[phase][0][0], linux_profile.PHASES[phase][1]

    def drive(stub, syms, deadline):
        irqs = sorted(n for n in syms if n.startswith("asm_sysvec_")) + ["asm_common_interrupt"]
        return linux_profile.profile(stub, syms, opener, names, irqs, deadline)
    log = os.path.join(out, f"serial-profile-{side}{'-' + variant if variant else ''}-{phase}-{size_label(mem)}.log")
    try:
        prof, _ = realboot.boot_real(target, files, mem, log, drive=drive)
    except OSError as e:            # QEMU gone mid-profile: the replay ended before the phase returned
        e = f"QEMU ended before {opener}() returned ({e.__class__.__name__}: {e})"
        warn(f"linux-src: profile of {side}'s {phase}: {e}")
        return [{"type": "error", "mem_bytes": mem, "nodes": 1, "message": f"profile of {side}'s {phase}: {e}"}]
    except realboot.BracketBootError as e:
        warn(f"linux-src: profile of {side}'s {phase}: {e}")
        return [{"type": "error", "mem_bytes": mem, "nodes": 1, "message": f"profile of {side}'s {phase}: {e}"}]
    return [dict({"type": "profile", "side": side, "phase": phase, "mem_bytes": mem, **prof},
                 **({"variant": variant} if variant else {}))]


def run(args, out):
    """Builds, boots every size and node count, profiles -> records
    (written as they come). args: the checked arguments of
    `linux-src measure` (harness/real/linux/cli.py)."""
    t0 = time.monotonic()
    b = source.build(args.releases[0], args.patches, say=say, refresh=args.refresh,
                     flips=NODEFER if args.no_defer else None)
    built = time.monotonic() - t0
    say(f"linux-src: Linux {b.info['source_version']}: {b.folder} ({'built' if built > 60 else 'cached'})")
    records = [{"type": "linux-src", "clock": "icount", "icount": realboot.ICOUNT, "machine": "q35",
                "cpus": 1, "date": datetime.datetime.now().isoformat(timespec="seconds"),
                "sizes": args.sizes, "nodes": args.nodes, "debian": os.path.relpath(args.debian, ROOT)},
               dict(b.info, type="build")]
    path = os.path.join(out, RECORDS)
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
        for mem in args.sizes:
            for nodes in args.nodes:
                for variant in args.variants:
                    say(f"linux-src: booting at {size_label(mem)}, {nodes} node{'s' if nodes > 1 else ''}"
                        + (f", init_pages={variant}" if variant else ""))
                    more = boot_records(b, mem, nodes, out, variant)
                    for r in more:
                        f.write(json.dumps(r) + "\n")
                    f.flush()
                    records += more
        sides = [("source", b.files(), v) for v in args.variants]
        if args.profile and not args.no_defer:
            theirs = debian_files(say)
            sides += [("debian", theirs, "")] if theirs else []
            if theirs and theirs.get("config"):
                more = [binary_config(b, theirs["config"])]
                f.write(json.dumps(more[0]) + "\n")
                records += more
        for phase in args.profile:
            for side, files, variant in sides:
                say(f"linux-src: profiling {side}'s {phase} at {size_label(args.profile_size)}"
                    + (f", init_pages={variant}" if variant else ""))
                more = profile_records(files, side, phase, args.profile_size, out, target_of(b, variant), variant)
                f.write("".join(json.dumps(r) + "\n" for r in more))
                records += more
        end = {"type": "end", "wall_s": round(time.monotonic() - t0, 1), "building_s": round(built, 1)}
        f.write(json.dumps(end) + "\n")
    return records + [end]
