# SPDX-License-Identifier: MIT
"""Boots the real binaries and bootheap under QEMU's deterministic TCG
(-icount shift=0,sleep=off: one guest instruction is one virtual ns), on
the QEMU command line bootheap's own runs use (harness/qemu/runner.py), and takes
the exact instruction brackets of their heap hand-over (harness/qemu/brackets.py).

Firmware: bootheap and Linux boot by -kernel under qboot, as `make run`
does; Xen's Debian build has only a multiboot entry, which qboot cannot
load, so Xen boots by -kernel under QEMU's SeaBIOS (its multiboot option
ROM). Same q35 machine, same CPU model, one vCPU, the same memory size."""
import os
import tempfile
import time

from harness.qemu import command, runner
from harness.qemu.brackets import BracketError, Spec, load_symbols, take
from harness.common import GIB
from harness.qemu.gdbstub import X86_64, GdbStub, StubError
from harness.real.bracket.logs import LogError, bootheap_counts, linux_facts, xen_facts

ICOUNT = "shift=0,sleep=off"
XEN_STRATEGIES = "page,chunk,sweep,lazy"
XEN_APPEND = "console=com1 com1=115200,8n1 console_timestamps=boot loglvl=all"
LINUX_APPEND = "console=ttyS0 printk.time=1 panic=-1 nokaslr"

# Linux 6.1 and 6.12, x86-64: a memory section is 2^27 bytes, 32768 pages;
# the memmap init defers the rest of a node's last zone past its first section.
PAGES_PER_SECTION = 32768


class BracketBootError(Exception):
    """A boot that did not give its brackets, with why and the log's end."""


def timeout_for(mem_bytes):
    """Seconds a boot may take: a base for firmware and boot, plus a share
    per GiB for the per-page phases (Xen 4.14 runs about 375 instructions a
    page, which TCG executes at some hundred million a second)."""
    return 180 + 20 * mem_bytes / GIB


def xen_specs():
    return [Spec("end_boot_allocator", "end_boot_allocator", exclude=("printk",),
                 reads=("total_avail_pages",))]


def defer_statics(syms):
    """defer_init()'s two statics, nr_initialised and prev_end_pfn, by the
    names GCC gave them in this build (nr_initialised.4 in 6.1,
    nr_initialised.3 in 6.12)."""
    return tuple(next(n for n in sorted(syms) if n.startswith(base))
                 for base in ("nr_initialised.", "prev_end_pfn."))


def linux_specs(syms):
    irqs = sorted(n for n in syms if n.startswith("asm_sysvec_")) + \
        ["asm_common_interrupt", "asm_spurious_interrupt"]
    return linux_early_specs(syms, defer_statics(syms)) + [
        Spec("deferred", "deferred_init_memmap", exclude=("_printk", "__schedule"),
             interrupts=irqs, reads=("vm_zone_stat",), per_node=True),
    ]


def linux_early_specs(syms, statics=()):
    """The memmap init and memblock_free_all(): the whole hand-over of a
    kernel built without DEFERRED_STRUCT_PAGE_INIT, which has no
    defer_init() and so none of its statics. The memmap bracket closes as
    free_area_init() returns; from 7.1 on that function is static, called
    last by mm_core_init_early(), which closes it there. The reserved
    pages' loop is reserve_bootmem_region() up to 6.12,
    memmap_init_reserved_range() from 7.1."""
    close = "free_area_init" if "free_area_init" in syms else "mm_core_init_early"
    reserved = "reserve_bootmem_region" if "reserve_bootmem_region" in syms else "memmap_init_reserved_range"
    return [
        Spec("memmap", "memmap_init_range", close, exclude=("_printk",),
             parts=("memmap_init_range",), part_reads=statics),
        Spec("memblock_free_all", "memblock_free_all", exclude=("_printk",),
             parts=(reserved,), reads=("_totalram_pages", "vm_zone_stat")),
    ]


class Target:
    """How one kernel boots for its brackets: firmware (None: SeaBIOS), its
    command line, its brackets (a function of its symbols), the serial line
    it prints once they have closed, and whether it takes Xen's dom0 module."""

    def __init__(self, name, bios, append, specs, marker, dom0=False, command=None, arch=X86_64):
        self.name, self.bios, self.append, self.specs = name, bios, append, specs
        self.marker, self.dom0 = marker, dom0
        # Another machine than the q35 one: command(files, mem_bytes, icount,
        # extra) -> QEMU's command line, and the gdbstub's registers (arm64).
        self.command, self.arch = command, arch


