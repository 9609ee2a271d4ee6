# SPDX-License-Identifier: MIT
"""`xen-src arm --tree DIR`: a Xen tree's proposal series (4.23:
patches/xen/staging/) built for Arm with Debian's cross compilers and
booted on QEMU's `virt` machine, stock against the series, one heap.

  builds  arm64 and arm32 with the series, release and debug, 0 warnings
          wanted (arm32's heap_run_pages() takes the CONFIG_SEPARATE_XENHEAP
          branch, which no other build compiles live)
  boots   arm64 and arm32 debug, stock and with the series, each with the
          measuring series' heap-dump patch (its code under xen/; its
          documentation's context is heap-init='s), at each size under TCG
          (arm32's xenheap a zone of its own), with a dummy dom0 module:
          Xen dumps the heap after end_boot_allocator() and panics when it
          cannot build dom0 from the dummy, which ends the boot. The two dumps must agree block for block, in list order,
          with the same heads, counters and digests (heapdump.compare()),
          and each must agree with itself (heapdump.check()).
  counts  arm64's release builds, stock and with the series, each boot
          recorded under -icount and replayed with end_boot_allocator()
          bracketed (count(): harness/real/bracket/boot.py's machinery on
          the virt machine, the gdbstub reading arm64's registers).

A missing cross compiler or QEMU for Arm is installed through
tools/setup.sh; if that cannot be done the run names the Debian package.
Builds (tree.build_patched()) are kept in build/xen-src/<arch>-<version>-<series>-<config>-<key>/
as tree.py keeps x86's; results (arm.jsonl, the serial logs, report.md) in
a results folder; `xen-src report FOLDER` writes report.md again from
arm.jsonl."""
import json
import os
import shutil
import subprocess
import time

from harness import ROOT
from harness.common import size_label
from harness.qemu import runner
from harness.qemu.brackets import BracketError
from harness.qemu.gdbstub import ARM64
from harness.real.bracket import boot as realboot
from harness.real.source.package import SourceError
from harness.real.xen import heapdump, tree as xtree
from harness.real.xen.dom0 import ASSERT_RE, PANIC_RE, XEN_RE
from harness.real.xen.source import XEN

# arch -> (the cross compiler's prefix, its Debian package)
CROSS = {"arm64": ("aarch64-linux-gnu-", "gcc-aarch64-linux-gnu"),
         "arm32": ("arm-linux-gnueabihf-", "gcc-arm-linux-gnueabihf")}
QEMU_PACKAGE = "qemu-system-arm"
# arch -> QEMU's virt machine with EL2 for Xen: the program, the machine and
# the core. Xen's command line is -append, which Xen reads as its own once a
# dom0 module has its own bootargs (guest-loader's).
MACHINES = {"arm64": ["qemu-system-aarch64", "-M", "virt,virtualization=on,gic-version=3", "-cpu", "cortex-a57",
                      "-smp", "1"],
            "arm32": ["qemu-system-arm", "-M", "virt,virtualization=on", "-cpu", "cortex-a15", "-smp", "1"]}
XEN_ARGS = "console=dtuart loglvl=all heap-dump"
COUNT_ARGS = "console=dtuart loglvl=all"
COUNTED = ("arm64",)               # the brackets read arm64's registers (gdbstub.ARM64); arm32 is not counted
# The dump builds print from their first instruction on QEMU virt's PL011, so
# that a heap that stops Xen before its console is up is still seen.
EARLY_UART = {"EARLY_UART_CHOICE_PL011": "y", "EARLY_UART_BASE_ADDRESS": "0x09000000"}
DUMMY_AT = 0x49000000          # the dummy dom0 module: in RAM, clear of Xen and of the DTB QEMU puts at 128 MiB
DEFAULT_SIZES = "1G,3G"
TIMEOUT_BASE, TIMEOUT_PER_GIB, STALL = 240.0, 60.0, 120.0
RECORDS = "arm.jsonl"


def missing_tools(arches=tuple(CROSS)):
    """[(program, Debian package)] of what a run needs and PATH lacks."""
    want = [(CROSS[a][0] + "gcc", CROSS[a][1]) for a in arches] + [(MACHINES[a][0], QEMU_PACKAGE) for a in arches]
    return [(prog, pkg) for prog, pkg in want if shutil.which(prog) is None]


