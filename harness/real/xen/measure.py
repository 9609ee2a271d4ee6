# SPDX-License-Identifier: MIT
"""`xen-src measure` (`make xen-src`): the source builds of the releases
that can be had (harness/real/xen/source.py), the measured boots, the heap
proven one and the profiles (harness/real/xen/variants.py), the timing of
each release's own heap code on this CPU (host/timing.py), dom0 to its init
(harness/real/xen/dom0.py), all into variants.jsonl; report.md and
plot.png come from variants_report.py."""
import os
import re
import time

from harness.common import warn
from harness.real.debian import fetch
from harness.real.debian.apt import FetchError, PrivateApt
from harness.real.xen import source, variants
from harness.real.xen.host import timing as hosttime
from harness.real.xen.smp import recorded

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
    if args.series == "both":
        plain, more = timed([b.release for b in builds], "release", say, patches=[])
        errors += more
    records = [variants.header(builds, args.sizes, args.topologies, args.variants, args.jobs)] + errors
    records += [dict(b.info, type="build") for b in builds + plain]
    records += variants.measure(builds, args.sizes, args.topologies, args.variants, out, say, args.jobs,
                                not args.no_model, plain)
    if args.profile and not args.no_model:
        for b in builds:
            records += variants.profile_records(b, args.profile_size, out, say)
    if not args.no_host_time:
        gibs = sorted({m >> 30 for m in args.sizes if 1 << 30 <= m <= 256 << 30 and not m % (1 << 30)})
        for b in builds:
            if gibs and b.release in source.RELEASES and not getattr(args, "tree", None):
                records.append(hosttime.run_records(b.release, gibs, say=say))
    if kernel:
        debug, errors = timed([b.release for b in builds], "debug", say)
        records += errors + [dict(b.info, type="build") for b in debug]
        records += variants.functional(debug, args.variants, args.dom0_mem, out, kernel, say, args.jobs)
    if not getattr(args, "tree", None):
        records += recorded.records()      # staging's parallel hand-over, for the report
    records.append({"type": "end", "wall_s": round(time.monotonic() - t0, 1), "building_s": round(building, 1)})
    variants.write_records(out, records)
    return records


def dom0_kernel(say):
    """Debian's Linux 6.1 for dom0 (a PV dom0 kernel): the one `binaries`
    fetched, else the bookworm image package alone (no -dbg), in
    build/xen-src/dom0/ -> the path of its vmlinuz."""
    man = fetch.load_manifest()
    if man and "linux-6.1" in man["binaries"] and fetch._intact(man["binaries"]["linux-6.1"]):
        return man["binaries"]["linux-6.1"]["files"]["kernel"]
    folder = os.path.join(source.XEN.src, "dom0")
    found = sorted(n for n in os.listdir(folder) if n.startswith("vmlinuz-")) if os.path.isdir(folder) else []
    if found:
        return os.path.join(folder, found[-1])
    apt = PrivateApt(os.path.join(source.XEN.src, "apt", "bookworm-bin"), ["bookworm"])
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
