# SPDX-License-Identifier: MIT
"""One boot of bootheap as a command that boots once asks for it (`make
run`, `python3 -m harness boot`, the boot tests): the arguments checked, the
accelerator chosen for this boot's work (harness/qemu/accel.py, which boots
its probes through harness/qemu/runner.py), then QEMU run once. For such a
command the boot is the whole plan; commands that boot many times decide
the accelerator once in their own plan and call the runner directly. Above
accel and runner, so that neither imports the other's caller."""
import sys

from harness.qemu import accel as accel_mod
from harness.qemu import command, runner


def boot(mode="pvh", mem="1G", append="", accel="auto", timeout=300, quiet=False,
         log_path=None, machine_opts="", serial=True, gdb=False, extra=(), cpu=None,
         say=None, stall=None, gfxmode=None, grub_cmds=(), cpus=1, nodes=1, records=True):
    """Boots once and returns a harness.qemu.runner Result. Never raises for
    a kernel failure; raises ValueError or RuntimeError for arguments that
    cannot boot (command.prepare()), before any accelerator is chosen.
    accel: auto, kvm or tcg, as harness/qemu/accel.py resolves it.
    gfxmode picks GRUB's screen mode for the ISO modes ('1280x800', 'text').
    stall: seconds of serial silence that end the boot as 'stalled' (None:
    command.default_stall(mem); 0: never; always off without serial or with gdb).
    grub_cmds: GRUB commands run before the kernel is loaded (ISO modes).
    cpus, nodes: the guest's vCPUs and NUMA nodes (harness/qemu/guest.py).
    records: the serial echo (unless quiet) shows the JSON records too."""
    if say is None:
        say = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    mem_bytes, stall = command.prepare(mode, mem, stall, serial, gdb, cpus, nodes)
    acc = accel_mod.choose(accel, mode, say, accel_mod.Work.for_boot(mem_bytes, append))
    return runner.run(mode, mem_bytes, append, acc, timeout, quiet, log_path, machine_opts, serial,
                      gdb, extra, cpu, say, stall, gfxmode, grub_cmds, cpus, nodes, records)
