# SPDX-License-Identifier: MIT
"""`python3 -m harness linux-src` (`make linux-src`): Linux 6.12 built from
Debian's source (harness/real/linux/source.py, config.py), booted under
TCG with -icount shift=0 at each size with the brackets `make peers` takes
of Debian's binary (harness/real/bracket/boot.py: memmap init,
memblock_free_all(), the deferred init), and reported beside Debian's
binary's figures from a `make peers` folder (harness/real/linux/report.py)."""
import copy
import datetime
import json
import os
import time

from harness import ROOT
from harness.common import BenchError, parse_sizes, say, size_label, warn
from harness.real.bracket import boot as peers_boot
from harness.real.debian.apt import FetchError
from harness.real.linux import dumpboot, dumprun, initboot, report, source

DEFAULT_SIZES = "1,4"
DEBIAN = os.path.join(ROOT, "docs", "results", "peers-linux")
RECORDS = "linux-src.jsonl"
TARGET = peers_boot.TARGETS["linux-6.12"]
NODEFER = {"DEFERRED_STRUCT_PAGE_INIT": "n"}     # --no-defer's flip
INIT_PAGES = ("stock", "sweep")         # the values of patches/linux/6.12's init_pages=


def target_of(build, variant=""):
    """How a build boots: its brackets (three phases, or two without
    deferral), with init_pages=`variant` unless it is ""."""
    flips = build.info["config"].get("flipped", {}).get("flips", {})
    target = peers_boot.TARGETS["linux-6.12-nodefer"] if flips == NODEFER else TARGET
    if variant:
        target = copy.copy(target)
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
        results, text = peers_boot.boot_peer(target, build.files(), mem, log, nodes=nodes)
        r = peers_boot.linux_result(results, text)
        if dumpboot.refused(text):
            raise peers_boot.PeerError(f"Linux refused {', '.join(dumpboot.refused(text))}: "
                                       f"Malformed early option '{dumpboot.refused(text)[0]}'")
    except peers_boot.PeerError as e:
        warn(f"linux-src: {e}")
        return [dict(base, type="error", message=str(e))]
    wall = round(time.monotonic() - t, 1)
    return [dict(base, phase=phase, instructions=p["instructions"], pages=p["pages"],
                 pages_total=r["pages_total"], present_pages=r["present_pages"], bracket=p["bracket"],
                 log_facts=r["log"], wall_s=wall) for phase, p in r["phases"].items()]


def debian_files(say):
    """Debian's 6.12 binary and its System.map, as `make peers` fetches them
    (build/peers/bin; the -dbg package is 0.9 to 1 GB) -> files, or None."""
    from harness.real.debian import fetch
    try:
        return fetch.files_of(fetch.fetch(["linux-6.12"], say=say), "linux-6.12")
    except FetchError as e:
        warn(f"linux-src: Debian's 6.12 binary, to profile beside the source build: {e}")
        return None


