# SPDX-License-Identifier: MIT
"""`python3 -m harness xen-src MODE` (`make xen-src`, `make xen-heap-test`):
Xen built from Debian's source with this project's series, or a tree given
by path, a mode a subcommand:

  measure    every heap-init= variant under -icount at each size, one heap
             proven, the models beside them, dom0 to its init (the
             default; harness/real/xen/measure.py, tree.py), then report.md
  build      only the builds, release and debug (source.py, tree.py)
  report     report.md and plot.png of a results folder written again
  heap-test  Xen's own init_heap_pages() on the host, every variant against
             chunk over random call sequences (host/heap.py)
  heap-time  the same code timed on this CPU (host/timing.py)
  arm        a tree's proposal series built for arm64 and arm32, and booted
             on both stock against the series, one heap (arm.py)

measure exits 0 when all went well, 1 when a boot or a check failed, 2
when nothing could be built or the arguments are wrong; heap-test 0 when
every variant left the same heap, 1 when one did not, 2 when the tester
could not be built."""
import os
import re
import time

from harness.common import BenchError, parse_sizes, say, warn
from harness.qemu import command
from harness.real import cli as real_cli
from harness.real.debian.apt import FetchError
from harness.real.xen import arm, measure, source, tree, variants, variants_report
from harness.real.xen.host import heap as hostheap, timing as hosttime
from harness.real.xen.smp import cli as smpcli
from harness.real.xen.smp.cli import parallel_patch
from harness.real.xen.variants import RELEASES, TOPOLOGIES
from harness.real.xen.variants_report import VARIANTS

PHASES = ("end_boot_allocator",)       # what a profile covers: each variant beside its model


def _releases(args):
    """--releases -> [release]; a default run measures those it can get
    (args.optional), one named must be had."""
    args.optional = RELEASES if args.releases is None else ()
    return real_cli.listed(args.releases or ",".join(RELEASES), RELEASES, "no Xen release")


def _tree_checked(args):
    """--tree names a Xen tree with a series, or exit 2 saying why."""
    if args.tree:
        tree.series_of(tree.version_of(args.tree), args.tree)


def _failing(run):
    """A mode's function, a source, build or fetch failure an exit 2 with the reason."""
    def mode(args):
        try:
            return run(args)
        except (source.SourceError, FetchError) as e:
            warn(f"xen-src: {e}")
            return 2
    return mode


def cmd_measure(args):
    """Build, measure, prove the heap the same, boot dom0, report -> exit status."""
    _tree_checked(args)
    args.releases = _releases(args)
    # Names Xen does not know go through: its own warning, read from the log, names them.
    args.variants = [x.strip() for x in args.variants.split(",") if x.strip()]
    if not args.variants or any(not re.fullmatch(r"[a-z0-9_-]+", x) for x in args.variants):
        raise BenchError(f"--variants {args.variants!r}: a comma list of heap-init= names")
    args.topologies = [TOPOLOGIES[n - 1] for n in real_cli.nodes(args.nodes)]
    args.sizes = parse_sizes(args.sizes)
    args.dom0_mem = command.guest_mem(args.dom0_mem)
    args.profile = real_cli.profiles(args, PHASES)
    if not args.no_model and not os.path.exists(command.ELF):
        raise BenchError(f"{command.ELF} is missing: run `make`")
    out = real_cli.results_folder(args, "xen-src-")
    kernel = None if args.no_dom0 else measure.dom0_kernel(say)
    records = (tree.measure if args.tree else measure.run_all)(args, out, say, kernel)
    variants_report.write(out)
    for r in records:
        if r["type"] == "unavailable":
            say(f"xen-src: not measured: Xen {r['release']}, whose source apt cannot get: "
                f"{r['message'].splitlines()[-1].strip()}")
    say(f"xen-src: {out}/report.md")
    return 1 if variants.failed(records) else 0


def cmd_build(args):
    """The builds, release and debug, of each release (or the tree) -> 0, or 2 when one failed."""
    _tree_checked(args)
    if args.tree:
        return tree.build_only(args.tree, say)
    releases = _releases(args)
    for config in source.CONFIGS:
        builds, records = measure.builds_of(releases, config, say, optional=args.optional)
        for b in builds:
            say(f"xen-src: Xen {b.release} ({config}): {b.folder}")
        if any(r["type"] == "error" for r in records) or not builds:
            return 2
        releases = [b.release for b in builds]
    return 0


def cmd_report(args):
    if os.path.exists(os.path.join(args.folder, arm.RECORDS)):
        return arm.write_report(args.folder)
    return variants_report.write(args.folder)