def install(missing, say):
    """tools/setup.sh on the on-demand entries of tools/host-files.txt (it
    installs their packages, as root or with sudo) -> what is still missing."""
    if not missing:
        return []
    say(f"xen-src arm: installing {', '.join(sorted({p for _, p in missing}))}")
    subprocess.run(["sh", os.path.join(ROOT, "tools", "setup.sh")], env=dict(os.environ, ON_DEMAND="1"),
                   stdin=subprocess.DEVNULL)
    return [(prog, pkg) for prog, pkg in missing if shutil.which(prog) is None]


def code_only(patch, dest):
    """The patch's files under xen/ alone, written to `dest` -> dest: the
    dump without its documentation, whose context lines are another
    patch's and would not apply on a tree without it."""
    with open(patch) as f:
        text = f.read()
    head, *files = text.split("\ndiff --git ")
    kept = [f for f in files if f.startswith("a/xen/")]
    if not kept:
        raise SourceError(f"{os.path.relpath(patch, ROOT)} changes nothing under xen/")
    with open(dest, "w") as f:
        f.write(head.split("\n---\n")[0] + "\n---\n\ndiff --git " + "\ndiff --git ".join(kept))
    return dest


def dump_patch(tree):
    """The heap-dump patch of the tree's measuring series, its code alone
    -> path (kept in build/xen-src/)."""
    measuring = xtree.series_of(xtree.version_of(tree), tree)[1]
    found = [p for p in XEN.series(measuring, os.path.join(XEN.patches, measuring)) if "heap-dump" in p]
    if len(found) != 1:
        raise SourceError(f"patches/xen/{measuring}/ has {len(found)} heap-dump patches, not one")
    os.makedirs(XEN.src, exist_ok=True)
    return code_only(found[0], os.path.join(XEN.src, "arm-heap-dump.patch"))


def boot(arch, b, mem, log_path, dummy):
    """The `arch` build `b` booted with `mem` bytes of RAM until Xen panics
    for want of a dom0 -> (status, serial log): "panic" is the boot's
    planned end; "assert", "timeout", "stalled" or "exited" are not."""
    gib = mem / (1 << 30)
    cmd = MACHINES[arch] + ["-m", f"{mem >> 20}M", "-nographic", "-no-reboot", "-kernel", b.kernel,
                              "-append", XEN_ARGS, "-device",
                              f"guest-loader,addr=0x{DUMMY_AT:x},kernel={dummy},bootargs=console=hvc0"]

    def done(reader, now):
        return "Panic on CPU" in reader.said() and now - reader.last > 2
    proc, reader = runner.launch(cmd, True, log_path)
    how = runner.wait(proc, reader, TIMEOUT_BASE + TIMEOUT_PER_GIB * gib, STALL, done=done)
    log = reader.finish()
    lines = [m.group(1) for m in map(XEN_RE.match, log.splitlines()) if m]
    if any(ASSERT_RE.search(x) for x in lines):
        return "assert", log
    if any(PANIC_RE.match(x) for x in lines):
        return "panic", log
    return how, log


def count_target(arch, dummy):
    """The bracket of end_boot_allocator() (harness/real/bracket/boot.py's
    Xen bracket) on `arch`'s virt machine: the boot recorded under -icount
    and replayed with the gdbstub, as x86's counts are."""
    def command(files, mem_bytes, icount, extra):
        return MACHINES[arch] + ["-m", f"{mem_bytes >> 20}M", "-nographic", "-no-reboot", "-kernel", files["kernel"],
                                 "-append", COUNT_ARGS, "-device",
                                 f"guest-loader,addr=0x{DUMMY_AT:x},kernel={dummy},bootargs=console=hvc0",
                                 "-icount", icount] + extra
    return realboot.Target(f"xen-{arch}", None, COUNT_ARGS, lambda syms: realboot.xen_specs(),
                           "Domain heap initialised", command=command, arch=ARM64)