def binary_config(build, path):
    """The kept options in Debian's binary's own config (its /boot/config,
    as `make peers` fetched it) -> a `binary_config` record: a check of the
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
        prof, _ = peers_boot.boot_peer(target, files, mem, log, drive=drive)
    except OSError as e:            # QEMU gone mid-profile: the replay ended before the phase returned
        e = f"QEMU ended before {opener}() returned ({e.__class__.__name__}: {e})"
        warn(f"linux-src: profile of {side}'s {phase}: {e}")
        return [{"type": "error", "mem_bytes": mem, "nodes": 1, "message": f"profile of {side}'s {phase}: {e}"}]
    except peers_boot.PeerError as e:
        warn(f"linux-src: profile of {side}'s {phase}: {e}")
        return [{"type": "error", "mem_bytes": mem, "nodes": 1, "message": f"profile of {side}'s {phase}: {e}"}]
    return [dict({"type": "profile", "side": side, "phase": phase, "mem_bytes": mem, **prof},
                 **({"variant": variant} if variant else {}))]


def run(args, out):
    """Builds, boots every size and node count -> records (written as they come)."""
    t0 = time.monotonic()
    b = source.build(args.release, [] if args.unpatched else None, say=say, refresh=args.refresh,
                     flips=NODEFER if args.no_defer else None)
    built = time.monotonic() - t0
    say(f"linux-src: Linux {b.info['source_version']}: {b.folder} ({'built' if built > 60 else 'cached'})")
    records = [{"type": "linux-src", "clock": "icount", "icount": peers_boot.ICOUNT, "machine": "q35",
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
                say(f"linux-src: profiling {side}'s {phase} at {size_label(args.sizes[0])}"
                    + (f", init_pages={variant}" if variant else ""))
                more = profile_records(files, side, phase, args.sizes[0], out, target_of(b, variant), variant)
                f.write("".join(json.dumps(r) + "\n" for r in more))
                records += more
        end = {"type": "end", "wall_s": round(time.monotonic() - t0, 1), "building_s": round(built, 1)}
        f.write(json.dumps(end) + "\n")
    return records + [end]


def configs_run(args):
    """`--configs`: every patch of the series compiled with and without each
    option of the memory-init path (harness/real/linux/configs.py) -> 0
    when every build passes without a warning; else 1."""
    from harness.real.linux import configs
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or os.path.join(ROOT, "results", "linux-configs-" + stamp)
    os.makedirs(out, exist_ok=True)
    status = configs.write(configs.run(args.release, out, say=say), out, args.release)
    say(f"linux-src: {out}/configs.md")
    return status


def judge(records):
    """One size's dump_compare records, judged in place. Two boots of one
    variant whose command lines differ only in length (stock and default,
    sweep and sweep-padded) that differ say the boot is not a function of
    the kernel alone at this size: its allocations land by its timing.
    Where the records hold a comparison of what no allocation touched
    (more than one node, dumpdiff.compare_untouched()), that comparison then
    counts in place of the whole one. Else a sweep boot the same as a stock
    one stands as the comparison, and every other difference is said, not
    counted; so is every difference when no sweep boot is the same as a
    stock one, which proves nothing either way there. Without that sign of
    timing each difference counts. Two boots of one command line (stock,
    stock-again) must agree, and so must every pair's early dumps, printed
    before any thread but the boot's own has run."""
    compares = [r for r in records if r["type"] == "dump_compare"]
    agree = next((r for r in compares if r["a"] in dumprun.STOCKS and r["b"] in dumprun.SWEEPS
                  and not r["difference"]), None)
    timing = [r for r in compares if (r["a"], r["b"]) in (("stock", "default"), ("sweep", "sweep-padded"))
              and r["difference"]]
    if not timing:
        return
    why = (f"{timing[0]['a']} and {timing[0]['b']} differ: the boot's allocations land by timing here" +
           (f"; {agree['a']} and {agree['b']} are the same" if agree
            else "; no sweep boot is the same as a stock one"))
    for r in compares:
        if r["b"] == "stock-again":
            continue
        if "untouched" in r:
            r["timing"], r["difference"] = why.split(";")[0], r["untouched"]
        elif r is not agree:
            r["not_judged"] = why


def dump_run(args):
    """`--dump`: the dumps at each size (harness/real/linux/dumprun.py) ->
    0 when every dump holds together, the two variants are the same and
    the unknown value was refused; else 1, each failure said."""
    b = source.build(args.release, say=say, refresh=args.refresh)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or os.path.join(ROOT, "results", "linux-dump-" + stamp)
    os.makedirs(out, exist_ok=True)
    bad = 0
    with open(os.path.join(out, "dumps.jsonl"), "w") as f:
        f.write(json.dumps(dict(b.info, type="build")) + "\n")
        cases = [(m, n, "", None) for n in args.nodes for m in args.sizes]
        cases += [(mem, nodes, extra, name) for name, mem, nodes, extra in dumprun.LAYOUTS] if args.layouts else []
        for mem, nodes, extra, label in cases:
            records = dumprun.dump_records(b, mem, out, nodes, say=say, **({"extra": extra, "label": label}
                                                                           if label else {}))
            judge(records)
            for r in records:
                f.write(json.dumps(r) + "\n")
                f.flush()
                what = {"dump": lambda: f"{r['variant']}: " + ("; ".join(r["problems"]) or "holds together"),
                        "dump_compare": lambda: f"{r['a']} and {r['b']}: " + (r["difference"] or (
                            f"the same outside the {r['touched_pages']} pages either boot's allocations "
                            f"touched ({r['timing']})" if r.get("timing") else
                            "the same" + (f" but for the user words of {r['user_pages']} pages in use"
                                          if r["exact"] else " word for word"))) +
                        (f"; the early dumps differ: {r['early_difference']}" if r.get("early_difference")
                         else "; the early dumps the same word for word" if "early_difference" in r else ""),
                        "refusal": lambda: f"{r['params']}: " + (r["message"] or "not refused"),
                        "error": lambda: r["message"]}[r["type"]]()
                bad += r["type"] == "error" or bool(r.get("problems")) or \
                    bool(r.get("difference") and not r.get("not_judged")) or bool(r.get("early_difference")) or \
                    (r["type"] == "refusal" and not r["refused"])
                where = label or f"{size_label(mem)}, {nodes} node{'s' if nodes > 1 else ''}"
                say(f"linux-src: {where}: {what}"
                    + (f" (not judged: {r['not_judged']})" if r.get("not_judged") and r.get("difference") else ""))
    say(f"linux-src: {out}/dumps.jsonl")
    return 1 if bad else 0


