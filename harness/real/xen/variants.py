# SPDX-License-Identifier: MIT
"""The measuring of `python3 -m harness xen-src` (harness/real/xen/measure.py,
`make xen-src`): the seed's experiment on one tree. Xen 4.17 and 4.20, built here from Debian's source packages with the
patch series (harness/real/xen/source.py), boot under -icount once per
variant of init_heap_pages() (`heap-init=`), at each size, on one node and
on two unequal ones, with the exact bracket of end_boot_allocator() that
`binaries` takes of Debian's binaries (harness/real/bracket/boot.py). Every
variant's heap dump must hold together, be the canonical heap of the
boot allocator's regions, and equal every other variant's
(harness/real/xen/heapdump.py). bootheap's models of the variants boot on the
same guests. Then each variant of each release's debug build boots a real
dom0 to its init (harness/real/xen/dom0.py), its heap dumped at boot and
after the boot modules were freed, and held to the other variants'
(harness/real/xen/afterboot.py). Records go to variants.jsonl in
a results folder, with the serial logs, report.md and plot.png
(harness/real/xen/variants_report.py)."""
import concurrent.futures
import datetime
import json
import os
import re
import time

from harness.common import MIB, size_label
from harness.real.bracket import boot as realboot, initramfs, profile
from harness.real.xen import afterboot, carveout, dom0, heapdump, source
from harness.real.debian.fetch import DOM0_BYTES
from harness.real.xen.variants_report import RECORDS, UNPATCHED, VARIANTS
from harness.qemu import command
from harness.qemu.brackets import BracketError, take
RELEASES = tuple(source.RELEASES)
# Two unequal nodes: a third of the memory and the rest, the CPU on the first.
TOPOLOGIES = ("1 node", "2 nodes")
DUMP_MARKER = "heapdump: digest"
# What Xen says of an option value its parser refused (cmdline_parse()):
# 'parameter "heap-init" has invalid value "bogus", rc=-22!'.
BAD_VALUE = re.compile(r'parameter "([^"]+)" has invalid value "([^"]*)"[^\n]*')


class VariantError(Exception):
    """A variant's boot that gave no figure or no usable heap dump."""


def node_mib(mem_bytes, topology):
    """The guest's nodes in MiB: all on one, or a third (2 MiB-aligned) and the rest."""
    mib = mem_bytes // MIB
    if topology == TOPOLOGIES[0]:
        return [mib]
    first = mib // 3 // 2 * 2
    return [first, mib - first]


def dummy_dom0():
    """Xen wants a dom0 module to boot; built after the heap, any file does."""
    path = os.path.join(source.XEN.src, "dom0.img")
    if not os.path.isfile(path) or os.path.getsize(path) != DOM0_BYTES:
        os.makedirs(source.XEN.src, exist_ok=True)
        with open(path, "wb") as f:
            f.truncate(DOM0_BYTES)
    return path


def target_for(build, variant):
    append = f"{realboot.XEN_APPEND} heap-init={variant} heap-dump"
    return realboot.Target(f"xen-{build.release}-src", None, append,
                             lambda syms: realboot.xen_specs(), DUMP_MARKER, dom0=True)


def boot_unpatched(build, mem, nodes, log_path):
    """The unpatched build at one size and topology -> its record (no dump:
    the dump is a patch of the series)."""
    target = realboot.Target(f"xen-{build.release}-src", None, realboot.XEN_APPEND,
                               lambda syms: realboot.xen_specs(), "Domain heap initialised", dom0=True)
    try:
        results, log = realboot.boot_real(target, {"kernel": build.kernel, "symbols": build.symbols,
                                                     "dom0": dummy_dom0()}, mem, log_path, nodes=nodes)
        r = realboot.xen_result(results, log)
    except realboot.BracketBootError as e:
        raise VariantError(str(e))
    return {"type": "variant", "release": build.release, "source_version": build.info["source_version"],
            "config": build.config, "variant": UNPATCHED, "mem_bytes": mem, "nodes": nodes,
            "instructions": r["instructions"], "pages": r["pages"], "bracket": r["bracket"],
            "problems": [], "log": os.path.basename(log_path)}


