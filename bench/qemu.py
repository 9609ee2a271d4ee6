#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Boots bootheap under QEMU: the one runner that `make run`, `make test` and
`make bench` share.

Modes: pvh (QEMU -kernel with qboot, the fast path, KVM when it works),
iso-bios (SeaBIOS + GRUB from the ISO) and iso-uefi (OVMF + GRUB, TCG only
here). Serial output is shown on the terminal (unless quiet) and kept in a
log. The kernel's verdict comes back through isa-debug-exit: QEMU exits 33
for ok and 35 for fail; anything else means the kernel never said.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ELF = os.path.join(ROOT, "build", "bootheap.elf")
ISO = os.path.join(ROOT, "build", "bootheap.iso")
QBOOT = "/usr/share/qemu/qboot.rom"
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"

EXIT_OK, EXIT_FAIL = 33, 35      # (0x10 << 1) | 1 and (0x11 << 1) | 1
MODES = ("pvh", "iso-bios", "iso-uefi")


def parse_size(text):
    """'8G', '512M', '4097M', '1T', '3.5G' -> bytes."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)i?B?\s*", text, re.I)
    if not m:
        raise ValueError(f"bad memory size {text!r}: use a number with K, M, G or T")
    mult = {"": 1 << 20, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]
    return int(float(m.group(1)) * mult)


def mem_available():
    """Host MemAvailable in bytes."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def kvm_usable():
    """(usable, reason): whether /dev/kvm can be opened read-write."""
    if not os.path.exists("/dev/kvm"):
        return False, "/dev/kvm does not exist"
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
        os.close(fd)
    except OSError as e:
        return False, f"/dev/kvm cannot be opened: {e.strerror}"
    return True, "/dev/kvm is usable"


def choose_accel(requested, mode, say=print):
    """Returns 'kvm' or 'tcg', saying which and why."""
    ok, why = kvm_usable()
    if mode == "iso-uefi":
        if requested == "kvm":
            say("harness: OVMF does not run under KVM on these machines; using TCG")
        else:
            say("harness: iso-uefi runs under TCG (OVMF stops under KVM here)")
        return "tcg"
    if mode == "iso-bios" and requested == "auto":
        say("harness: iso-bios runs under TCG unless --accel kvm asks: SeaBIOS and GRUB take "
            "tens of seconds under nested KVM on these machines")
        return "tcg"
    if requested == "tcg":
        say("harness: accelerator TCG (requested); timings are emulated")
        return "tcg"
    if requested == "kvm" and not ok:
        say(f"harness: KVM requested but {why}; falling back to TCG; timings are emulated")
        return "tcg"
    if ok:
        say(f"harness: accelerator KVM ({why})")
        return "kvm"
    say(f"harness: accelerator TCG because {why}; timings are emulated")
    return "tcg"