TARGETS = {
    "xen-4.14": Target("xen-4.14", None, XEN_APPEND, lambda syms: xen_specs(),
                       "Domain heap initialised", dom0=True),
    "xen-4.17": Target("xen-4.17", None, XEN_APPEND, lambda syms: xen_specs(),
                       "Domain heap initialised", dom0=True),
    "linux-6.1": Target("linux-6.1", command.QBOOT, LINUX_APPEND, linux_specs,
                        "deferred pages initialised"),
    "linux-6.12": Target("linux-6.12", command.QBOOT, LINUX_APPEND, linux_specs,
                         "deferred pages initialised"),
    # 6.12 built without deferral: its 'Memory: nK/mK available' line comes
    # after memblock_free_all() (other lines name memory too: "x86/mm:
    # Memory block size", DMI's "Memory slots populated").
    "linux-6.12-nodefer": Target("linux-6.12-nodefer", command.QBOOT, LINUX_APPEND, linux_early_specs,
                                 "K available ("),
}


def _command(target, files, mem_bytes, workdir, icount=ICOUNT, extra=(), nodes=1):
    if target.command:
        return target.command(files, mem_bytes, icount, list(extra))
    extra = ["-icount", icount] + list(extra)
    if target.dom0:
        extra += ["-initrd", files["dom0"]]
    return command.qemu_command("pvh", "tcg", mem_bytes, target.append, workdir=workdir, extra=extra,
                                say=lambda *a: None, kernel=files["kernel"], bios=target.bios, nodes=nodes)


# Seconds QEMU has to close its recording once told to quit.
RECORD_GRACE = 30


def marked(marker):
    """For runner.wait(): the serial log holds `marker`, its line whole, and
    a whole line after it."""
    def done(reader, now):
        text = reader.text()
        at = text.find(marker)
        eol = text.find("\n", at) if at >= 0 else -1
        return eol >= 0 and "\n" in text[eol + 1:]
    return done


def _record(target, files, mem_bytes, work, log_path, deadline, nodes=1):
    """Boot one: QEMU records every nondeterministic event of the boot
    (-icount rr=record) up to a line after the marker, then is told to quit
    (SIGTERM, on which it closes the recording)."""
    rr = os.path.join(work, "replay.bin")
    cmd = _command(target, files, mem_bytes, work, f"{ICOUNT},rr=record,rrfile={rr}", nodes=nodes)
    proc, reader = runner.launch(cmd, log_path=log_path)
    how = runner.wait(proc, reader, max(deadline - reader.start, 0.1), None, done=marked(target.marker),
                      poll=0.1, grace=RECORD_GRACE)
    text = reader.finish()
    why = None
    if how == "exited" and target.marker not in text:
        said = reader.said()
        why = (f"the boot ended (QEMU exit {proc.returncode}) before '{target.marker}'" +
               (f"; QEMU said: {said}" if said else ""))
    elif how == "timeout":
        why = f"no '{target.marker}' within {timeout_for(mem_bytes):.0f} s"
    return rr, why


def boot_real(target, files, mem_bytes, log_path, drive=None, nodes=1):
    """A real binary's brackets -> (results, serial log). Boot one records
    the boot under -icount; boot two replays it with the gdbstub attached and
    takes the brackets. A stop at a breakpoint moves QEMU's virtual clock to
    its next timer (icount's sleep=off), so brackets taken in a live boot
    would shift the guest's timers and interrupts; a replay runs exactly as
    the recording did, stops or not, and prints the same log. `drive`
    (stub, symbols, deadline) -> results replaces the target's brackets.
    nodes: the guest's NUMA nodes, a count or their MiB (harness/qemu/guest.py)."""
    try:
        syms = load_symbols(files["symbols"])
    except BracketError as e:
        raise BracketBootError(f"{target.name}: {e}")
    specs = target.specs(syms)
    for s in specs:
        if s.per_node:
            s.calls = nodes if isinstance(nodes, int) else len(nodes)
    drive = drive or (lambda stub, syms, deadline: [take(stub, syms, s, deadline) for s in specs])
    deadline = time.monotonic() + timeout_for(mem_bytes)
    results = []
    # In /tmp whatever TMPDIR says: a Unix socket's path holds 108 bytes at most.
    with tempfile.TemporaryDirectory(prefix="bracket-", dir="/tmp") as work:
        rr, why = _record(target, files, mem_bytes, work, log_path, deadline, nodes)
        if not why:
            sock = os.path.join(work, "gdb.sock")
            cmd = _command(target, files, mem_bytes, work, f"{ICOUNT},rr=replay,rrfile={rr}",
                           ["-chardev", f"socket,path={sock},server=on,wait=off,id=gdb0",
                            "-gdb", "chardev:gdb0", "-S"], nodes)
            proc, reader = runner.launch(cmd)
            try:
                stub = GdbStub(sock, alive=lambda: proc.poll() is None, arch=target.arch)
                results = drive(stub, syms, deadline + timeout_for(mem_bytes))
                stub.close()
            except (BracketError, StubError, OSError) as e:
                why = f"replaying the boot: {e}"
            finally:
                proc.kill()             # the replay has given what it was for
                proc.wait()
                reader.finish()
            if why and reader.said():
                why += f"; QEMU said: {reader.said()[-500:]}"
    with open(log_path, encoding="utf-8", errors="replace") as f:
        log = f.read().replace("\r", "")
    if why:
        tail = "\n".join(log.rstrip().splitlines()[-15:])
        raise BracketBootError(f"{target.name} at {mem_bytes // (1 << 20)} MiB gave no bracket: {why}\n"
                        f"its serial log ends:\n{tail}")
    return results, log


