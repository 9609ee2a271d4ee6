# SPDX-License-Identifier: MIT
"""QEMU's command line for a boot of bootheap, and what a boot needs before
it starts: the images (the ELF for pvh, an ISO for iso-bios and iso-uefi,
made with the boot's own kernel arguments when it has any), the guest's
memory checked against the kernel image, the stall limit, and whether
/dev/kvm opens. harness/qemu/runner.py runs the command.

Modes: pvh (QEMU -kernel with qboot, the fast path), iso-bios (SeaBIOS +
GRUB from the ISO) and iso-uefi (OVMF + GRUB, TCG only here)."""
import os
import re
import shutil
import struct
import subprocess

from harness import ROOT
from harness.common import MIB, parse_size
from harness.qemu import guest

ELF = os.path.join(ROOT, "build", "bootheap.elf")
ISO = os.path.join(ROOT, "build", "bootheap.iso")
QBOOT = "/usr/share/qemu/qboot.rom"
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"

MODES = ("pvh", "iso-bios", "iso-uefi")
ACCELS = ("auto", "kvm", "tcg")

# Seconds of serial silence after which a guest counts as stopped: a base
# for firmware and boot, plus a share per GiB for the benchmark's per-page
# phases (init, audit, first touch of every page), which cannot print
# without disturbing what they time. Chosen from the longest silences of
# healthy boots measured here (docs/results-machine.md, "The stall limit"): under TCG on this
# shared 2-CPU host, at a load average near 10, OVMF was silent for 26 s
# before GRUB, the 16 GiB self-tests for 21 s, and the 90 GiB benchmark's
# warm-up for 64 s before it printed more often.
STALL_BASE = 60.0
STALL_PER_GIB = 1.0
STALL_MAX = 300.0


def default_stall(mem_bytes=0):
    """BOOTHEAP_STALL from the environment (seconds, 0 = never), else
    STALL_BASE plus STALL_PER_GIB per GiB of guest memory, at most STALL_MAX."""
    text = os.environ.get("BOOTHEAP_STALL", "").strip()
    if not text:
        return min(STALL_BASE + STALL_PER_GIB * mem_bytes / (1 << 30), STALL_MAX)
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"BOOTHEAP_STALL={text!r}: give seconds of serial silence, or 0 for never")
    if value < 0:
        raise ValueError(f"BOOTHEAP_STALL={text!r}: must not be negative")
    return value


def guest_mem(mem):
    """A guest's memory, '8G', '512M' or bytes -> bytes. QEMU takes whole
    MiB and boots its own default of 128 MiB for -m 0, so anything else is
    refused here, naming the size, rather than booted as something else."""
    mem_bytes = parse_size(mem) if isinstance(mem, str) else int(mem)
    if mem_bytes < MIB or mem_bytes % MIB:
        raise ValueError(f"guest memory {mem!r}: give a whole number of MiB, at least 1 MiB "
                         "(QEMU would boot its default 128 MiB for 0)")
    return mem_bytes


def image_end(path):
    """Where the kernel's ELF image ends in physical memory (bss included):
    the highest p_paddr + p_memsz of its PT_LOAD segments."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            raise ValueError(f"{path}: not a 64-bit ELF file")
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    end = 0
    for i in range(phnum):
        kind, = struct.unpack_from("<I", table, i * phentsize)
        paddr, _, memsz = struct.unpack_from("<QQQ", table, i * phentsize + 24)
        if kind == 1:           # PT_LOAD
            end = max(end, paddr + memsz)
    return end


def check_fits(mem, mem_bytes, path):
    """Refuses a guest too small to hold the kernel image: QEMU loads what
    fits and the guest then runs silently until the stall limit."""
    end = image_end(path)
    if mem_bytes < end:
        raise ValueError(f"guest memory {mem!r}: the kernel image itself reaches {end / MIB:.1f} MiB; "
                         f"give at least {-(-end // MIB)} MiB")


def default_accel():
    """BOOTHEAP_ACCEL from the environment (auto, kvm or tcg), else auto."""
    text = os.environ.get("BOOTHEAP_ACCEL", "").strip() or "auto"
    if text not in ACCELS:
        raise ValueError(f"BOOTHEAP_ACCEL={text!r}: use auto, kvm or tcg")
    return text


def mem_available():
    """Host MemAvailable in bytes."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def larger_than_host(mem_bytes):
    """Whether a guest of mem_bytes is larger than what the host has free
    (with a tenth to spare): only the pages it touches can cost RAM."""
    return mem_bytes > mem_available() * 0.9


KVM_DEV = "/dev/kvm"


def kvm_usable(path=None):
    """(usable, reason): whether /dev/kvm (or path, for tests) opens
    read-write. That it opens says nothing of its speed: harness/accel.py
    measures that."""
    path = path or KVM_DEV
    if not os.path.exists(path):
        return False, f"{path} does not exist"
    try:
        fd = os.open(path, os.O_RDWR)
        os.close(fd)
    except OSError as e:
        return False, f"{path} cannot be opened: {e.strerror}"
    return True, f"{path} is usable"


GRUB_CFG = os.path.join(ROOT, "iso", "grub.cfg")


def grub_prologue(gfxmode=None):
    """iso/grub.cfg up to its first menu entry (serial, video drivers, mode)
    with no menu delay, and gfxmode replaced when asked ('800x600', 'text')."""
    with open(GRUB_CFG) as f:
        head = f.read().split("\nmenuentry", 1)[0]
    head = re.sub(r"^set timeout=.*$", "set timeout=0", head, flags=re.M)
    if gfxmode:
        head = re.sub(r"^set gfxmode=.*$", f"set gfxmode={gfxmode}", head, flags=re.M)
    return head.rstrip() + "\n"


