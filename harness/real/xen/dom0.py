# SPDX-License-Identifier: MIT
"""Past the heap: a source-built Xen (harness/real/xen/source.py) boots a real
dom0 under TCG (not -icount) and reaches its init. A heap that is wrong in
a way the heap digest misses fails here, when Xen builds dom0 and dom0 uses
its memory, or trips an ASSERT of the debug build.

dom0 is Debian's Linux 6.1 (a Xen PV dom0 kernel; the uncompressed vmlinux
`binaries` fetches) with the initramfs of harness/real/bracket/initramfs.py.
Xen's Debian build and this project's both carry only a multiboot entry, so
SeaBIOS loads Xen by -kernel, with the dom0 kernel and its initramfs as the
multiboot modules (-initrd "KERNEL ARGS,INITRD").

Statuses, from the serial log (verdict(), a pure function):
  init       dom0's /init printed its line, its memory test passed, and Xen
             powered off ("Entering ACPI S5 state.", or without ACPI
             "Hardware Dom0 halted: halting machine")
  memtest    init reached, the tmpfs read-back differed
  assert     "Assertion '...' failed at FILE:LINE" or "Xen BUG at FILE:LINE"
  panic      Xen's "Panic on CPU N:" block
  dom0-died  "Hardware Dom0 crashed", with Xen's lines before it (or
             Linux's own "Kernel panic - not syncing")
and from how the boot ended: timeout, stalled, qemu-error. A debug Xen's
failed selftest 2 under TCG (and its 3 s wait) is a warning, not a failure."""
import os
import re
import time

from harness.real.bracket.initramfs import INIT_LINE, TAG
from harness.qemu import command, runner

# Xen: its console on the first UART, every message, a small fixed dom0 with
# one vCPU. The caller's words (heap-init=...) go after.
XEN_BASE = ("console=com1 com1=115200,8n1 loglvl=all guest_loglvl=all "
            "dom0_mem=256M,max:256M dom0_max_vcpus=1")
# dom0: Xen's console (hvc0; Xen keeps com1), early output through Xen, and a
# panic that stops at once (Xen then reports the crash).
DOM0_BASE = "console=hvc0 earlyprintk=xen rdinit=/init panic=-1"
# TCG checks SMAP on the stack access of Xen's first iretq to a PV guest
# (create_bounce_frame), and dom0 dies of the #PF: hide SMAP from the CPU.
# Xen's smap=0 works too, but would change the command line under test.
CPU = "max,-smap"

# Wall seconds under TCG on a shared 2-CPU machine: a non-debug Xen reached
# dom0's init in 12 to 19 s at 1 and 4 GiB here, a debug one waits 3 s more
# after its failed selftest; the limits leave a wide margin.
TIMEOUT_BASE, TIMEOUT_PER_GIB = 300.0, 30.0
STALL_BASE, STALL_PER_GIB, STALL_MAX = 60.0, 2.0, 600.0
# After Xen's last word, this much silence ends the boot: a crashed or
# panicked Xen waits 5 s before it resets.
FINAL_QUIET = 3.0

# Xen's lines: "(XEN) text", or with console_timestamps "(XEN) [stamp] text".
XEN_RE = re.compile(r"^\(XEN\) (?:\[[^\]]*\] )?(.*)$")
ASSERT_RE = re.compile(r"Assertion '.*' failed at \S+|Xen BUG at \S+")
PANIC_RE = re.compile(r"^Panic on CPU \d+:")
STARS = re.compile(r"^\*{20,}$")
DOM0_DIED = (re.compile(r"^Hardware Dom0 crashed"),
             re.compile(r"^Domain 0 \(vcpu#\d+\) crashed on cpu#\d+"),
             re.compile(r"^domain_crash(_sync)? called from"),
             re.compile(r"^d0v\d+ Unhandled: "),
             re.compile(r"^Hardware Dom0 shutdown \(unknown reason"))
LINUX_PANIC_RE = re.compile(r"Kernel panic - not syncing: .*")
POWER_OFF = (re.compile(r"^Entering ACPI S5 state\."),
             re.compile(r"^Hardware Dom0 halted: halting machine"))