def xen_result(results, log):
    """A Xen boot's figures: the bracket and what its log says."""
    (r,) = results
    pages = r.reads["total_avail_pages"]
    if not pages:
        raise BracketBootError("Xen handed no pages to its heap")
    try:
        facts = xen_facts(log)
    except LogError as e:
        raise BracketBootError(str(e))
    return {"instructions": r.instructions, "pages": pages, "bracket": r.as_record(), "log": facts}


def memmap_pages(part_calls):
    """Struct pages memmap_init_range() initialised, call by call: all of a
    range but in each node's last zone, where defer_init() counts pages
    (nr_initialised) and stops after the first section at a section
    boundary (that page is counted, not initialised). 6.1 and 6.12 count
    alike there; 6.12 leaves the counters alone in the lower zones.
    Without deferral (no statics read) every call initialises its range."""
    if all(not after for _, _, after, _ in part_calls):
        return sum(args[0] for _, args, _, _ in part_calls)
    last_end = {}                   # node (an int: the register's low half) -> its last zone's end
    for _, args, _, _ in part_calls:
        nid = args[1] & 0xffffffff
        last_end[nid] = max(last_end.get(nid, 0), args[4])
    total, prev_n, prev_end = 0, 0, None
    for _, args, after, _ in part_calls:
        size, start, zone_end = args[0], args[3], args[4]
        nr_name, end_name = sorted(after)           # nr_initialised.N, prev_end_pfn.M
        n, end = after[nr_name], after[end_name]
        before = prev_n if prev_end == zone_end else 0
        seen = n - before if end == zone_end else 0
        if zone_end != last_end[args[1] & 0xffffffff]:
            done = size
        elif seen == 0:
            done = 0                        # deferred in an earlier range of this zone
        elif n > PAGES_PER_SECTION and (start + seen - 1) % PAGES_PER_SECTION == 0:
            done = seen - 1                 # stopped at this section boundary
        else:
            done = seen
        total += done
        prev_n, prev_end = n, end
    return total


def linux_result(results, log):
    """A Linux boot's three phases, with the pages each covers; two, the
    memmap init and memblock_free_all(), for a kernel without deferral."""
    memmap, memblock = results[:2]
    try:
        facts = linux_facts(log, need_deferred=len(results) > 2)
    except LogError as e:
        raise BracketBootError(str(e))
    total = memblock.reads["_totalram_pages"]
    early = memblock.reads["vm_zone_stat"]          # NR_FREE_PAGES, the first counter
    # 6.1 prints 'Memory:' after mem_init(), which allocates a few page-table
    # pages after the free; 6.12 prints it after the deferred init, when the
    # boot has allocated more (slabs, per-CPU areas: some MiB), as it does
    # when built without deferral.
    ref, slack = (total, 16384) if facts.get("memory_late") else (early, 4096)
    if not 0 <= ref * 4 - facts["free_kib"] - facts.get("vmalloc_hash_kib", 0) < slack:
        raise BracketBootError(f"Linux's free pages ({ref}) disagree with its 'Memory: {facts['free_kib']}K' "
                        "line")
    pages = {"memmap": memmap_pages(memmap.part_calls) + facts["unavailable_pages"],
             "memblock_free_all": early, "deferred": total - early}
    phases = {}
    for r in results:
        phases[r.name] = {"instructions": r.instructions, "pages": pages[r.name],
                          "bracket": r.as_record()}
    return {"phases": phases, "pages_total": total, "present_pages": facts["present_kib"] // 4,
            "log": facts}


def boot_bootheap(mem_bytes, xen_costs, log_path, timeout=None, strategies=XEN_STRATEGIES, nodes=1):
    """bootheap's benchmark under -icount -> (counts, bench record). Its TSC
    runs at one tick per guest instruction there (the kernel's `icount`
    option checks the rate and labels the figures). nodes: as boot_real's."""
    # Xen's strategies only: the Linux and FreeBSD models have their own
    # comparison (`peers-icount`, harness/real/binaries/icount.py).
    # -icount is TCG's: no accelerator to choose.
    r = runner.run("pvh", mem_bytes, f"runs=1 xen_costs={xen_costs} strategies={strategies} icount",
                   acc="tcg", timeout=timeout or timeout_for(mem_bytes), quiet=True, log_path=log_path,
                   extra=["-icount", ICOUNT], nodes=nodes)
    if r.status != "ok":
        raise BracketBootError(f"bootheap at {mem_bytes // (1 << 20)} MiB, xen_costs={xen_costs}: "
                        f"the boot ended {r.status}:\n{r.tail(15)}")
    try:
        counts, bench, cal = bootheap_counts(r.log)
    except LogError as e:
        raise BracketBootError(str(e))
    return counts, bench, cal
