# SPDX-License-Identifier: MIT
"""`xen-src smp-boot`: a stock tree with its proposal series and
patches/xen/staging-parallel booted to dom0's init under TCG on several
vCPUs and nodes (smp_boots()); with --dump, the heap dump's code on top
and each case booted as stock, as the series, and with heap-init-smp=0 and
1, the heaps held to one another (dump_boots(), afterboot.hold_parallel())."""
import os
import re

from harness.common import size_label
from harness.real.bracket import initramfs
from harness.real.xen import afterboot, dom0
from harness.qemu import command
from harness.real.xen.tree import build_patched, proposal, with_extra


# `xen-src smp-boot`'s default cases: (MiB, vCPUs, nodes, MiB of RAM below
# 4 GiB or 0 for QEMU's own); a node with no CPU, one to four nodes, one
# to eight vCPUs.
SMP_CASES = ((6144, 2, 1, 0), (6144, 4, 2, 0), (8192, 8, 4, 0), (12288, 1, 2, 0), (12288, 8, 2, 0),
             (12288, 4, 4, 0), (16384, 8, 1, 0), (16384, 2, 2, 0))


def case_label(mib, cpus, nodes, low):
    """A case's part of its logs' names."""
    return f"{mib}M-{cpus}c-{nodes}n" + (f"-low{low}M" if low else "")


def case_words(mib, cpus, nodes, low):
    """A case as the harness says it."""
    return f"{size_label(mib << 20)}, {cpus} vCPUs, {nodes} node(s)" + (f", {low} MiB below 4 GiB" if low else "")


def machine_opts(low):
    """QEMU's machine options for `low` MiB of RAM below 4 GiB (0: its own)."""
    return f"max-ram-below-4g={low}M" if low else ""
SMP_LINE = re.compile(r"Heap: (\d+) MiB handed over on (\d+) CPUs in (\d+) rounds")


def smp_boots(path, patch, cases, out, kernel, say=print, off=False):
    """`xen-src smp-boot`: the debug build of the tree with its proposal
    series and `patch` (patches/xen/staging-parallel) booting dom0 to its
    init under TCG for each case (MiB, vCPUs, nodes), with heap-init-smp
    on (and off, with `off`) -> records, one a boot: its status, what the
    initcall said it handed over (MiB, CPUs, rounds) and the wall time."""
    b = build_patched(path, proposal(path) + [patch], "staging-parallel", "debug", say)
    initrd = os.path.join(out, "dom0.cpio.gz")
    initramfs.initramfs(initrd)
    records = []
    for mib, cpus, nodes, low in cases:
        # Idle CPUs scrub the heap while Xen boots: in a guest larger than
        # the host's free RAM that writes more than the host has.
        scrub = " bootscrub=off" if command.larger_than_host(mib << 20) else ""
        for on in (1, 0) if off else (1,):
            log = os.path.join(out, f"serial-smp-{case_label(mib, cpus, nodes, low)}-{'on' if on else 'off'}.log")
            r = dom0.boot(b.kernel, kernel, initrd, f"{mib}M", xen_append=f"heap-init-smp={on}{scrub}", log_path=log,
                          cpus=cpus, nodes=nodes, machine_opts=machine_opts(low))
            m = SMP_LINE.search(r.log)
            rec = {"type": "smp_boot", "mem_bytes": mib << 20, "cpus": cpus, "nodes": nodes, "heap_init_smp": on,
                   "low_mib": low, "bootscrub": not scrub,
                   "status": r.status, "lines": r.lines, "wall_s": round(r.elapsed, 1), "log": os.path.basename(log),
                   "handed_mib": int(m.group(1)) if m else 0, "on_cpus": int(m.group(2)) if m else 0,
                   "rounds": int(m.group(3)) if m else 0, "key": b.info.get("key")}
            records.append(rec)
            say(f"xen-src: {case_words(mib, cpus, nodes, low)}, heap-init-smp={on}: "
                f"{r.status} in {r.elapsed:.0f} s; " + (f"{m.group(1)} MiB handed over after SMP bring-up on "
                                                        f"{m.group(2)} CPUs in {m.group(3)} rounds" if m else
                                                        "nothing kept back") +
                ("" if r.status == "init" else ": " + "; ".join(r.lines[:2])))
    return records


# `smp-boot --dump`'s boots of a case: (label, the build's patches, Xen's extra arguments).
# bootscrub=off: with more than one vCPU an idle CPU scrubs the memory handed
# over while Xen boots, and how far it got (first_dirty, need_scrub) is timing.
DUMP_SIDES = (("stock", "stock", ""), ("series", "series", ""), ("smp-off", "parallel", "heap-init-smp=0"),
              ("smp-on", "parallel", "heap-init-smp=1"))
DUMP_ARGS = "heap-dump bootscrub=off"


def dump_boots(path, patch, dump, cases, out, kernel, say=print, extra=None):
    """`xen-src smp-boot --dump`: debug builds of the tree with the heap
    dump's code (`dump`) on top, stock, with its proposal series, and with
    the series and `patch` (patches/xen/staging-parallel), each case booted
    to dom0's init as each of DUMP_SIDES with `heap-dump` -> records: a boot
    record each, and one `smp-dump` a case holding its heaps to one another
    (afterboot.hold_parallel()). With `extra` (a patch's path), that patch
    on top of `patch`: a change held before it is made."""
    series = proposal(path)
    label = with_extra("parallel-dump", extra)
    builds = {"stock": build_patched(path, [dump], "stock-dump", "debug", say),
              "series": build_patched(path, series + [dump], "series-dump", "debug", say),
              "parallel": build_patched(path, series + [patch] + ([extra] if extra else []) + [dump], label,
                                        "debug", say)}
    initrd = os.path.join(out, "dom0.cpio.gz")
    initramfs.initramfs(initrd)
    records = []
    for mib, cpus, nodes, low in cases:
        logs, case = {}, {"mem_bytes": mib << 20, "cpus": cpus, "nodes": nodes, "low_mib": low}
        for label, which, extra in DUMP_SIDES:
            log = os.path.join(out, f"serial-dump-{case_label(mib, cpus, nodes, low)}-{label}.log")
            r = dom0.boot(builds[which].kernel, kernel, initrd, f"{mib}M", xen_append=f"{DUMP_ARGS} {extra}".strip(),
                          log_path=log, cpus=cpus, nodes=nodes, machine_opts=machine_opts(low))
            records.append(dict(case, type="dump_boot", side=label, status=r.status, lines=r.lines,
                                wall_s=round(r.elapsed, 1), log=os.path.basename(log),
                                key=builds[which].info.get("key")))
            logs[label] = r.log
            say(f"xen-src: {case_words(mib, cpus, nodes, low)}, {label} with heap-dump: "
                f"{r.status} in {r.elapsed:.0f} s" + ("" if r.status == "init" else ": " + "; ".join(r.lines[:2])))
        held = afterboot.hold_parallel(logs, SMP_LINE)
        records.append(dict(case, type="smp-dump", **held))
        say(f"xen-src: {case_words(mib, cpus, nodes, low)}: " +
            ("; ".join(held["problems"][:3]) if held["problems"] else "one heap: " + "; ".join(held["said"])))
    return records
