# SPDX-License-Identifier: MIT
"""`python3 -m harness linux-src MODE` (`make linux-src`): Linux built from
Debian's source with this project's series, a mode a subcommand:

  measure   the build's phases under -icount at each size (the default;
            harness/real/linux/measure.py), then report.md
  build     only the build (harness/real/linux/source.py)
  report    report.md of a results folder written again (report.py), or
            configs.md of a `configs` folder (configs.py)
  dump      the memory map after deferred init, each variant's, compared
            (dumprun.py)
  init      each variant to busybox's /init (initboot.py)
  configs   each patch compiled with and without each memory-init option
  compare   two serial logs' dumps compared
  host-test the tree's own memory-init code on this host, stock against
            the series over random machines (harness/real/linux/host/)
  host-time the same code timed on this CPU, each phase, beside the floor

Each exits 0 when all went well, 1 when a boot or a check failed (each
said), 2 when nothing could be built or the arguments are wrong."""
import json
import os

from harness.common import GIB, BenchError, parse_sizes, say, warn
from harness.real import cli as real_cli
from harness.real.debian.apt import FetchError
from harness.real.linux import configs, dumprun, initboot, measure, report, source
from harness.real.linux.host import build as hostbuild, run as hostrun
from harness.real.linux.measure import INIT_PAGES, NODEFER
from harness.real.source import package
from harness.real.source.package import SourceError
from harness.qemu.pattern import PatternError

PHASES = ("memmap", "memblock_free_all", "deferred")


def _release(args):
    """--releases: one release a run -> the release."""
    releases = real_cli.listed(args.releases, source.RELEASES, "no Linux release")
    if len(releases) > 1:
        raise BenchError(f"--releases {args.releases}: linux-src builds one release a run")
    args.releases = releases
    return releases[0]


def _variants(args):
    """--variants -> [init_pages value, or "" for none]."""
    variants = [v for v in (args.variants or "").split(",") if v] or [""]
    unknown = [v for v in variants if v and v not in INIT_PAGES]
    if unknown:
        raise BenchError(f"--variants {','.join(unknown)}: init_pages takes {', '.join(INIT_PAGES)}")
    return variants


def _sized(args):
    """--sizes and --nodes, checked, in place."""
    args.sizes = parse_sizes(args.sizes)
    args.nodes = real_cli.nodes(args.nodes)


def _failing(run):
    """A mode's function, its build's or source's failure an exit 2 with the reason."""
    def mode(args):
        try:
            return run(args)
        except (SourceError, FetchError, initboot.InitBootError, PatternError) as e:
            warn(f"linux-src: {e}")
            return 2
    return mode


def cmd_measure(args):
    _release(args)
    _sized(args)
    args.variants = _variants(args)
    if args.series == "without" and args.variants != [""]:
        raise BenchError("--variants needs the series (init_pages= is patches/linux/6.12's): not with "
                         "--series without")
    # the series built: none, the release's, or with --variants the one
    # that has init_pages= (7.1's proposal has no switch: 7.1-measure)
    args.patches = [] if args.series == "without" else \
        source.measuring(args.releases[0]) if args.variants != [""] else None
    if args.patches and not hostrun.has_switch(args.patches):
        raise BenchError(f"--variants: no series of Linux {args.releases[0]} has init_pages=")
    args.profile = real_cli.profiles(args, PHASES)
    if args.no_defer and "deferred" in args.profile:
        raise BenchError("--no-defer measures the brackets of a build without deferral: not with "
                         "--profile deferred")
    out = real_cli.results_folder(args, "linux-src-")
    records = measure.run(args, out)
    if args.host_runs and set(INIT_PAGES) <= set(args.variants) and not args.no_defer:
        _host_beside(args, out)
    report.write(out, args.debian)
    say(f"linux-src: {out}/report.md")
    return 1 if any(r["type"] == "error" for r in records) else 0