def heap_tree(args, name):
    """The tree the host tester reads: Debian's source of the release with
    its series, or the tree by path (its version's measuring series applied
    to a copy when it lacks heap-init=) -> its path."""
    if args.tree:
        path = os.path.abspath(args.tree)
        hostheap.check_tree(path, heap_init=False)
        return path if "XH_HEAP_INIT=1" in hostheap.tree_defines(path) else tree.series_tree(path, 1)
    releases = real_cli.listed(args.releases, RELEASES, "no Xen release")
    if len(releases) > 1:
        raise BenchError(f"--releases {args.releases}: {name} takes one release a run")
    return hostheap.patched_tree(releases[0])


def _tester(run):
    """heap-test's and heap-time's failures: the line that says why, exit 2."""
    def mode(args):
        try:
            return run(args)
        except (hostheap.HostHeapError, source.SourceError, BenchError) as e:
            warn(f"xen-src {args.mode}: {e}")
            return 2
    return mode


def cmd_heap_test(args):
    try:
        orders = [int(x) for x in args.max_orders.split(",") if x.strip()]
    except ValueError:
        orders = []
    if not orders or any(not 1 <= o <= 20 for o in orders):
        raise BenchError(f"--max-orders {args.max_orders}: want MAX_ORDERs from 1 to 20, e.g. 20,4,2")
    if args.sequences < 1 or args.seed < 0:
        raise BenchError("--sequences must be at least 1 and --seed at least 0")
    if args.threads and not 1 <= args.threads <= 8:
        raise BenchError(f"--threads {args.threads}: the boot's hand-over on 1 to 8 CPUs")
    if args.threads and not args.proposal:
        # Seed 487 at MAX_ORDER 4 differs with --threads 1 already: the order of hand-over alone.
        raise BenchError("--threads wants --proposal: before staging's fixes to reserve_offlined_page() "
                         "(4.17's), a heap with a page being offlined depends on the order memory is handed over in")
    if args.proposal and (not args.tree or args.page):
        raise BenchError("--proposal wants --tree DIR (a stock tree), without --page")
    if args.parallel and not (args.proposal and args.threads):
        raise BenchError("--parallel wants --proposal and --threads K: the hand-over after SMP bring-up on K CPUs")
    t0 = time.monotonic()
    stock = os.path.abspath(args.tree) if args.proposal else None
    path = tree.series_tree(stock, 0, extra=parallel_patch() if args.parallel else None) if stock else \
        heap_tree(args, "heap-test")
    ok, results = hostheap.run(path, args.sequences, args.seed, orders, args.page, jobs=args.jobs, stock=stock,
                               threads=args.threads)
    for (o, debug), passed, took, said in results:
        print(f"-- MAX_ORDER {o}{', CONFIG_SCRUB_DEBUG' if debug else ''}: {'ok' if passed else 'FAILED'} "
              f"({took:.1f} s)\n{said}")
    what = f"{path} against {stock} stock" if stock else path
    print(f"xen-src heap-test: {args.sequences} sequences on {what}: {'ok' if ok else 'FAILED'} "
          f"({time.monotonic() - t0:.1f} s in all)")
    return 0 if ok else 1


def cmd_heap_time(args):
    sizes = parse_sizes(args.sizes)
    if any(not 1 << 30 <= n <= 256 << 30 or n % (1 << 30) for n in sizes) or not 1 <= args.runs <= 100:
        raise BenchError(f"--sizes {args.sizes} --runs {args.runs}: want whole GiB from 1 to 256, runs 1 to 100")
    gib = [n >> 30 for n in sizes]
    if not args.proposal:
        if args.threads:
            raise BenchError("--threads wants --proposal: the hand-over on several CPUs is timed for stock staging "
                             "and the series")
        return hosttime.cmd_time(heap_tree(args, "heap-time"), gib, args.runs)
    if not args.tree:
        raise BenchError("--proposal wants --tree DIR (a stock tree)")
    if args.parallel and not args.threads:
        raise BenchError("--parallel wants --threads K,...: the hand-over after SMP bring-up on K CPUs")
    if args.threads:
        threads = sorted(set(real_cli.counts(args.threads, "--threads", 16, "want counts of CPUs from 1 to 16, "
                                                                          "e.g. 1,2")))
        sides = proposal_sides(os.path.abspath(args.tree), splits=False)
        if args.parallel:
            sides.append((hosttime.SMP_WAY, tree.series_tree(os.path.abspath(args.tree), 0, extra=parallel_patch())))
        return hosttime.cmd_time_parallel(sides, gib, args.runs, threads)
    return hosttime.cmd_time_proposal(proposal_sides(os.path.abspath(args.tree)), gib, args.runs)


