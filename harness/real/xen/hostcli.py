# SPDX-License-Identifier: MIT
"""`python3 -m harness xen-heap-test` (`make xen-heap-test`, `make
xen-fuzz`): the host tester of Xen's heap code (harness/real/xen/hostheap.py)
on Debian's source with the series or on a tree given by path, and with
--time the timing of the same code on this CPU (harness/real/xen/hosttime.py).

A tree given by path without the heap-init= option is tested with the
measuring series of its version (harness/real/xen/tree.py's SERIES: 4.23
takes patches/xen/staging-measure/), applied to a copy; with --proposal
it is tested stock against the same tree with its proposal series
(patches/xen/staging/ for 4.23), two builds held to be equal."""
import hashlib
import os
import shutil
import time

from harness.real.xen import hostheap, hosttime, source
from harness.real.xen import tree as bypath


def add_parser(sub):
    p = sub.add_parser("xen-heap-test", help="Xen's own init_heap_pages() of a patched tree on the host: "
                       "sweep and chunk-72b02bc against chunk, every page_info and free list in order",
                       description="Builds the real heap functions of a Xen tree's page_alloc.c "
                       "(Debian's source with patches/xen/<release>/, or --tree) into a user-space "
                       "tester with stand-ins for the rest of Xen, and drives every heap-init= variant "
                       "over the same random sequences of init_heap_pages() calls at each MAX_ORDER; "
                       "a difference prints its seed, the calls and the first differing field.")
    p.add_argument("--release", default="4.17", help=f"Debian's source of this release, with its series "
                   f"({', '.join(source.RELEASES)}; default 4.17)")
    p.add_argument("--tree", help="a Xen tree, instead of Debian's source: as it is if it has heap-init=, "
                   "else with its version's measuring series applied to a copy")
    p.add_argument("--proposal", action="store_true", help="with --tree (stock): the tree with its "
                   "version's proposal series (4.23: patches/xen/staging) against the tree stock, "
                   "every page_info, free list (in order) and counter equal")
    p.add_argument("--sequences", type=int, default=3000, help="in all, split across the MAX_ORDERs "
                   "(default 3000)")
    p.add_argument("--seed", type=int, default=1, help="the first sequence's seed (default 1)")
    p.add_argument("--max-orders", default=",".join(map(str, hostheap.MAX_ORDERS)),
                   help=f"MAX_ORDER of each build (default {','.join(map(str, hostheap.MAX_ORDERS))})")
    p.add_argument("--page", action="store_true", help="also run heap-init=page, compared as sets")
    p.add_argument("--jobs", type=int, default=2, help="builds tested at a time (default 2)")
    p.add_argument("--time", metavar="GIB", help="instead of testing, time each variant on this CPU at "
                   "these frame table sizes (GiB list, e.g. 1,4,16,64; harness/real/xen/hosttime.py)")
    p.add_argument("--runs", type=int, default=3, help="with --time: windows of each variant a size (default 3)")
    return p


def cmd_xen_heap_test(args):
    try:
        orders = [int(x) for x in args.max_orders.split(",") if x.strip()]
    except ValueError:
        orders = []
    if not orders or any(not 1 <= o <= 20 for o in orders):
        print(f"xen-heap-test: --max-orders {args.max_orders}: want MAX_ORDERs from 1 to 20, e.g. 20,4,2")
        return 2
    if args.sequences < 1 or args.seed < 0:
        print("xen-heap-test: --sequences must be at least 1 and --seed at least 0")
        return 2
    if args.proposal and (not args.tree or args.page or args.time):
        print("xen-heap-test: --proposal wants --tree DIR (a stock tree), without --page or --time")
        return 2
    t0 = time.monotonic()
    stock = None
    try:
        if args.proposal:
            stock = os.path.abspath(args.tree)
            tree = series_tree(stock, 0)
        elif args.tree:
            tree = os.path.abspath(args.tree)
            hostheap.check_tree(tree, heap_init=False)
            if "XH_HEAP_INIT=1" not in hostheap.tree_defines(tree):
                tree = series_tree(tree, 1)
        else:
            tree = hostheap.patched_tree(args.release)
        if args.time:
            try:
                sizes = [int(x) for x in args.time.split(",")]
            except ValueError:
                sizes = []
            if not sizes or any(not 1 <= g <= 256 for g in sizes) or not 1 <= args.runs <= 100:
                print(f"xen-heap-test: --time {args.time} --runs {args.runs}: want GiB from 1 to 256, runs 1 to 100")
                return 2
            return hosttime.cmd_time(tree, sizes, args.runs)
        ok, results = hostheap.run(tree, args.sequences, args.seed, orders, args.page, jobs=args.jobs, stock=stock)
    except (hostheap.HostHeapError, source.SourceError) as e:
        print(f"xen-heap-test: {e}")
        return 2
    for o, passed, took, said in results:
        print(f"-- MAX_ORDER {o}: {'ok' if passed else 'FAILED'} ({took:.1f} s)\n{said}")
    what = f"{tree} against {stock} stock" if stock else tree
    print(f"xen-heap-test: {args.sequences} sequences on {what}: {'ok' if ok else 'FAILED'} "
          f"({time.monotonic() - t0:.1f} s in all)")
    return 0 if ok else 1


def series_tree(tree, which, say=print):
    """A copy of the stock tree at `tree` with its version's proposal
    (which=0) or measuring (which=1) series applied, kept in
    build/xen-src/tree-bypath-<version>-<series>-<key>/src while the tree's
    fingerprint and the patches hold -> its path. SourceError names what
    is wrong (no Xen tree, no series, a patch that does not apply)."""
    version = bypath.version_of(tree)
    name = bypath.series_of(version, tree)[which]
    patches = source.series(name, os.path.join(source.PATCHES, name))
    h = hashlib.sha256(bypath.fingerprint(tree).encode())
    for p in patches:
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read())
    folder = os.path.join(source.SRC, f"tree-bypath-{version}-{name}-{h.hexdigest()[:12]}")
    copy = os.path.join(folder, "src")
    if not os.path.isfile(os.path.join(folder, "done")):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        # What the series patches (xen/ and docs/) and the tester reads.
        for top in ("xen", "docs"):
            shutil.copytree(os.path.join(tree, top), os.path.join(copy, top), ignore=bypath.COPY_SKIP, symlinks=True)
        try:
            source.apply_series(copy, patches)
        except source.SourceError as e:
            shutil.rmtree(folder, ignore_errors=True)
            raise source.SourceError(f"--tree {tree}: {e}")
        open(os.path.join(folder, "done"), "w").close()
        for old in os.listdir(source.SRC):          # this version's older copies of the series
            if old.startswith(f"tree-bypath-{version}-{name}-") and old != os.path.basename(folder):
                shutil.rmtree(os.path.join(source.SRC, old), ignore_errors=True)
        say(f"xen-heap-test: {tree} (Xen {version}) with {len(patches)} patches of {name} in "
            f"{os.path.relpath(folder, bypath.ROOT)}")
    return copy
