# SPDX-License-Identifier: MIT
"""`python3 -m harness xen-heap-test` (`make xen-heap-test`, `make
xen-fuzz`): the host tester of Xen's heap code (harness/peers/xen/hostheap.py)
on Debian's source with the series or on a tree given by path, and with
--time the timing of the same code on this CPU (harness/peers/xen/hosttime.py)."""
import os
import time

from harness.peers.xen import hostheap, hosttime, source


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
    p.add_argument("--tree", help="a Xen tree with the series applied, instead of Debian's source")
    p.add_argument("--sequences", type=int, default=3000, help="in all, split across the MAX_ORDERs "
                   "(default 3000)")
    p.add_argument("--seed", type=int, default=1, help="the first sequence's seed (default 1)")
    p.add_argument("--max-orders", default=",".join(map(str, hostheap.MAX_ORDERS)),
                   help=f"MAX_ORDER of each build (default {','.join(map(str, hostheap.MAX_ORDERS))})")
    p.add_argument("--page", action="store_true", help="also run heap-init=page, compared as sets")
    p.add_argument("--jobs", type=int, default=2, help="builds tested at a time (default 2)")
    p.add_argument("--time", metavar="GIB", help="instead of testing, time each variant on this CPU at "
                   "these frame table sizes (GiB list, e.g. 1,4,16,64; harness/peers/xen/hosttime.py)")
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
    t0 = time.monotonic()
    try:
        tree = os.path.abspath(args.tree) if args.tree else hostheap.patched_tree(args.release)
        if args.time:
            try:
                sizes = [int(x) for x in args.time.split(",")]
            except ValueError:
                sizes = []
            if not sizes or any(not 1 <= g <= 256 for g in sizes) or not 1 <= args.runs <= 100:
                print(f"xen-heap-test: --time {args.time} --runs {args.runs}: want GiB from 1 to 256, runs 1 to 100")
                return 2
            return hosttime.cmd_time(tree, sizes, args.runs)
        ok, results = hostheap.run(tree, args.sequences, args.seed, orders, args.page, jobs=args.jobs)
    except (hostheap.HostHeapError, source.SourceError) as e:
        print(f"xen-heap-test: {e}")
        return 2
    for o, passed, took, said in results:
        print(f"-- MAX_ORDER {o}: {'ok' if passed else 'FAILED'} ({took:.1f} s)\n{said}")
    print(f"xen-heap-test: {args.sequences} sequences on {tree}: {'ok' if ok else 'FAILED'} "
          f"({time.monotonic() - t0:.1f} s in all)")
    return 0 if ok else 1