def proposal_sides(stock, splits=True):
    """`heap-time --proposal`'s trees: stock, each split of the proposal
    series on its own (hosttime.PROPOSAL_WAYS; where `splits`), the whole
    series, and each measured alternative on top of it
    (patches/xen/<series>-alternatives/) -> [(name, tree)]."""
    hostheap.check_tree(stock, heap_init=False)
    name = tree.series_of(tree.version_of(stock), stock)[0]
    sides = [("stock", stock)]
    sides += [(label, tree.series_tree(stock, 0, only=nums))
              for label, nums in (hosttime.PROPOSAL_WAYS.get(name, ()) if splits else ())]
    sides.append(("series", tree.series_tree(stock, 0)))
    alternatives = os.path.join(hostheap.ROOT, "patches", "xen", f"{name}-alternatives")
    if os.path.isdir(alternatives):
        for f in sorted(os.listdir(alternatives)):
            if f.endswith(".patch"):
                sides.append((f"series + alternative {f.split('-', 1)[0]}",
                              tree.series_tree(stock, 0, extra=os.path.join(alternatives, f))))
    return sides


def cmd_arm(args):
    """Arm builds and boots of a tree -> 0 when every build has no warning
    and every size built one heap, 1 when not, 2 when a tool cannot be
    had or a build failed."""
    args.sizes = parse_sizes(args.sizes)
    if any(n < 256 << 20 or n % (1 << 20) for n in args.sizes):
        raise BenchError(f"--sizes: want whole MiB of at least 256M, not {args.sizes}")
    tree.series_of(tree.version_of(args.tree), args.tree)
    still = arm.install(arm.missing_tools(), say)
    if still:
        warn("xen-src arm: cannot run without " + ", ".join(f"{prog} (Debian package {pkg})" for prog, pkg in still))
        return 2
    out = real_cli.results_folder(args, "xen-arm-")
    records = arm.run(os.path.abspath(args.tree), args.sizes, out, say, args.jobs)
    wrong = arm.failed(records)
    for line in wrong:
        say(f"xen-src arm: FAILED: {line}")
    say(f"xen-src arm: {out}/{arm.RECORDS}: " + ("ok" if not wrong else f"{len(wrong)} problems"))
    return 1 if wrong else 0