def count(arch, builds, mem, out, dummy, say):
    """Instructions a page of end_boot_allocator(), stock and the series'
    release builds of `arch` at `mem` -> records."""
    records = []
    for label in ("stock", "series"):
        b = builds[(arch, "release", label)]
        log = os.path.join(out, f"serial-{arch}-count-{label}-{size_label(mem)}.log")
        rec = {"type": "count", "arch": arch, "series": label, "mem_bytes": mem, "log": os.path.basename(log)}
        try:
            (r,), _ = realboot.boot_real(count_target(arch, dummy), {"kernel": b.kernel, "symbols": b.symbols},
                                         mem, log)
        except (realboot.BracketBootError, BracketError) as e:
            rec["problems"] = [f"no count: {e}".splitlines()[0]]
        else:
            rec.update(instructions=r.instructions, pages=r.reads["total_avail_pages"])
        records.append(rec)
        say(f"xen-src arm: {arch} {label} at {size_label(mem)}: " +
            (f"{rec['instructions'] / rec['pages']:.2f} instructions a page over {rec['pages']} pages "
             "(-icount)" if "pages" in rec else rec["problems"][0]))
    return records


def boot_pair(arch, builds, mem, out, dummy, say):
    """`arch`'s two dump builds booted at `mem` and their heaps held to each
    other -> records: a boot record each, and the comparison's."""
    records, dumps = [], {}
    for label in ("stock-dump", "series-dump"):
        log_path = os.path.join(out, f"serial-{arch}-{label}-{size_label(mem)}.log")
        t0 = time.monotonic()
        status, log = boot(arch, builds[(arch, "debug", label)], mem, log_path, dummy)
        rec = {"type": "boot", "arch": arch, "series": label, "mem_bytes": mem, "status": status,
               "wall_s": round(time.monotonic() - t0, 1), "log": os.path.basename(log_path)}
        try:
            d = heapdump.parse(log)
        except heapdump.DumpError as e:
            rec["problems"] = [str(e)]
        else:
            rec.update(blocks=len(d.blocks), pages=d.total, digest="/".join(d.digest()),
                       problems=heapdump.check(d, xenheap_zone=arch == "arm32"))
            dumps["stock" if label == "stock-dump" else "series"] = d
        if status != "panic":
            said = ASSERT_RE.search(log) if status == "assert" else None
            rec.setdefault("problems", []).append(f"the boot ended {status}, not in the planned panic"
                                                  + (f": {said.group(0)}" if said else ""))
        records.append(rec)
        say(f"xen-src arm: {arch} {label} at {size_label(mem)}: {status}, "
            + (f"{rec['blocks']} blocks, {rec['pages']} pages free" if "blocks" in rec else "no dump")
            + ("" if not rec.get("problems") else ": " + "; ".join(rec["problems"])))
    if len(dumps) == 2:
        problems = heapdump.compare(dumps)
        records.append({"type": "compare", "arch": arch, "mem_bytes": mem, "problems": problems})
        say(f"xen-src arm: {arch} at {size_label(mem)}: " +
            ("one heap, stock and the series, block for block in list order" if not problems
             else "; ".join(problems)))
    return records


