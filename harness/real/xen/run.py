# SPDX-License-Identifier: MIT
"""`python3 -m harness xen-src` (`make xen-src`): the source builds
(harness/real/xen/source.py), the measured boots, the heap proven one and the
profiles (harness/real/xen/variants.py), dom0 to its init
(harness/real/xen/dom0.py), then report.md and plot.png
(harness/real/xen/variants_report.py)."""
import datetime
import os
import re
import time

from harness import ROOT
from harness.common import BenchError, parse_sizes, say, warn
from harness.real.debian import fetch
from harness.real.xen import hosttime, source, tree, variants, variants_report
from harness.real.debian.apt import FetchError, PrivateApt
from harness.real.xen.variants import RELEASES, TOPOLOGIES
from harness.real.xen.variants_report import VARIANTS
from harness.qemu import command

DEFAULT_SIZES = "1,4,8,16,64"


def builds_of(releases, config, say, patches=None, optional=()):
    """The builds of the releases that can be had -> (builds, records): a
    release whose source apt cannot get, whose patch does not apply or whose
    build fails is named and left out, and the others go on. An error record
    fails the run; a release in `optional` whose source apt cannot get is an
    `unavailable` record instead, which the report names and which fails
    nothing."""
    builds, records = [], []
    for rel in releases:
        try:
            builds.append(source.build(rel, config, patches, say=say))
        except source.SourceError as e:
            if isinstance(e, source.SourceUnavailable) and rel in optional:
                warn(f"xen-src: Xen {rel} left out: {e}")
                records.append({"type": "unavailable", "release": rel, "message": str(e)})
                continue
            warn(f"xen-src: Xen {rel} ({config}): {e}")
            what = f"the {config} build of Xen {rel}" + (" without the series" if patches == [] else "")
            records.append({"type": "error", "what": what, "mem_bytes": 0,
                            "nodes": [], "message": str(e)})
    return builds, records


def run_all(args, out, say, kernel=None):
    """Builds, measures and boots dom0 as the arguments say -> records.
    Raises SourceError when no release could be built."""
    t0 = time.monotonic()
    building = 0.0                  # the run's seconds spent in builds (none when all are cached)

    def timed(*a, **k):
        nonlocal building
        t = time.monotonic()
        try:
            return builds_of(*a, **k)
        finally:
            building += time.monotonic() - t
    builds, errors = timed(args.releases, "release", say, optional=args.optional)
    if not builds:
        raise source.SourceError("no release could be built: " + "; ".join(e["message"].splitlines()[0]
                                                                         for e in errors))
    plain = []
    if not args.no_unpatched:
        plain, more = timed([b.release for b in builds], "release", say, patches=[])
        errors += more
    records = [variants.header(builds, args.sizes, args.topologies, args.variants, args.jobs)] + errors
    records += [dict(b.info, type="build") for b in builds + plain]
    records += variants.measure(builds, args.sizes, args.topologies, args.variants, out, say, args.jobs,
                                not args.no_model, plain)
    if args.profile and not args.no_model:
        for b in builds:
            records += variants.profile_records(b, args.profile, out, say)
    if not args.no_host_time:
        gibs = sorted({m >> 30 for m in args.sizes if 1 << 30 <= m <= 256 << 30 and not m % (1 << 30)})
        for b in builds:
            if gibs and b.release in source.RELEASES and not getattr(args, "tree", None):
                records.append(hosttime.run_records(b.release, gibs, say=say))
    if kernel:
        debug, errors = timed([b.release for b in builds], "debug", say)
        records += errors + [dict(b.info, type="build") for b in debug]
        records += variants.functional(debug, args.variants, args.dom0_mem, out, kernel, say, args.jobs)
    records.append({"type": "end", "wall_s": round(time.monotonic() - t0, 1), "building_s": round(building, 1)})
    variants.write_records(out, records)
    return records


def dom0_kernel(say):
    """Debian's Linux 6.1 for dom0 (a PV dom0 kernel): the one `make peers`
    fetched, else the bookworm image package alone (no -dbg), in
    build/xen-src/dom0/ -> the path of its vmlinuz."""
    man = fetch.load_manifest()
    if man and "linux-6.1" in man["peers"] and fetch._intact(man["peers"]["linux-6.1"]):
        return man["peers"]["linux-6.1"]["files"]["kernel"]
    folder = os.path.join(source.SRC, "dom0")
    found = sorted(n for n in os.listdir(folder) if n.startswith("vmlinuz-")) if os.path.isdir(folder) else []
    if found:
        return os.path.join(folder, found[-1])
    apt = PrivateApt(os.path.join(source.SRC, "apt", "bookworm-bin"), ["bookworm"])
    say("xen-src: fetching Debian's Linux 6.1 image for dom0")
    apt.update()
    version, depends = apt.candidate("linux-image-amd64")
    m = re.search(r"(linux-image-(6\.1\.0-\d+-amd64))\b", depends)
    if not m:
        raise FetchError(f"linux-image-amd64 {version} depends on {depends!r}, not a 6.1 image")
    deb = apt.download(m.group(1), apt.candidate(m.group(1))[0], folder)
    fetch.extract(deb, [f"./boot/vmlinuz-{m.group(2)}"], folder)
    os.replace(os.path.join(folder, "boot", f"vmlinuz-{m.group(2)}"), os.path.join(folder, f"vmlinuz-{m.group(2)}"))
    os.remove(deb)
    return os.path.join(folder, f"vmlinuz-{m.group(2)}")