def add_parser(sub):
    mode = real_cli.command(
        sub, "xen-src", help="Xen 4.17 and 4.20 built from Debian's source with the patch series: every "
        "init_heap_pages() variant under -icount, one heap, dom0 to init; Xen's own heap code on the host",
        description="Builds Xen from Debian's source packages with patches/xen/ (build/xen-src, cached), "
        "or a tree given by path with the series of its version; then, by mode, measures every heap-init= "
        "variant under -icount (measure), or tests or times Xen's own heap code on the host (heap-test, "
        "heap-time).",
        retired={"--report": "`xen-src report FOLDER`",
                 "--build-only": "`xen-src build`",
                 "--no-unpatched": "--series with",
                 "--release": "--releases",
                 "--time": "`xen-src heap-time --sizes GIB`",
                 "--profile": lambda v: f"--profile {v}: --profile takes the phases now ({', '.join(PHASES)}); "
                 f"the size is --profile-size {v}" if re.fullmatch(r"[0-9.]+[KMGT]?i?B?", v or "-", re.I) else None})
    m = mode("measure", "build, boot every variant at each size under -icount, prove one heap, boot dom0, "
             "report", _failing(cmd_measure), description="Boots each heap-init= variant under TCG with -icount "
             "shift=0 at each size on one node and on two unequal nodes with the exact bracket of "
             "end_boot_allocator(), proves every variant built the same heap, boots bootheap's models beside "
             "them, and each variant of the debug build with a real dom0 to its init; writes variants.jsonl, "
             "the serial logs, report.md and plot.png into a results folder.")
    _xen_source(m)
    real_cli.add_sizes(m, measure.DEFAULT_SIZES)
    real_cli.add_nodes(m, "unequal: a third of the memory and the rest")
    m.add_argument("--variants", default=",".join(VARIANTS), help=f"default {','.join(VARIANTS)}")
    real_cli.add_series(m, ("with", "both"), "both")
    m.add_argument("--jobs", type=int, default=2, help="boots at a time (default 2)")
    m.add_argument("--no-model", action="store_true", help="boot no bootheap models")
    m.add_argument("--no-dom0", action="store_true", help="boot no dom0")
    m.add_argument("--no-host-time", action="store_true",
                   help="do not time each release's own heap code on this CPU (as heap-time does)")
    m.add_argument("--dom0-mem", default="1G", help="the dom0 boots' guest (default 1G)")
    real_cli.add_profile(m, PHASES, PHASES[0], "in each variant beside its model")
    real_cli.add_out(m, "xen-src-")
    b = mode("build", "only build (release and debug)", _failing(cmd_build))
    _xen_source(b)
    r = mode("report", "rewrite a results folder's report.md and plot.png", cmd_report)
    r.add_argument("folder")
    t = mode("heap-test", "Xen's own init_heap_pages() on the host: sweep and chunk-72b02bc against chunk, every "
             "page_info and free list in order", _tester(cmd_heap_test), description="Builds the real heap "
             "functions of a Xen tree's page_alloc.c (Debian's source with patches/xen/<release>/, or --tree) "
             "into a user-space tester with stand-ins for the rest of Xen, and drives every heap-init= variant "
             "over the same random sequences of init_heap_pages() calls at each MAX_ORDER; a difference prints "
             "its seed, the calls and the first differing field.")
    _heap_source(t)
    t.add_argument("--proposal", action="store_true", help="with --tree (stock): the tree with its version's "
                   "proposal series (4.23: patches/xen/staging) against the tree stock, every page_info, free "
                   "list (in order) and counter equal")
    t.add_argument("--sequences", type=int, default=3000, help="in all, split across the MAX_ORDERs (default 3000)")
    t.add_argument("--seed", type=int, default=1, help="the first sequence's seed (default 1)")
    t.add_argument("--max-orders", default=",".join(map(str, hostheap.MAX_ORDERS)),
                   help=f"MAX_ORDER of each build (default {','.join(map(str, hostheap.MAX_ORDERS))})")
    t.add_argument("--page", action="store_true", help="also run heap-init=page, compared as sets")
    t.add_argument("--threads", type=int, default=0, help="with --proposal: the series hands the boot's memory over "
                   "on this many CPUs at once (1 to 8; each node's first memory on the boot CPU; 1 keeps that order "
                   "on one), the stock tree one call after another, the lists compared as sets")
    t.add_argument("--parallel", action="store_true", help="with --proposal and --threads: the series and, on top, "
                   "patches/xen/staging-parallel (heap-init-smp: pieces of an eighth of a MAX_ORDER block kept back at "
                   "boot and marked by --threads CPUs, CPU c on node c %% 2)")
    t.add_argument("--jobs", type=int, default=2, help="builds tested at a time (default 2)")
    a = mode("arm", "a tree's proposal series cross-built for arm64 and arm32, booted on both stock against "
             "the series, one heap", _failing(cmd_arm), description="Builds the tree with its version's proposal "
             "series for arm64 and arm32 (release and debug) with Debian's cross compilers, and boots debug "
             "builds of both, stock and with the series, each with the measuring series' heap dump, on QEMU's "
             "virt machine under TCG until Xen stops for want of a dom0; the two heaps must be one. arm64's "
             "release builds, stock and with the series, are counted under -icount (end_boot_allocator()'s "
             "instructions a page).")
    a.add_argument("--tree", metavar="DIR", required=True, help="a stock Xen tree with a proposal series (staging)")
    real_cli.add_sizes(a, arm.DEFAULT_SIZES)
    a.add_argument("--jobs", type=int, default=None, help="make -j (default: the CPUs)")
    real_cli.add_out(a, "xen-arm-")
    smpcli.add_modes(mode, _failing)
    h = mode("heap-time", "Xen's own init_heap_pages() of each variant timed on this CPU", _tester(cmd_heap_time))
    _heap_source(h)
    real_cli.add_sizes(h, "1,4,16,64")
    h.add_argument("--runs", type=int, default=3, help="windows of each variant a size (default 3)")
    h.add_argument("--threads", default="", metavar="K,...", help="with --proposal: stock, the series and each "
                   "alternative hand over on each count of CPUs (the boot CPU's first page, then the rest cut at 1 GiB "
                   "between threads), on the wall clock, beside memset() on as many")
    h.add_argument("--parallel", action="store_true", help="with --threads: also the series with "
                   "patches/xen/staging-parallel, handing over as it does (end_boot_allocator()'s part on the boot "
                   "CPU, then init_deferred_heap() on K CPUs)")
    h.add_argument("--proposal", action="store_true", help="with --tree (stock): the tree stock, each patch "
                   "split of its version's proposal series on its own, the whole series and each measured "
                   "alternative on top of it (patches/xen/<series>-alternatives/), with 95 %% intervals")


def _xen_source(m):
    real_cli.add_releases(m, RELEASES, default=None)
    m.add_argument("--tree", metavar="DIR", help="a Xen source tree (an upstream checkout, e.g. staging) built "
                   "with the series of its version (4.23: patches/xen/staging and staging-measure) in place "
                   "of the releases")


def _heap_source(m):
    real_cli.add_releases(m, RELEASES, default="4.17", one=True)
    m.add_argument("--tree", metavar="DIR", help="a Xen tree, instead of Debian's source: as it is if it has "
                   "heap-init=, else with its version's measuring series applied to a copy")