# Lines after which Xen does nothing more worth waiting for.
FINAL = POWER_OFF + (re.compile(r"^Hardware Dom0 crashed"), re.compile(r"^Reboot in five seconds"),
                     re.compile(r"rebooting machine"))


def module_arg(path, args=""):
    """One multiboot module for QEMU's -initrd: the file, a space, its
    command line. QEMU splits -initrd at single commas and reads ',,' as a
    literal comma, and cuts the file name at its first space."""
    if " " in path or not path:
        raise ValueError(f"module path {path!r}: QEMU's multiboot loader cuts file names at a space")
    return (path + (" " + args if args else "")).replace(",", ",,")


def words(base, extra):
    return " ".join(w for w in (base.strip(), (extra or "").strip()) if w)


def qemu_command(xen, kernel, initrd, mem_bytes, xen_append="", dom0_append="", cpu=CPU, cpus=1, nodes=1,
                 machine_opts=""):
    """QEMU's command line for Xen (an ELF32 multiboot image) with `kernel`
    as dom0 and `initrd` its initramfs: bootheap's q35 machine under TCG
    (with `machine_opts`), `cpus` vCPUs on `nodes` nodes
    (harness/qemu/guest.py), SeaBIOS; xen_append and dom0_append are words
    added to XEN_BASE and DOM0_BASE."""
    if " " in xen:
        raise ValueError(f"Xen path {xen!r}: Xen takes the first word of its command line as its name")
    modules = module_arg(kernel, words(DOM0_BASE, dom0_append)) + "," + module_arg(initrd)
    return command.qemu_command("pvh", "tcg", mem_bytes, words(XEN_BASE, xen_append), cpu=cpu,
                                say=lambda *a: None, kernel=xen, bios=None, extra=["-initrd", modules],
                                cpus=cpus, nodes=nodes, machine_opts=machine_opts)


class Verdict:
    """status: one of the module's statuses, or None where the log says
    nothing conclusive; lines: those that decided it; facts: what the log
    showed on the way (Xen's version, dom0's memory, the memory test)."""

    def __init__(self, status, lines, facts):
        self.status, self.lines, self.facts = status, lines, facts

    def __repr__(self):
        return f"Verdict({self.status!r}, {self.lines!r})"


def xen_text(raw):
    """Xen's message without its prefix and stamp, or None for other lines."""
    m = XEN_RE.match(raw)
    return m.group(1) if m else None


def _xen_line(x, seen, facts):
    """One of Xen's messages into `seen` (its asserts, panic block, dom0's
    death, power-off) and `facts`."""
    if ASSERT_RE.search(x) and not seen["assert"]:
        seen["assert"].append(x)
    if seen["in_panic"]:
        if STARS.match(x.strip()):
            seen["in_panic"] = False
        else:
            seen["panic"].append(x)
        return
    if PANIC_RE.match(x):
        seen["in_panic"] = True
        seen["panic"].append(x)
        return
    m = re.match(r"Xen version (\S+) \(", x)
    if m:
        facts["xen_version"] = m.group(1)
        facts["xen_debug"] = " debug=y " in x + " "
    if x.startswith("Domain heap initialised"):
        facts["heap"] = x
    if "Selftest" in x and "failed" in x:
        facts.setdefault("warnings", []).append(x)
    if any(r.match(x) for r in DOM0_DIED):
        seen["died"].append(x)
    if any(r.match(x) for r in POWER_OFF):
        facts["poweroff"] = x


def _dom0_line(raw, line, seen, facts):
    """One line of dom0's own output (hvc0 through Xen's console, no prefix)."""
    if line in raw and facts["init"] is None:
        facts["init"] = raw.strip()
    if TAG in raw:
        body = raw.split(TAG, 1)[1].strip()
        if body.startswith("MemTotal:"):
            facts["dom0_memtotal_kib"] = int(body.split()[1])
        elif body.startswith("MemFree:"):
            facts["dom0_memfree_kib"] = int(body.split()[1])
        elif body.startswith("memtest"):
            facts["memtest"] = raw.strip()
    m = LINUX_PANIC_RE.search(raw)
    if m:
        seen["linux_panic"].append(m.group(0))