def make_iso(append, workdir):
    """An ISO like build/bootheap.iso whose only entry boots with `append`."""
    tree = os.path.join(workdir, "iso")
    os.makedirs(os.path.join(tree, "boot", "grub"))
    shutil.copy(ELF, os.path.join(tree, "boot", "bootheap.elf"))
    with open(os.path.join(tree, "boot", "grub", "grub.cfg"), "w") as f:
        f.write("serial --unit=0 --speed=115200\n"
                "terminal_input serial console\nterminal_output serial console\n"
                "set timeout=0\nset default=0\n"
                f"menuentry 'bootheap (harness)' {{\n"
                f"    multiboot2 /boot/bootheap.elf {append}\n    boot\n}}\n")
    out = os.path.join(workdir, "bootheap.iso")
    r = subprocess.run(["grub-mkrescue", "-o", out, tree], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("grub-mkrescue failed:\n" + r.stderr)
    return out


def qemu_command(mode, accel, mem_bytes, append="", iso=None, workdir=None,
                 machine_opts="", serial=True, gdb=False, extra=(), cpu=None, say=print):
    mem_mib = mem_bytes >> 20
    cmd = ["qemu-system-x86_64", "-nodefaults", "-no-reboot", "-display", "none",
           "-monitor", "none", "-m", f"{mem_mib}M"]
    machine = "q35"
    if machine_opts:
        machine += "," + machine_opts
    # Guests larger than what the host has free: only touched pages cost RAM.
    if mem_bytes > mem_available() * 0.9:
        say(f"harness: {mem_mib} MiB guest is larger than free host RAM: reserve=off")
        cmd += ["-object", f"memory-backend-ram,id=ram0,size={mem_mib}M,reserve=off"]
        machine += ",memory-backend=ram0"
    cmd += ["-machine", machine]
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", cpu or "host,-arch-capabilities"]
    else:
        # TCG's "max" CPU has 40 physical address bits; a guest near 1 TiB
        # has RAM above that (QEMU moves it past the 1 TiB HyperTransport
        # hole on AMD-like CPUs), so give it 46 then. Only then: OVMF maps
        # the whole physical address space and takes seconds more with 46.
        wide = mem_bytes > (512 << 30)
        cmd += ["-accel", "tcg", "-cpu", cpu or ("max,phys-bits=46" if wide else "max")]
    cmd += ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    cmd += ["-serial", "stdio" if serial else "none"]
    if mode == "pvh":
        cmd += ["-bios", QBOOT, "-kernel", ELF]
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


class Result:
    def __init__(self, status, qemu_rc, log, elapsed, accel, cmd):
        self.status = status        # "ok", "fail", "timeout", "no-verdict", "qemu-error"
        self.qemu_rc = qemu_rc
        self.log = log              # serial output, '\r' removed
        self.elapsed = elapsed
        self.accel = accel
        self.cmd = cmd

    @property
    def ok(self):
        return self.status == "ok"

    def records(self):
        """Every JSON record line, parsed."""
        import json
        out = []
        for line in self.log.splitlines():
            if line.startswith('{"type":'):
                out.append(json.loads(line))
        return out


def boot(mode="pvh", mem="1G", append="", accel="auto", timeout=300, quiet=False,
         log_path=None, machine_opts="", serial=True, gdb=False, extra=(), cpu=None,
         say=None):
    """Boots once and returns a Result. Never raises for a kernel failure."""
    if say is None:
        say = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    mem_bytes = parse_size(mem) if isinstance(mem, str) else int(mem)
    acc = choose_accel(accel, mode, say)
    with tempfile.TemporaryDirectory(prefix="bootheap-") as work:
        iso = None
        if mode != "pvh":
            iso = make_iso(append, work) if append else ISO
            if not os.path.exists(iso):
                raise RuntimeError(f"{iso} is missing: run `make iso`")
        elif not os.path.exists(ELF):
            raise RuntimeError(f"{ELF} is missing: run `make`")
        cmd = qemu_command(mode, acc, mem_bytes, append, iso, work, machine_opts, serial,
                           gdb, extra, cpu, say)
        say("harness: " + " ".join(cmd))
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        chunks, errs = [], []
        logf = open(log_path, "wb") if log_path else None

        def pump_out():
            for raw in iter(lambda: proc.stdout.readline(), b""):
                chunks.append(raw)
                if logf:
                    logf.write(raw.replace(b"\r", b""))
                    logf.flush()
                if not quiet:
                    sys.stdout.write(raw.decode("utf-8", "replace").replace("\r", ""))
                    sys.stdout.flush()

        def pump_err():
            for raw in iter(lambda: proc.stderr.readline(), b""):
                errs.append(raw.decode("utf-8", "replace"))

        threads = [threading.Thread(target=pump_out, daemon=True),
                   threading.Thread(target=pump_err, daemon=True)]
        for t in threads:
            t.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout if timeout else None)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            proc.wait()
        for t in threads:
            t.join(timeout=5)
        if logf:
            logf.close()
        elapsed = time.monotonic() - start
    log = b"".join(chunks).decode("utf-8", "replace").replace("\r", "")
    rc = proc.returncode
    if timed_out:
        status = "timeout"
    elif rc == EXIT_OK:
        status = "ok"
    elif rc == EXIT_FAIL:
        status = "fail"
    elif rc == 0:
        status = "no-verdict"       # e.g. a triple fault with -no-reboot
    else:
        status = "qemu-error"
        if errs:
            say("harness: qemu said: " + "".join(errs).strip())
    return Result(status, rc, log, elapsed, acc, cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=MODES, default="pvh")
    ap.add_argument("--accel", choices=("auto", "kvm", "tcg"), default="auto")
    ap.add_argument("--mem", default="1G", help="guest memory, e.g. 512M, 8G, 1T")
    ap.add_argument("--append", default="", help="kernel command line")
    ap.add_argument("--timeout", type=float, default=600, help="seconds; 0 waits forever")
    ap.add_argument("--log", help="also write the serial log here")
    ap.add_argument("--machine-opts", default="", help="extra -machine options, e.g. pit=off")
    ap.add_argument("--no-serial", action="store_true", help="boot without a serial port")
    ap.add_argument("--gdb", action="store_true", help="wait for gdb on :1234")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    try:
        r = boot(a.mode, a.mem, a.append, a.accel, a.timeout, a.quiet, a.log, a.machine_opts,
                 not a.no_serial, a.gdb)
    except (RuntimeError, ValueError) as e:
        print(f"harness: {e}", file=sys.stderr)
        return 2
    print(f"harness: {a.mode} boot under {r.accel.upper()} ended: {r.status} "
          f"(qemu exit {r.qemu_rc}, {r.elapsed:.1f} s)", file=sys.stderr)
    return {"ok": 0, "fail": 1}.get(r.status, 2)


if __name__ == "__main__":
    sys.exit(main())