def parse_list(text, allowed, what):
    items = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in items if x not in allowed]
    if bad or not items:
        raise BenchError(f"{what} {', '.join(bad) or repr(text)}: choose from {', '.join(allowed)}")
    return items


def cmd_xen_src(args):
    """`xen-src`: build, measure, prove the heap the same, boot dom0, report -> exit status."""
    if args.report:
        return variants_report.write(args.report)
    if args.tree:
        try:
            tree.series_of(tree.version_of(args.tree), args.tree)
        except source.SourceError as e:
            warn(f"xen-src: {e}")
            return 2
    # A default run measures the releases it can get; one named is needed.
    args.optional = () if args.releases else RELEASES
    args.releases = parse_list(args.releases or ",".join(RELEASES), RELEASES, "no Xen release")
    # Names Xen does not know go through: its own warning, read from the log, names them.
    args.variants = [x.strip() for x in args.variants.split(",") if x.strip()]
    if not args.variants or any(not re.fullmatch(r"[a-z0-9_-]+", x) for x in args.variants):
        raise BenchError(f"--variants {args.variants!r}: a comma list of heap-init= names")
    args.topologies = [TOPOLOGIES[int(n) - 1] for n in parse_list(args.nodes, ("1", "2"), "no node count")]
    args.sizes = parse_sizes(args.sizes)
    args.dom0_mem = command.guest_mem(args.dom0_mem)
    args.profile = command.guest_mem(args.profile) if args.profile else None
    out = args.out or os.path.join(ROOT, "results", "xen-src-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    if not args.no_model and not os.path.exists(command.ELF):
        raise BenchError(f"{command.ELF} is missing: run `make`")
    os.makedirs(out, exist_ok=True)
    try:
        if args.build_only and args.tree:
            return tree.build_only(args.tree, say)
        if args.build_only:
            releases = args.releases
            for config in source.CONFIGS:
                builds, records = builds_of(releases, config, say, optional=args.optional)
                for b in builds:
                    say(f"xen-src: Xen {b.release} ({config}): {b.folder}")
                if any(r["type"] == "error" for r in records) or not builds:
                    return 2
                releases = [b.release for b in builds]
            return 0
        kernel = None if args.no_dom0 else dom0_kernel(say)
        records = (tree.measure if args.tree else run_all)(args, out, say, kernel)
    except (source.SourceError, FetchError) as e:
        warn(f"xen-src: {e}")
        return 2
    variants_report.write(out)
    for r in records:
        if r["type"] == "unavailable":
            say(f"xen-src: not measured: Xen {r['release']}, whose source apt cannot get: "
                f"{r['message'].splitlines()[-1].strip()}")
    say(f"xen-src: {out}/report.md")
    return 1 if variants.failed(records) else 0


def add_parser(sub):
    p = sub.add_parser("xen-src", help="Xen 4.17 and 4.20 built from Debian's source with the patch "
                       "series: every init_heap_pages() variant under -icount, one heap, dom0 to init",
                       description="Builds Xen from Debian's source packages with patches/xen/ "
                       "(build/xen-src, cached), boots each heap-init= variant under TCG with -icount "
                       "shift=0 at each size on one node and on two unequal nodes with the exact "
                       "bracket of end_boot_allocator(), proves every variant built the same heap, "
                       "boots bootheap's models beside them, and each variant of the debug build "
                       "with a real dom0 to its init; writes variants.jsonl, the serial logs, "
                       "report.md and plot.png into a results folder.")
    p.add_argument("--releases", help=f"default {','.join(RELEASES)}: those whose source apt can get, "
                   "each left out named; a release named here that cannot be had fails the run")
    p.add_argument("--tree", metavar="DIR", help="a Xen source tree (an upstream checkout, e.g. staging) "
                   "built and measured with the series of its version (4.23: patches/xen/staging and "
                   "staging-measure) in place of the releases")
    p.add_argument("--sizes", default=DEFAULT_SIZES, help=f"GiB list (default {DEFAULT_SIZES})")
    p.add_argument("--nodes", default="1,2", help="1, 2 or both (default 1,2: one node, two unequal)")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"default {','.join(VARIANTS)}")
    p.add_argument("--jobs", type=int, default=2, help="boots at a time (default 2)")
    p.add_argument("--no-model", action="store_true", help="boot no bootheap models")
    p.add_argument("--no-dom0", action="store_true", help="boot no dom0")
    p.add_argument("--no-host-time", action="store_true",
                   help="do not time each release's own heap code on this CPU (xen-heap-test --time)")
    p.add_argument("--no-unpatched", action="store_true",
                   help="build and boot no release without the series (the released code as GCC lays it out)")
    p.add_argument("--dom0-mem", default="1G", help="the dom0 boots' guest (default 1G)")
    p.add_argument("--profile", default="1G", metavar="SIZE",
                   help="profile each variant beside its model function by function at this size "
                        "(default 1G; '' skips it)")
    p.add_argument("--build-only", action="store_true", help="only build (release and debug)")
    p.add_argument("--out", help="results folder (default results/xen-src-<date-time>)")
    p.add_argument("--report", metavar="FOLDER", help="only rewrite FOLDER's report.md and plot.png")
    return p