def verdict(log_text, line=INIT_LINE):
    """What a serial log of a Xen + dom0 boot says -> Verdict, the first that
    holds of: 'assert', 'panic', 'dom0-died', 'memtest' (init reached, the
    test failed), 'init' (init reached, the test passed, Xen powered off)."""
    facts = {"init": None, "memtest": None, "poweroff": None}
    seen = {"assert": [], "panic": [], "died": [], "linux_panic": [], "in_panic": False}
    for raw in log_text.splitlines():
        raw = raw.rstrip("\r")
        x = xen_text(raw)
        if x is None:
            _dom0_line(raw, line, seen, facts)
        else:
            _xen_line(x, seen, facts)
    init, memtest = facts["init"], facts["memtest"]
    if seen["assert"]:
        return Verdict("assert", seen["assert"] + [p for p in seen["panic"] if p not in seen["assert"]], facts)
    if seen["panic"]:
        return Verdict("panic", seen["panic"], facts)
    if seen["died"]:
        return Verdict("dom0-died", seen["died"] + seen["linux_panic"], facts)
    if init and memtest and " ok" not in memtest:
        return Verdict("memtest", [init, memtest], facts)
    if init and memtest and facts["poweroff"]:
        return Verdict("init", [init, memtest, facts["poweroff"]], facts)
    return Verdict(None, [], facts)


def said_last_word(reader, now):
    """For the runner's wait: Xen has powered off, halted, or is about to
    reset after a crash or panic, and has been quiet FINAL_QUIET s since."""
    if now - reader.last <= FINAL_QUIET:
        return False
    return any(x is not None and any(r.search(x) for r in FINAL)
               for x in (xen_text(text) for _, text in reader.lines[-50:]))


class Result:
    """One boot: status, the lines that decided it, the serial log, wall
    seconds, QEMU's exit code and what it said, the command, and facts."""

    def __init__(self, status, lines, log, elapsed, qemu_rc, qemu_said, cmd, facts):
        self.status, self.lines, self.log, self.elapsed = status, lines, log, elapsed
        self.qemu_rc, self.qemu_said, self.cmd, self.facts = qemu_rc, qemu_said, cmd, facts

    @property
    def ok(self):
        return self.status == "init"

    def tail(self, n=20):
        return "\n".join(self.log.rstrip().splitlines()[-n:])


def boot(xen, kernel, initrd, mem, xen_append="", dom0_append="", timeout=None, stall=None,
         log_path=None, quiet=True, cpu=CPU, line=INIT_LINE, qemu=None, cpus=1, nodes=1, machine_opts=""):
    """Boots Xen with dom0 once -> Result. The log decides the status where
    it is conclusive; else how QEMU ended: 'timeout', 'stalled' or
    'qemu-error' (an exit no Xen line explains). Raises ValueError for a
    bad size or path, FileNotFoundError for a missing file. qemu: another
    program in QEMU's place (tests)."""
    mem_bytes = command.guest_mem(mem)
    gib = mem_bytes / (1 << 30)
    timeout = TIMEOUT_BASE + TIMEOUT_PER_GIB * gib if timeout is None else timeout
    stall = min(STALL_BASE + STALL_PER_GIB * gib, STALL_MAX) if stall is None else stall
    for path in (xen, kernel, initrd):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such file for the dom0 boot")
    cmd = qemu_command(xen, kernel, initrd, mem_bytes, xen_append, dom0_append, cpu, cpus, nodes, machine_opts)
    cmd[0] = qemu or cmd[0]
    proc, reader = runner.launch(cmd, quiet, log_path)
    how = runner.wait(proc, reader, timeout, stall, done=said_last_word)
    log = reader.finish()
    elapsed = time.monotonic() - reader.start
    v = verdict(log, line)
    said = reader.said()
    if v.status:
        status, lines = v.status, v.lines
    elif how in ("timeout", "stalled"):
        status, lines = how, log.rstrip().splitlines()[-5:]
    else:
        # QEMU ended (or Xen said its last word) and the log decides nothing:
        # a QEMU error, or dom0 rebooting instead of powering off.
        status = "qemu-error"
        lines = [said] if said else [f"QEMU exited {proc.returncode} with no verdict; the log ends:"] + \
            log.rstrip().splitlines()[-5:]
    return Result(status, lines, log, elapsed, proc.returncode, said, cmd, v.facts)