def make_iso(append, workdir, gfxmode=None, grub_cmds=()):
    """An ISO like build/bootheap.iso whose only entry boots with `append`,
    on a screen of mode `gfxmode` when given (else the menu's own choice),
    after the GRUB commands in grub_cmds (such as cutmem)."""
    tree = os.path.join(workdir, "iso")
    os.makedirs(os.path.join(tree, "boot", "grub"))
    shutil.copy(ELF, os.path.join(tree, "boot", "bootheap.elf"))
    with open(os.path.join(tree, "boot", "grub", "grub.cfg"), "w") as f:
        f.write(grub_prologue(gfxmode) +
                f"menuentry 'bootheap (harness)' {{\n"
                + "".join(f"    {c}\n" for c in grub_cmds) +
                f"    multiboot2 /boot/bootheap.elf {append}\n"
                f"    set gfxpayload=$gfxmode\n    boot\n}}\n")
    out = os.path.join(workdir, "bootheap.iso")
    r = subprocess.run(["grub-mkrescue", "-o", out, tree], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("grub-mkrescue failed:\n" + r.stderr)
    return out


def qemu_command(mode, accel, mem_bytes, append="", iso=None, workdir=None,
                 machine_opts="", serial=True, gdb=False, extra=(), cpu=None, say=print,
                 cpus=1, nodes=1, kernel=None, bios=QBOOT, pattern=False):
    """QEMU's command line for a boot. pvh mode loads `kernel` (default:
    bootheap's ELF) with -kernel under `bios` (default qboot; None: QEMU's
    own SeaBIOS, which can also load a multiboot kernel such as Xen).
    pattern: guest RAM starts on harness/qemu/pattern.py's file, not zeros
    (PatternError when that file cannot be made). Several vCPUs run on one
    host thread each, but under -icount, which runs them in turn on one."""
    mem_mib = mem_bytes >> 20
    cmd = ["qemu-system-x86_64", "-nodefaults", "-no-reboot", "-display", "none",
           "-monitor", "none", "-m", f"{mem_mib}M"]
    machine = "q35"
    if machine_opts:
        machine += "," + machine_opts
    # Guests larger than what the host has free: only touched pages cost RAM.
    large = larger_than_host(mem_bytes)
    if large:
        say(f"harness: {mem_mib} MiB guest is larger than free host RAM: reserve=off")
    one = len(guest.node_mib(nodes, mem_bytes)) == 1
    if pattern and one:
        cmd += ["-object", guest.pattern_backend("ram0", mem_mib)]
        machine += ",memory-backend=ram0"
    elif large and one:
        cmd += ["-object", f"memory-backend-ram,id=ram0,size={mem_mib}M,reserve=off"]
        machine += ",memory-backend=ram0"
    cmd += ["-machine", machine]
    cmd += guest.args(cpus, nodes, mem_bytes, large, pattern)
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", cpu or "host,-arch-capabilities"]
    else:
        # TCG's "max" CPU has 40 physical address bits; a guest near 1 TiB
        # has RAM above that (QEMU moves it past the 1 TiB HyperTransport
        # hole on AMD-like CPUs), so give it 46 then, whatever CPU the
        # caller names. Only then: OVMF maps the whole physical address
        # space and takes seconds more with 46.
        cpu = cpu or "max"
        if mem_bytes > (512 << 30) and "phys-bits" not in cpu:
            cpu += ",phys-bits=46"
        # One host thread per vCPU (QEMU's default for x86 guests, said here).
        tcg = "tcg,thread=multi" if cpus > 1 and "-icount" not in extra else "tcg"
        cmd += ["-accel", tcg, "-cpu", cpu]
    cmd += ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    cmd += ["-serial", "stdio" if serial else "none"]
    if mode == "pvh":
        cmd += (["-bios", bios] if bios else []) + ["-kernel", kernel or ELF]
        if append:
            cmd += ["-append", append]
    elif mode == "iso-bios":
        cmd += ["-cdrom", iso or ISO, "-boot", "d"]
    elif mode == "iso-uefi":
        vars_copy = os.path.join(workdir, "OVMF_VARS.fd")
        shutil.copy(OVMF_VARS, vars_copy)
        cmd += ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}",
                "-cdrom", iso or ISO, "-boot", "d"]
    if gdb:
        cmd += ["-s", "-S"]
    cmd += list(extra)
    return cmd


def prepare(mode, mem, stall=None, serial=True, gdb=False, cpus=1, nodes=1):
    """What a boot of mode with mem, cpus and nodes needs before an
    accelerator is chosen -> (memory in bytes, stall in seconds). Raises
    ValueError naming a bad mode, size, stall or CPU/node count, and
    RuntimeError when the kernel is not built."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    mem_bytes = guest_mem(mem)
    stall = default_stall(mem_bytes) if stall is None else stall
    if not serial or gdb:
        stall = 0
    if mode == "pvh" and not os.path.exists(ELF):
        raise RuntimeError(f"{ELF} is missing: run `make`")
    if mode == "pvh":
        check_fits(mem, mem_bytes, ELF)
    why = guest.check(cpus, nodes, mem_bytes)
    if why:
        raise ValueError(why)
    return mem_bytes, stall