def _host_beside(args, out):
    """The same sizes timed on this CPU by the host tester (host-time.jsonl),
    for the report's real-CPU section; a failure is said, not fatal."""
    gibs = sorted({max(1, min(256, mem // GIB)) for mem in args.sizes})
    say(f"linux-src: the same code on this CPU: host-time at {','.join(map(str, gibs))} GiB, {args.host_runs} runs")
    try:
        records = hostrun.time_records(args.releases[0], gibs, args.host_runs, say=say)
    except (hostbuild.HostTestError, SourceError) as e:
        warn(f"linux-src: no real-CPU timing: {e}")
        return
    with open(os.path.join(out, report.HOST_RECORDS), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def cmd_build(args):
    b = source.build(_release(args), [] if args.series == "without" else None, say=say, refresh=args.refresh,
                     flips=NODEFER if args.no_defer else None)
    say(f"linux-src: {b.folder}")
    return 0


def cmd_report(args):
    """report.md of a measure folder, configs.md of a configs folder."""
    if not os.path.isfile(os.path.join(args.folder, report.RECORDS)) and \
            os.path.isfile(os.path.join(args.folder, configs.RECORDS)):
        return configs.rewrite(args.folder)
    return report.write(args.folder)


def _switched(release, mode):
    """dump and init boot init_pages= variants and read the dump -> the
    measuring series that has both (source.measuring()); a release with
    none is refused before any build."""
    patches = source.measuring(release)
    if not hostrun.has_switch(patches) or not package.adds(patches, 'early_param("bootheap_dump"'):
        raise BenchError(f"linux-src {mode}: neither patches/linux/{release} nor {release}-measure has an "
                         "init_pages= switch and the dump; use host-test, host-time or measure for this release")
    return patches


def cmd_dump(args):
    release = _release(args)
    patches = _switched(release, "dump")
    _sized(args)
    cpus = real_cli.counts(args.cpus, "--cpus", 8, "a comma list of vCPU counts from 1 to 8")
    try:
        only = dumprun.named(args.only) if args.only is not None else None
    except ValueError as e:
        raise BenchError(f"linux-src dump --only: {e}") from None
    b = source.build(release, patches, say=say, refresh=args.refresh, flips=dumprun.DUMP_FLIPS)
    out = real_cli.results_folder(args, "linux-dump-")
    status = dumprun.run(b, out, args.sizes, args.nodes, args.layouts, say=say, cpus=cpus, gates=args.gates,
                         only=only)
    return status


def cmd_init(args):
    release = _release(args)
    patches = _switched(release, "init")
    _sized(args)
    variants = [v for v in _variants(args) if v] or list(INIT_PAGES) + [""]
    b = source.build(release, patches, say=say, refresh=args.refresh)
    out = real_cli.results_folder(args, "linux-init-")
    status = initboot.run(b, out, args.sizes, args.nodes, variants, say=say)
    say(f"linux-src: {out}/inits.jsonl")
    return status


def cmd_configs(args):
    release = _release(args)
    out = real_cli.results_folder(args, "linux-configs-")
    status = configs.write(configs.run(release, out, say=say), out, release)
    say(f"linux-src: {out}/configs.md")
    return status


def cmd_compare(args):
    return dumprun.compare_logs(args.a, args.b, say=say)


def _max_orders(text):
    orders = [int(x) for x in text.split(",") if x.strip()]
    bad = [o for o in orders if o not in hostbuild.MAX_ORDERS]
    if bad or not orders:
        raise BenchError(f"--max-orders {text}: the testers are built at {','.join(map(str, hostbuild.MAX_ORDERS))}")
    return orders


def cmd_host_test(args):
    release = _release(args)
    if args.one is not None:
        binary = hostbuild.tester(release, _max_orders(args.max_orders)[0], say=say)
        passed, _, out = hostrun.run_one(binary, 1, args.one)
        say(out)
        return 0 if passed else 1
    if args.jobs < 1 or args.sequences < 1:
        raise BenchError(f"--jobs {args.jobs} --sequences {args.sequences}: each at least 1")
    try:
        ok, results = hostrun.test(release, args.sequences, args.seed, _max_orders(args.max_orders), args.jobs,
                                   say=say)
    except hostbuild.HostTestError as e:
        warn(f"linux-src: {e}")
        return 2
    for order, passed, n, out in results:
        tail = out.splitlines()[-1] if out else "no output"
        say(f"linux-src: MAX_PAGE_ORDER {order}: {tail}" if passed else
            f"linux-src: MAX_PAGE_ORDER {order} found a difference:\n{out}")
    return 0 if ok else 1


def cmd_host_time(args):
    release = _release(args)
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    if not sizes or any(g < 1 or g > 256 for g in sizes):
        raise BenchError(f"--sizes {args.sizes}: GiB from 1 to 256")
    out = real_cli.results_folder(args, "linux-host-time-")
    try:
        records = hostrun.time_records(release, sizes, args.runs, args.threads, say=say)
    except hostbuild.HostTestError as e:
        warn(f"linux-src: {e}")
        return 2
    with open(os.path.join(out, "host-time.jsonl"), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    text = hostrun.section(records, "#")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text + "\n")
    say(text)
    say(f"linux-src: {out}/report.md")
    return 0


def _common(m, sizes=True, prefix=None):
    real_cli.add_releases(m, source.RELEASES, source.DEFAULT, one=True)
    if sizes:
        real_cli.add_sizes(m, measure.DEFAULT_SIZES)
        real_cli.add_nodes(m, "equal halves; the deferred init's bracket counts each node's thread on its own stack")
    real_cli.add_refresh(m)
    if prefix:
        real_cli.add_out(m, prefix)


def add_parser(sub):
    mode = real_cli.command(
        sub, "linux-src", help="Linux 6.12 built from Debian's source with a minimal config that keeps Debian's "
        "memory-init options and the series: its phases under -icount beside Debian's binary, its memory "
        "map, its boots to init",
        description="Builds Linux from Debian's source package (build/linux-src, cached) with "
        "patches/linux/<release>: tinyconfig plus what the boot needs plus every option of Debian's amd64 "
        "config that the memory-init sources and the code generation test; then, by mode, boots it under "
        "TCG with -icount shift=0 and the brackets `binaries` takes of Debian's binary (measure), for its "
        "memory map (dump), or to busybox's /init (init).",
        retired={"--release": "--releases",
                 "--unpatched": "--series without",
                 "--build-only": "`linux-src build`",
                 "--report": "`linux-src report FOLDER`",
                 "--dump": "`linux-src dump`",
                 "--init": "`linux-src init`",
                 "--configs": "`linux-src configs`",
                 "--compare": "`linux-src compare A B`"})
    m = mode("measure", "build, boot each size under -icount with the brackets, report beside Debian's binary",
             _failing(cmd_measure), description="Boots the build at each size and node count with the brackets "
             "of Debian's binary (memmap init, memblock_free_all(), the deferred init), once a --variants "
             "value; writes linux-src.jsonl, the serial logs and report.md, beside Debian's 6.12 binary's "
             "figures of a `binaries` folder.")
    _common(m, prefix="linux-src-")
    real_cli.add_series(m, ("with", "without"), "with")
    m.add_argument("--variants", help="boot each size once a variant with init_pages=VARIANT, a comma list "
                   "(stock,sweep; default: no init_pages)")
    m.add_argument("--no-defer", action="store_true", help="build (cached apart) and measure with "
                   "DEFERRED_STRUCT_PAGE_INIT turned off in the derived config: two phases, the boot's whole "
                   "hand-over, for deferral's worth; not set beside Debian's binary")
    real_cli.add_profile(m, PHASES, "", "in the source build (once each --variants value) and in Debian's "
                         "binary (fetched as `binaries` fetches it; not with --no-defer)")
    m.add_argument("--host-runs", type=int, default=5, help="with --variants stock,sweep: also time the "
                   "same sizes on this CPU with the host tester, this many runs (default 5; 0: not)")
    m.add_argument("--debian", default=measure.DEBIAN, help="a `binaries` folder with Debian's 6.12 figures "
                   "(default docs/results/binaries-linux)")
    b = mode("build", "only build (cached)", _failing(cmd_build))
    _common(b, sizes=False)
    real_cli.add_series(b, ("with", "without"), "with")
    b.add_argument("--no-defer", action="store_true", help="the build without DEFERRED_STRUCT_PAGE_INIT")
    r = mode("report", "rewrite a results folder's report.md (or a configs folder's configs.md)", cmd_report)
    r.add_argument("folder")
    d = mode("dump", "the memory map early and after deferred init, each variant's, compared",
             _failing(cmd_dump), description="Builds the dump build (the derived config with "
             "SLAB_FREELIST_RANDOM off, cached apart) and boots each size, node and vCPU count for the memory "
             "map after deferred init (bootheap_dump), guest RAM on a pattern, as init_pages=stock (twice), "
             "sweep, the default, stock and sweep with a longer command line and under a slower -icount; "
             "checks each dump and its counters, compares them, early dumps too, each difference held to what "
             "two stock boots show, and checks that an unknown init_pages is refused; writes dumps.jsonl.")
    _common(d, prefix="linux-dump-")
    d.add_argument("--cpus", default="1", help="vCPU counts, a comma list (default 1): several run deferred "
                   "init on several threads")
    d.add_argument("--layouts", action="store_true", help="also boot each layout of "
                   "harness/real/linux/dumprun.py's LAYOUTS: reserved ranges, unequal nodes")
    d.add_argument("--gates", action="store_true", help="also boot 1 GiB with each runtime gate of GATES on: "
                   "init_on_free=1, page_poison=1")
    d.add_argument("--only", metavar="NAMES", help="boot only these layouts and gates (a comma list of their "
                   "names), not --sizes: to replay one")
    i = mode("init", "each variant to busybox's /init, its tmpfs filled and read back", _failing(cmd_init),
             description="Boots each size and node count as each variant (default stock, sweep and no "
             f"init_pages) to a busybox /init that fills and reads back {initboot.MEMTEST_MIB} MiB of tmpfs "
             "and powers off, under TCG; writes inits.jsonl.")
    _common(i, prefix="linux-init-")
    i.add_argument("--variants", help="a comma list of stock, sweep (default: both and no init_pages)")
    c = mode("configs", "each patch of the series compiled with and without each memory-init option",
             _failing(cmd_configs), description="Compiles each patch of the series in turn with and without "
             "each option of the memory-init path (the objects of the C files it touches); writes "
             "configs.jsonl and configs.md.")
    real_cli.add_releases(c, source.RELEASES, source.DEFAULT, one=True)
    real_cli.add_out(c, "linux-configs-")
    p = mode("compare", "compare the dumps of two serial logs", cmd_compare)
    p.add_argument("a", metavar="LOG")
    p.add_argument("b", metavar="LOG")
    t = mode("host-test", "the tree's own memory-init code on this host: stock against the series",
             _failing(cmd_host_test), description="Builds mm/'s memory init of the patched tree into a "
             "user-space tester (hosted/linuxmm/) at each MAX_PAGE_ORDER and boots random machines as "
             "init_pages=stock and as sweep, each in a process of its own, comparing every field and struct "
             "page after memblock_free_all() and after deferred init.")
    real_cli.add_releases(t, source.RELEASES, source.DEFAULT, one=True)
    t.add_argument("--sequences", type=int, default=300, help="in all, split across the MAX_PAGE_ORDERs (default 300)")
    t.add_argument("--seed", type=int, default=1, help="the first sequence's seed (default 1)")
    t.add_argument("--max-orders", default=",".join(map(str, hostbuild.MAX_ORDERS)),
                   help="MAX_PAGE_ORDER of each tester (default 10,4,2)")
    t.add_argument("--jobs", type=int, default=2, help="tester runs at a time, each a share of the sequences (default 2)")
    t.add_argument("--one", type=int, metavar="SEED", help="replay one sequence, at the first --max-orders")
    h = mode("host-time", "the tree's own memory-init code timed on this CPU", _failing(cmd_host_time),
             description="Boots an x86 machine of one node at each size in the tester, as init_pages=stock "
             "and as sweep, interleaved, each phase in thread CPU time, beside memset() and non-temporal stores "
             "of the same struct page bytes; writes host-time.jsonl and report.md.")
    real_cli.add_releases(h, source.RELEASES, source.DEFAULT, one=True)
    h.add_argument("--sizes", default="1,4,16,64", help="GiB list (default 1,4,16,64)")
    h.add_argument("--runs", type=int, default=7, help="boots of each variant a size (default 7)")
    h.add_argument("--threads", type=int, default=1, help="deferred init's threads (default 1)")
    real_cli.add_out(h, "linux-host-time-")
