# SPDX-License-Identifier: MIT
"""`xen-src smp-boot` and `xen-src smp-count`: the modes of Xen's heap on
every CPU (patches/xen/staging-parallel); harness/real/xen/cli.py adds them."""
import json
import os

from harness import ROOT
from harness.common import BenchError, parse_sizes, say
from harness.qemu import guest
from harness.real import cli as real_cli
from harness.real.xen import arm, measure
from harness.real.xen.smp import boots, counts
from harness.real.xen.variants import TOPOLOGIES


def cmd_smp_boot(args):
    """Boots of the tree with patches/xen/staging-parallel -> 0 when every
    boot reached dom0's init, 1 when not."""
    cases = []
    for item in args.cases.split(","):
        parts = item.split(":")
        try:
            mem, cpus, nodes = parse_sizes(parts[0])[0], int(parts[1]), int(parts[2])
            low = parse_sizes(parts[3])[0] if len(parts) == 4 else 0
            if len(parts) not in (3, 4) or mem % (1 << 20) or low % (1 << 20) or not 1 <= cpus <= 8 or \
                    not 1 <= nodes <= 4 or (len(parts) == 4 and not 0 < low < min(mem, 4 << 30)):
                raise ValueError(item)
        except (BenchError, ValueError, IndexError):
            raise BenchError(f"--cases {args.cases}: want SIZE:VCPUS:NODES[:LOW] items, 1 to 8 vCPUs, 1 to 4 "
                             "nodes, LOW the RAM below 4 GiB (under 4 GiB and the size), e.g. 6G:2:1,1T:2:1:128M") \
                from None
        why = guest.check(cpus, nodes, mem)
        if why:
            raise BenchError(f"--cases {item}: {why}")
        cases.append((mem >> 20, cpus, nodes, low >> 20))
    extra = extra_patch(args.extra)
    if extra and not args.dump:
        raise BenchError("--extra: only with --dump (the heaps held with the change on top)")
    out, path = real_cli.results_folder(args, "xen-smp-"), os.path.abspath(args.tree)
    if args.dump:
        records = boots.dump_boots(path, parallel_patch(), arm.dump_patch(path), cases, out,
                                   measure.dom0_kernel(say), say, extra)
    else:
        records = boots.smp_boots(path, parallel_patch(), cases, out, measure.dom0_kernel(say), say, off=args.off)
    with open(os.path.join(out, "smp-boots.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    booted = [r for r in records if "status" in r]
    bad = [r for r in booted if r["status"] != "init"]
    held = [r for r in records if r["type"] == "smp-dump" and r["problems"]]
    say(f"xen-src smp-boot: {len(booted) - len(bad)} of {len(booted)} boots reached dom0's init"
        + (f", {len(held)} of {len(records) - len(booted)} cases with another heap" if args.dump else "")
        + f"; {out}")
    return 1 if bad or held else 0


def cmd_smp_count(args):
    """The parallel hand-over counted as a critical path -> 0 when every
    size and topology was counted, 1 when not."""
    cpus = sorted(set(real_cli.counts(args.cpus, "--cpus", 64, "want vCPU counts from 1 to 64, e.g. 1,2,4,8")))
    topologies = [TOPOLOGIES[n - 1] for n in real_cli.nodes(args.nodes)]
    sizes = parse_sizes(args.sizes)
    if min(sizes) < 2 << 30:
        raise BenchError(f"--sizes {args.sizes}: the counts are of guests from 2 GiB up, where the hand-over "
                         "keeps pieces back beside what Xen needs before SMP bring-up; want 2 GiB and up")
    extra = extra_patch(args.extra)
    out = real_cli.results_folder(args, "xen-smp-count-")
    records = counts.counts(os.path.abspath(args.tree), parallel_patch(), sizes, topologies, out, say, cpus, extra)
    with open(os.path.join(out, "smp-counts.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    bad = [r for r in records if r["type"] == "error"]
    say(f"xen-src smp-count: {len(records) - len(bad)} of {len(records)} sizes counted; {out}")
    return 1 if bad else 0


def extra_patch(given):
    """--extra's patch as an absolute path, or None when not given."""
    if not given:
        return None
    path = os.path.abspath(given)
    if not os.path.isfile(path):
        raise BenchError(f"--extra {given}: no such patch")
    return path


def parallel_patch():
    """The patch of patches/xen/staging-parallel/, which goes on top of the
    proposal series: the hand-over after SMP bring-up."""
    folder = os.path.join(ROOT, "patches", "xen", "staging-parallel")
    found = sorted(f for f in os.listdir(folder) if f.endswith(".patch"))
    if len(found) != 1:
        raise BenchError(f"{folder}: want one patch, found {len(found)}")
    return os.path.join(folder, found[0])


def add_modes(mode, failing):
    """smp-boot and smp-count on `mode` (real_cli.command()'s), each run
    through `failing` (a source or build failure an exit 2)."""
    g = mode("smp-boot", "a stock tree with the proposal series and patches/xen/staging-parallel, booted to "
             "dom0's init on several vCPUs and nodes", failing(cmd_smp_boot), description="Builds the tree (a "
             "stock staging) with its proposal series and patches/xen/staging-parallel in the debug config and "
             "boots dom0 to its init under TCG for each case, with heap-init-smp=1 (and 0 with --off); writes "
             "smp-boots.jsonl.")
    g.add_argument("--tree", metavar="DIR", required=True, help="a stock Xen staging tree")
    g.add_argument("--cases", default=",".join(f"{m // 1024}G:{c}:{n}" for m, c, n, _ in boots.SMP_CASES),
                   help="SIZE:VCPUS:NODES[:LOW], a comma list; LOW is the RAM below 4 GiB (QEMU's "
                        "max-ram-below-4g), to leave Xen little memory below 4 GiB (default: "
                        "%(default)s)")
    g.add_argument("--off", action="store_true", help="also boot each case with heap-init-smp=0")
    g.add_argument("--extra", metavar="PATCH", help="with --dump: a change on top of the parallel patch, booted "
                   "and held in its place")
    g.add_argument("--dump", action="store_true",
                   help="with the heap dump's code on top, boot each case as stock, as the proposal series, and "
                        "with heap-init-smp=0 and 1, and hold the heaps to one another at boot and after dom0's "
                        "boot modules went")
    real_cli.add_out(g, "xen-smp-")
    c = mode("smp-count", "a stock tree with the proposal series and patches/xen/staging-parallel counted under "
             "-icount: the serial pass and the critical path on K vCPUs", failing(cmd_smp_count),
             description="Builds the tree with its proposal series and patches/xen/staging-parallel (release) and "
             "boots it on one vCPU under -icount at each size and topology, with heap-init-smp=0 (the serial "
             "single pass) and 1 (end_boot_allocator(), then init_deferred_heap() with each CPU's piece counted "
             "apart); the critical path on K vCPUs is worked out from those counts (harness/real/xen/smp/"
             "counts.py says how). Writes smp-counts.jsonl.")
    c.add_argument("--tree", metavar="DIR", required=True, help="a stock Xen staging tree")
    real_cli.add_sizes(c, "4,16,64")
    real_cli.add_nodes(c, "a third of the memory and the rest")
    c.add_argument("--cpus", default="1,2,4,8", help="the vCPU counts to work the critical path out for "
                                                     "(default %(default)s)")
    c.add_argument("--extra", metavar="PATCH", help="a change to measure on top of the parallel patch, "
                   "counted in its place")
    real_cli.add_out(c, "xen-smp-count-")