def init_run(args):
    """`--init`: each variant booted to busybox's /init at each size and
    node count (harness/real/linux/initboot.py) -> 0 when every boot
    filled and read back its tmpfs, powered off and said no trouble, and
    each variant's MemTotal is stock's; else 1, each failure said."""
    b = source.build(args.release, say=say, refresh=args.refresh)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or os.path.join(ROOT, "results", "linux-init-" + stamp)
    os.makedirs(out, exist_ok=True)
    initrd = initboot.archive(out)
    variants = [v for v in args.variants if v] or list(INIT_PAGES) + [""]
    bad = 0
    with open(os.path.join(out, "inits.jsonl"), "w") as f:
        f.write(json.dumps(dict(b.info, type="build")) + "\n")
        for mem, nodes in [(m, n) for n in args.nodes for m in args.sizes]:
            totals = {}
            for variant in variants:
                name = variant or "default"
                log = os.path.join(out, f"serial-init-{name}-{size_label(mem)}-{nodes}n.log")
                where = f"{size_label(mem)}, {nodes} node{'s' if nodes > 1 else ''}, {name}"
                t = time.monotonic()
                status, facts, text = initboot.boot(b.files(), initrd, mem, log,
                                                    f"init_pages={variant}" if variant else "", nodes)
                r = {"type": "init", "mem_bytes": mem, "nodes": nodes, "key": b.info["key"], "variant": name,
                     "status": status, "wall_s": round(time.monotonic() - t, 1), "log": os.path.basename(log),
                     **facts}
                if status == "ok":
                    totals[name] = facts["mem_total_kib"]
                    if name != "stock" and "stock" in totals and totals["stock"] != totals[name]:
                        r["status"] = status = "memtotal"
                        r["message"] = f"MemTotal {totals[name]} kB, stock's {totals['stock']} kB"
                else:
                    r["message"] = initboot.why(status, facts, text)
                f.write(json.dumps(r) + "\n")
                f.flush()
                bad += status != "ok"
                say(f"linux-src: init at {where}: " + (
                    f"{facts['memtest']}, MemTotal {facts['mem_total_kib']} kB, powered off ({r['wall_s']} s)"
                    if status == "ok" else r["message"]))
    say(f"linux-src: {out}/inits.jsonl")
    return 1 if bad else 0