def refused_value(log):
    """(option, value) Xen's command line parser refused, or None."""
    m = BAD_VALUE.search(log)
    return m.groups() if m else None


def console_ring(stub, syms):
    """Xen's console ring (what `xl dmesg` shows), read through the gdbstub:
    Xen parses its command line before the serial console is up, so its
    complaints about an option reach the ring only."""
    try:
        ring = stub.read(syms["conring"])                  # char *conring
        size = stub.read(syms["conring_size"], 4)
        prod = stub.read(syms["conringp"], 4)
    except KeyError as e:
        raise VariantError(f"Xen's symbols lack {e.args[0]}: cannot read its console ring")
    if prod <= size:
        return stub.read_bytes(ring, prod).decode("ascii", "replace")
    at = prod % size                                        # wrapped: oldest byte first
    return (stub.read_bytes(ring + at, size - at) + stub.read_bytes(ring, at)).decode("ascii", "replace")


def boot_variant(build, variant, mem, nodes, log_path):
    """One variant at one size and topology -> (record, Dump). Raises
    VariantError for a boot without its bracket, a value Xen refused (its
    own warning quoted), or a dump that is missing or wrong in itself."""
    ring = []

    def drive(stub, syms, deadline):
        results = [take(stub, syms, spec, deadline) for spec in realboot.xen_specs()]
        ring.append(console_ring(stub, syms))
        return results
    try:
        results, log = realboot.boot_real(target_for(build, variant),
                                            {"kernel": build.kernel, "symbols": build.symbols,
                                             "dom0": dummy_dom0()}, mem, log_path, drive=drive, nodes=nodes)
        r = realboot.xen_result(results, log)
    except realboot.BracketBootError as e:
        raise VariantError(str(e))
    refused = refused_value("".join(ring))
    if refused:
        raise VariantError(f"Xen {build.release} does not know {refused[0]}={refused[1]}: its console "
                           f"ring says '{BAD_VALUE.search(ring[0]).group(0)}'")
    try:
        d = heapdump.parse(log)
        d.nodes = heapdump.nodes_of(log)
        # The guest's one vCPU is on the first node (harness/qemu/guest.py).
        problems = heapdump.check(d) + heapdump.against_oracle(d, d.nodes, carveout.RULE_OF.get(variant, "4.17"))
    except heapdump.DumpError as e:
        raise VariantError(f"Xen {build.release} heap-init={variant} at {size_label(mem)}: {e}")
    if d.total != r["pages"]:
        problems.append(f"the bracket read total_avail_pages {r['pages']}, the dump {d.total}")
    rec = {"type": "variant", "release": build.release, "source_version": build.info["source_version"],
           "config": build.config, "variant": variant, "mem_bytes": mem, "nodes": nodes,
           "instructions": r["instructions"], "pages": r["pages"], "bracket": r["bracket"],
           "dump": d.as_record(), "problems": problems, "log": os.path.basename(log_path)}
    return rec, d


def model_record(mem, nodes, out, topology):
    log = os.path.join(out, f"serial-bootheap-{size_label(mem)}-{len(nodes)}n.log")
    counts, bench, cal = realboot.boot_bootheap(mem, "all", log, strategies=",".join(VARIANTS),
                                                  nodes=nodes)
    return [{"type": "model", "strategy": s, "mem_bytes": mem, "nodes": nodes, "topology": topology,
             "instructions": ticks, "pages": pages, "tsc_khz": cal["khz"]}
            for s, (ticks, pages) in counts.items()]


def digests_record(release, mem, nodes, dumps):
    """All variants of one build at one size and topology: one heap, chunk's
    and sweep's in one order; page's may differ where 4.16's carve-out rule
    puts a node's metadata (a note)."""
    notes = []
    layout = next((getattr(d, "nodes", None) for d in dumps.values()), None)
    problems = heapdump.compare(dumps, layout, 0, notes) if len(dumps) > 1 else []
    return {"type": "digests", "release": release, "mem_bytes": mem, "nodes": nodes,
            "variants": sorted(dumps), "digest": next(iter(dumps.values())).digest() if dumps else None,
            "problems": problems, "notes": notes,
            "merges": {v: len(afterboot.across(d.blocks, d.regions)) for v, d in dumps.items()}}