def run(tree, sizes, out, say, jobs=None):
    """Builds and boots as the module says -> records (written to
    out/arm.jsonl). A build that fails raises SourceError."""
    t0 = time.monotonic()
    series, dump = xtree.proposal(tree), dump_patch(tree)
    records = [{"type": "arm", "tree": tree, "fingerprint": xtree.fingerprint(tree), "sizes": sizes,
                "machines": {a: " ".join(m) for a, m in MACHINES.items()}, "xen_args": XEN_ARGS}]
    plan = [(arch, config, patches, label) for arch in CROSS for config, patches, label in
            (("release", series, "series"), ("debug", series, "series"),
             ("debug", [dump], "stock-dump"), ("debug", series + [dump], "series-dump"))
            + ((("release", [], "stock"),) if arch in COUNTED else ())]
    builds = {}
    for arch, config, patches, label in plan:
        b = xtree.build_patched(tree, patches, label, config, say, jobs, (arch, CROSS[arch][0]),
                                EARLY_UART if label.endswith("-dump") else None)
        builds[(arch, config, label)] = b
        records.append({"type": "build", "arch": arch, "config": config, "series": label,
                        "patches": [os.path.basename(p) for p in patches], "key": b.info["key"],
                        "build_s": b.info["build_s"], "warnings": b.info["warnings"],
                        "toolchain": b.info["toolchain"]["gcc"]})
    dummy = os.path.join(out, "dummy-dom0")
    with open(dummy, "wb") as f:
        f.write(bytes(4096))            # no kernel: Xen panics building dom0, after the heap
    for arch in CROSS:
        for mem in sizes:
            records += boot_pair(arch, builds, mem, out, dummy, say)
            if arch in COUNTED:
                records += count(arch, builds, mem, out, dummy, say)
    records.append({"type": "end", "wall_s": round(time.monotonic() - t0, 1)})
    with open(os.path.join(out, RECORDS), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    write_report(out)
    return records


def failed(records):
    """What went wrong in a run's records -> [line]."""
    out = []
    for r in records:
        if r["type"] == "build" and r["warnings"]:
            out.append(f"{r['arch']} {r['series']} ({r['config']}): {len(r['warnings'])} warnings, "
                       f"the first {r['warnings'][0]}")
        out += [f"{r.get('arch', '')} {r['type']} at {size_label(r['mem_bytes'])}: {p}".lstrip()
                for p in r.get("problems", ()) if "mem_bytes" in r]
    return out


def write_report(folder):
    """report.md of a results folder, from its arm.jsonl alone -> 0."""
    with open(os.path.join(folder, RECORDS)) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    head = next(r for r in recs if r["type"] == "arm")
    end = next((r for r in recs if r["type"] == "end"), {})
    out = ["# Xen's proposal series on Arm: cross-built, and booted stock against the series", "",
           f"Tree at {head['fingerprint'][:12]}; QEMU " + " and ".join(f"`{m}`" for m in head["machines"].values())
           + f" under TCG, Xen's command line `{head['xen_args']}` and a dummy dom0 module, "
           "so that each boot ends in Xen's panic after the heap is built; "
           f"this run took {end.get('wall_s', '?')} s (a build kept from an earlier run is reused; "
           "its build time is that run's).", "",
           "| arch | config | built | patches | warnings | build s |", "|---|---|---|---|---|---|"]
    for r in recs:
        if r["type"] == "build":
            out.append(f"| {r['arch']} | {r['config']} | {r['series']} | {len(r['patches'])} | "
                       f"{len(r['warnings'])} | {r['build_s']:.0f} |")
    out += ["", "| arch | RAM | boot | end | wall s | blocks | pages free | digests (blocks/pages) |",
            "|---|---|---|---|---|---|---|---|"]
    for r in recs:
        if r["type"] == "boot":
            out.append(f"| {r['arch']} | {size_label(r['mem_bytes'])} | {r['series']} | {r['status']} | "
                       f"{r['wall_s']:.0f} | {r.get('blocks', '-')} | {r.get('pages', '-')} | {r.get('digest', '-')} |")
    out += ["", "| arch | RAM | stock against the series |", "|---|---|---|"]
    for r in recs:
        if r["type"] == "compare":
            out.append(f"| {r['arch']} | {size_label(r['mem_bytes'])} | " + ("one heap: every block in list order, heads, "
                       "counters and digests" if not r["problems"] else "; ".join(r["problems"])) + " |")
    counted = [r for r in recs if r["type"] == "count"]
    if counted:
        out += ["", "Instructions a page of `end_boot_allocator()` (the boot recorded under -icount shift=0,sleep=off "
                "and replayed with its brackets; release builds):", "",
                "| arch | RAM | pages | stock | the series | stock / series |", "|---|---|---|---|---|---|"]
        for r in counted:
            if r["series"] != "stock":
                continue
            mine = next((x for x in counted if x["series"] == "series" and x["arch"] == r["arch"]
                         and x["mem_bytes"] == r["mem_bytes"]), {})
            if "pages" in r and "pages" in mine:
                a, b = r["instructions"] / r["pages"], mine["instructions"] / mine["pages"]
                out.append(f"| {r['arch']} | {size_label(r['mem_bytes'])} | {r['pages']} | {a:.2f} | {b:.2f} | "
                           f"{a / b:.2f}x |")
    wrong = failed(recs)
    out += ["", "Problems: " + ("none." if not wrong else "; ".join(wrong)), ""]
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write("\n".join(out))
    return 0