def cmd_linux_src(args):
    """`linux-src`: build, boot, report -> 0, 1 when a boot gave no bracket, 2 when nothing could be built."""
    if args.report:
        return report.write(args.report)
    args.sizes = parse_sizes(args.sizes)
    try:
        args.nodes = sorted({int(n) for n in args.nodes.split(",")})
    except ValueError:
        args.nodes = []
    if not args.nodes or any(n not in (1, 2) for n in args.nodes):
        raise BenchError("--nodes takes 1, 2 or 1,2")
    args.variants = [v for v in (args.variants or "").split(",") if v] or [""]
    unknown = [v for v in args.variants if v and v not in INIT_PAGES]
    if unknown:
        raise BenchError(f"--variants {','.join(unknown)}: init_pages takes {', '.join(INIT_PAGES)}")
    if args.unpatched and args.variants != [""]:
        raise BenchError("--variants needs the series (init_pages= is patches/linux/6.12's): not with --unpatched")
    from harness.real.binaries.linux_profile import PHASES
    args.profile = [x for x in (args.profile or "").split(",") if x]
    if any(x not in PHASES for x in args.profile):
        raise BenchError(f"--profile {','.join(args.profile)}: a comma list of {', '.join(PHASES)}")
    if args.release not in source.RELEASES:
        raise BenchError(f"no Linux release {args.release}: the source builds are {', '.join(source.RELEASES)}")
    if args.compare:
        return dumprun.compare_logs(*args.compare, say=say)
    patches = [] if args.unpatched else None
    if args.unpatched and args.dump:
        raise BenchError("--dump needs the series (patches/linux/6.12's dump patch): not with --unpatched")
    if args.layouts and not args.dump:
        raise BenchError("--layouts is for --dump")
    if sum(map(bool, (args.dump, args.init, args.configs))) > 1:
        raise BenchError("--dump, --init and --configs are separate runs: give one")
    if args.unpatched and args.configs:
        raise BenchError("--configs builds the series' patches: not with --unpatched")
    if args.unpatched and args.init:
        raise BenchError("--init boots the series' init_pages= variants: not with --unpatched")
    if args.no_defer and (args.dump or args.init or args.configs or "deferred" in args.profile):
        raise BenchError("--no-defer measures the brackets of a build without deferral: not with --dump, "
                         "--init, --configs or --profile deferred")
    try:
        if args.build_only:
            b = source.build(args.release, patches, say=say, refresh=args.refresh,
                             flips=NODEFER if args.no_defer else None)
            say(f"linux-src: {b.folder}")
            return 0
        if args.configs:
            return configs_run(args)
        if args.dump:
            return dump_run(args)
        if args.init:
            return init_run(args)
        out = args.out or os.path.join(ROOT, "results",
                                       "linux-src-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
        os.makedirs(out, exist_ok=True)
        records = run(args, out)
    except (source.SourceError, FetchError, initboot.InitBootError) as e:
        warn(f"linux-src: {e}")
        return 2
    report.write(out, args.debian)
    say(f"linux-src: {out}/report.md")
    return 1 if any(r["type"] == "error" for r in records) else 0


def add_parser(sub):
    p = sub.add_parser("linux-src", help="Linux 6.12 built from Debian's source with a minimal config that "
                       "keeps Debian's memory-init options, its three phases under -icount beside Debian's binary",
                       description="Builds Linux from Debian's source package (build/linux-src, cached): "
                       "tinyconfig plus what the boot needs plus every option of Debian's amd64 config that "
                       "the memory-init sources and the code generation test; boots it under TCG with "
                       "-icount shift=0 and the brackets of `make peers` (memmap init, memblock_free_all(), "
                       "the deferred init); writes linux-src.jsonl, the serial logs and report.md, beside "
                       "Debian's 6.12 binary's figures of a `make peers` folder.")
    p.add_argument("--release", default="6.12", help="default 6.12 (trixie)")
    p.add_argument("--sizes", default=DEFAULT_SIZES, help=f"GiB list (default {DEFAULT_SIZES})")
    p.add_argument("--nodes", default="1", help="1, 2 or 1,2 (two nodes: the deferred init's bracket counts "
                   "each node's thread on its own stack)")
    p.add_argument("--debian", default=DEBIAN, help="a `make peers` folder with Debian's 6.12 figures "
                   "(default docs/results/peers-linux)")
    p.add_argument("--refresh", action="store_true", help="ask the mirror again though a source is downloaded")
    p.add_argument("--profile", metavar="PHASES", help="also profile these phases (a comma list of memmap, "
                   "memblock_free_all, deferred) function by function at the smallest size, one node, in "
                   "the source build (once each --variants value) and in Debian's binary (fetched as "
                   "`make peers` does; not with --no-defer)")
    p.add_argument("--build-only", action="store_true", help="only build")
    p.add_argument("--configs", action="store_true", help="instead of booting, compile each patch of the "
                   "series in turn with and without each option of the memory-init path (the objects of "
                   "the C files it touches), writing configs.jsonl and configs.md")
    p.add_argument("--unpatched", action="store_true", help="build and measure without patches/linux/<release>")
    p.add_argument("--no-defer", action="store_true", help="build (cached apart) and measure with "
                   "DEFERRED_STRUCT_PAGE_INIT turned off in the derived config: two phases, the boot's whole "
                   "hand-over, for deferral's worth; not set beside Debian's binary")
    p.add_argument("--dump", action="store_true", help="instead of the brackets, boot each size for the memory "
                   "map after deferred init (bootheap_dump) as init_pages=stock and as the default, check each "
                   "dump and compare the two, and check that an unknown init_pages is refused")
    p.add_argument("--layouts", action="store_true", help="with --dump, also boot each layout of "
                   "harness/real/linux/dumprun.py's LAYOUTS: reserved ranges, unequal nodes")
    p.add_argument("--init", action="store_true", help="instead of the brackets, boot each size (and node "
                   "count) as each variant (default stock,sweep and no init_pages) to a busybox /init that fills "
                   f"and reads back {initboot.MEMTEST_MIB} MiB of tmpfs and powers off, under TCG")
    p.add_argument("--compare", nargs=2, metavar="LOG", help="only compare the dumps of two serial logs")
    p.add_argument("--variants", help="boot each size once a variant with init_pages=VARIANT, a comma list "
                   "(stock,sweep; default: no init_pages)")
    p.add_argument("--out", help="results folder (default results/linux-src-<date-time>)")
    p.add_argument("--report", metavar="FOLDER", help="only rewrite FOLDER's report.md")
    return p