def measure(builds, sizes, topologies, variants, out, say, jobs=2, models=True, unpatched=()):
    """Every variant of every build at every size and topology, and each
    unpatched build, two boots at a time -> records, in a fixed order
    whatever finished first."""
    plan = []
    for topology in topologies:
        for mem in sizes:
            nodes = node_mib(mem, topology)
            for b in builds:
                for v in variants:
                    log = os.path.join(out, f"serial-xen-{b.release}-{v}-{size_label(mem)}-{len(nodes)}n.log")
                    plan.append(("variant", b, v, mem, nodes, log))
            for b in unpatched:
                log = os.path.join(out, f"serial-xen-{b.release}-{UNPATCHED}-{size_label(mem)}-{len(nodes)}n.log")
                plan.append((UNPATCHED, b, UNPATCHED, mem, nodes, log))
            if models:
                plan.append(("model", None, None, mem, nodes, topology))

    def one(job):
        kind, b, v, mem, nodes, extra = job
        t = time.monotonic()
        try:
            if kind == "model":
                return model_record(mem, nodes, out, extra), None, time.monotonic() - t
            if kind == UNPATCHED:
                return [boot_unpatched(b, mem, nodes, extra)], None, time.monotonic() - t
            rec, d = boot_variant(b, v, mem, nodes, extra)
            return [rec], d, time.monotonic() - t
        except (VariantError, realboot.BracketBootError, RuntimeError, ValueError, OSError) as e:
            what = f"Xen {b.release} heap-init={v}" if b else "bootheap's models"
            return [{"type": "error", "what": what, "mem_bytes": mem, "nodes": nodes,
                     "message": str(e)}], None, time.monotonic() - t

    records, dumps = [], {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for job, (recs, d, took) in zip(plan, pool.map(one, plan)):
            kind, b, v, mem, nodes, _ = job
            for r in recs:
                r["wall_s"] = round(took, 1)
            records += recs
            what = f"xen {b.release} {v}" if b else "bootheap's models"
            where = f"{size_label(mem)}, {len(nodes)} node{'s' if len(nodes) > 1 else ''}"
            if recs[0]["type"] == "error":
                say(f"xen-src: {what} at {where}: FAILED: {recs[0]['message'].splitlines()[0]}")
                continue
            if kind == "model":
                say(f"xen-src: bootheap's models at {where}: " + ", ".join(
                    f"{r['strategy']} {r['instructions'] / r['pages']:.2f}" for r in recs if r["pages"])
                    + f" instructions a page ({took:.0f} s)")
                continue
            r = recs[0]
            if d is not None:
                dumps.setdefault((b.release, mem, tuple(nodes)), {})[v] = d
            say(f"xen-src: {what} at {where}: {r['instructions'] / r['pages']:.2f} instructions a page"
                + (f", digest {d.digest()[0]}" if d else "")
                + (f", {len(r['problems'])} PROBLEMS" if r["problems"] else "") + f" ({took:.0f} s)")
    for (release, mem, nodes), ds in dumps.items():
        rec = digests_record(release, mem, list(nodes), ds)
        records.append(rec)
        for p in rec["problems"]:
            say(f"xen-src: Xen {release} at {size_label(mem)}, {len(nodes)} node(s): {p}")
        for n in rec["notes"]:
            say(f"xen-src: Xen {release} at {size_label(mem)}, {len(nodes)} node(s), a named case: {n}")
    return records


def functional(builds, variants, mem, out, kernel, say, jobs=2):
    """Each variant of each debug build boots dom0 to its init with
    `heap-dump`, `jobs` at a time -> records, in a fixed order: one a boot
    (its heap at boot and after the boot modules were freed, and how many
    blocks merged across a range's edge), then one `dom0-digests` a build
    holding its variants' heaps to one another (harness/real/xen/afterboot.py)."""
    initrd = os.path.join(out, "dom0.cpio.gz")
    initramfs.initramfs(initrd)
    mem = command.guest_mem(mem)

    def one(job):
        b, v = job
        log = os.path.join(out, f"serial-dom0-xen-{b.release}-{b.config}-{v}.log")
        rec = {"type": "dom0", "release": b.release, "config": b.config, "variant": v, "mem_bytes": mem}
        try:
            r = dom0.boot(b.kernel, kernel, initrd, mem, xen_append=f"heap-init={v} heap-dump", log_path=log)
        except (ValueError, OSError) as e:
            return dict(rec, status="error", lines=[str(e)], wall_s=0), None
        rec = dict(rec, status=r.status, lines=r.lines, wall_s=round(r.elapsed, 1), log=os.path.basename(log),
                   dom0_memtotal_kib=r.facts.get("dom0_memtotal_kib"))
        try:
            reading = afterboot.read(r.log, carveout.RULE_OF.get(v, "4.17"))
        except heapdump.DumpError as e:
            return dict(rec, problems=[f"the heap dump: {e}"]), None
        return dict(rec, problems=reading.problems, **reading.as_record()), reading

    plan = [(b, v) for b in builds for v in variants]
    recs, readings = [], {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for (b, v), (rec, reading) in zip(plan, pool.map(one, plan)):
            say(f"xen-src: dom0 on Xen {rec['release']} ({rec['config']}) heap-init={rec['variant']}: "
                f"{rec['status']} in {rec['wall_s']:.0f} s"
                + ("" if rec["status"] == "init" else ": " + "; ".join(rec["lines"][:2]))
                + (f", {rec['merges_boot']} blocks merged across a range's edge at boot, "
                   f"{rec['merges_after']} after {rec['stage']}" if reading else "")
                + "".join(f"; {p}" for p in rec.get("problems", [])[:2]))
            recs.append(rec)
            if reading:
                readings.setdefault((b.release, b.config), {})[v] = reading
    for (release, config), rs in readings.items():
        problems, notes = afterboot.compare(rs)
        recs.append({"type": "dom0-digests", "release": release, "config": config, "variants": sorted(rs),
                     "stage": next(iter(rs.values())).stage, "problems": problems, "notes": notes,
                     "merges": {v: [len(r.merged_at_boot()), len(r.merged_after())] for v, r in rs.items()}})
        for p in problems:
            say(f"xen-src: dom0 on Xen {release} ({config}): {p}")
        for n in notes:
            say(f"xen-src: dom0 on Xen {release} ({config}), a named case: {n}")
    return recs


# Each variant profiled function by function beside its model, and the
# window of pages freed that covers its pattern (harness/real/bracket/profile.py).
PROFILES = (("page", 1024), ("chunk-72b02bc", 4096), ("chunk", 4096))


def profile_records(build, mem, out, say):
    """Where the instructions go in each variant and in its model -> records."""
    recs = []
    for variant, window in PROFILES:
        xen = (target_for(build, variant), {"kernel": build.kernel, "symbols": build.symbols,
                                            "dom0": dummy_dom0()})
        try:
            r, m = profile.run_pair(f"xen-{build.release}-src", variant, None, mem, out, window, xen)
        except (realboot.BracketBootError, BracketError, RuntimeError, OSError) as e:
            recs.append({"type": "error", "what": f"the profile of Xen {build.release} heap-init={variant}",
                         "mem_bytes": mem, "nodes": [mem >> 20], "message": str(e)})
            continue
        recs.append({"type": "profile", "real": f"xen-{build.release}-src", "release": build.release,
                     "variant": variant, "strategy": variant, "mem_bytes": mem, "window": window,
                     "xen": r, "model": m})
        say(f"xen-src: profile of Xen {build.release} {variant} beside bootheap's: " + ", ".join(
            f"{k} {v / r['window_pages']:.1f}/{m['exclusive'].get(k, 0) / m['window_pages']:.1f}"
            for k, v in r["exclusive"].items()))
    return recs


def header(builds, sizes, topologies, variants, jobs):
    return {"type": "xen-src", "clock": "icount", "icount": realboot.ICOUNT,
            "units": "guest instructions", "machine": "q35", "cpus": 1, "jobs": jobs,
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "sizes_bytes": sizes, "topologies": list(topologies), "variants": list(variants),
            "builds": [b.info for b in builds]}


def write_records(out, records):
    with open(os.path.join(out, RECORDS), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def failed(records):
    """How many records say something went wrong."""
    return sum(1 for r in records if r["type"] == "error" or r.get("problems") or
               (r["type"] == "dom0" and r["status"] != "init"))
