# SPDX-License-Identifier: MIT
"""A client of QEMU's gdbstub (the GDB remote serial protocol) over a Unix
socket: breakpoints, single registers, memory, and QEMU monitor commands.

Under `-icount shift=0,...,rr=record` QEMU counts every guest instruction it
executes, and its monitor's `info replay` prints that count. Stopped at a
breakpoint, `instructions()` is therefore the exact number of instructions
the guest has run so far: the difference between two stops is what ran
between them, whatever the host was doing."""
import re
import socket
import time

# Register numbers of QEMU's x86-64 target description.
RSP, RIP = 7, 16


class Arch:
    """What a bracket needs of a target: the register numbers of its pc, its
    stack pointer and its first six arguments, and where a call keeps its
    return address: on the stack (x86-64: the word at sp, popped on return)
    or in a link register (arm64's x30, sp as it was)."""

    def __init__(self, name, pc, sp, args, link=None):
        self.name, self.pc, self.sp, self.args, self.link = name, pc, sp, args, link


X86_64 = Arch("x86_64", RIP, RSP, (5, 4, 3, 2, 8, 9))            # rdi, rsi, rdx, rcx, r8, r9
ARM64 = Arch("arm64", 32, 31, (0, 1, 2, 3, 4, 5), link=30)       # pc, sp, x0..x5, x30 (AAPCS64)


class StubError(Exception):
    """The guest or QEMU ended, timed out, or answered what it should not."""


def checksum(body):
    return sum(body) & 0xFF


def frame(body):
    """One packet: $body#xx (body as bytes; '#', '$' and '}' never occur in what we send)."""
    return b"$" + body + b"#%02x" % checksum(body)


def unframe(buf):
    """(packet body or None, rest of buf): the first complete packet in buf,
    its checksum checked; leading acks and noise are skipped."""
    start = buf.find(b"$")
    if start < 0:
        return None, b""
    end = buf.find(b"#", start)
    if end < 0 or len(buf) < end + 3:
        return None, buf[start:]
    body, sent = buf[start + 1:end], buf[end + 1:end + 3]
    if int(sent, 16) != checksum(body):
        raise StubError(f"gdbstub packet with a bad checksum: {buf[start:end + 3][:80]!r}")
    return body, buf[end + 3:]


def le_hex(text):
    """A target-endian (little) hex string -> int."""
    return int.from_bytes(bytes.fromhex(text), "little")


class GdbStub:
    """One connection to QEMU's gdbstub. `alive` is a callable that says
    whether QEMU still runs (so a dead QEMU ends waits at once)."""

    def __init__(self, path, alive=lambda: True, connect_timeout=30.0, arch=X86_64):
        self.arch = arch
        deadline = time.monotonic() + connect_timeout
        self.sock = None
        while self.sock is None:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                self.sock = s
            except OSError:
                s.close()
                if not alive():
                    raise StubError("QEMU exited before its gdbstub took a connection")
                if time.monotonic() > deadline:
                    raise StubError(f"no gdbstub on {path} after {connect_timeout:g} s")
                time.sleep(0.05)
        self.alive = alive
        self.buf = b""
        self.breaks = set()
        self.sock.sendall(b"+")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _reply(self, deadline=None):
        while True:
            body, self.buf = unframe(self.buf)
            if body is not None:
                self.sock.sendall(b"+")
                return body.decode("ascii", "replace")
            wait = 1.0 if deadline is None else min(1.0, max(0.0, deadline - time.monotonic()))
            self.sock.settimeout(wait)
            try:
                data = self.sock.recv(65536)
            except (socket.timeout, BlockingIOError):
                if deadline is not None and time.monotonic() >= deadline:
                    raise StubError("the guest did not stop in time")
                if not self.alive():
                    raise StubError("QEMU exited")
                continue
            except OSError as e:
                raise StubError(f"gdbstub connection lost: {e}")
            if not data:
                raise StubError("QEMU closed the gdbstub connection (the guest ended)")
            self.buf += data

    def request(self, body, deadline=None):
        self.sock.sendall(frame(body.encode("ascii")))
        return self._reply(deadline)

    def monitor(self, command):
        """The text a QEMU monitor command prints."""
        self.sock.sendall(frame(b"qRcmd," + command.encode().hex().encode()))
        out = []
        while True:
            p = self._reply(time.monotonic() + 30)
            if p.startswith("O") and p != "OK":
                out.append(bytes.fromhex(p[1:]).decode("utf-8", "replace"))
            elif p == "OK" or p == "":
                return "".join(out)
            else:
                raise StubError(f"monitor command {command!r} failed: {p}")

    def instructions(self):
        """Guest instructions executed so far (needs -icount ...,rr=record)."""
        text = self.monitor("info replay")
        m = re.search(r"instruction count = (\d+)", text)
        if not m:
            raise StubError("QEMU gives no instruction count (is -icount rr=record on?): "
                            + text.strip())
        return int(m.group(1))

    def reg(self, n):
        """A 64-bit register by number (QEMU answers no 'p' packet here: the
        whole set, 'g', begins with rax..r15 and rip, 8 bytes each; arm64's
        with x0..x30, sp and pc)."""
        g = self.request("g")
        if len(g) < 16 * (n + 1):
            raise StubError(f"short register set from the gdbstub: {g[:40]!r}")
        return le_hex(g[16 * n:16 * (n + 1)])

    def read(self, addr, size=8):
        r = self.request(f"m{addr:x},{size:x}")
        if r.startswith("E") or len(r) != 2 * size:
            raise StubError(f"cannot read {size} bytes at {addr:#x}: {r}")
        return le_hex(r)

    def read_bytes(self, addr, size, chunk=512):
        """size bytes of guest memory from addr, read chunk bytes a packet."""
        out = b""
        while len(out) < size:
            n = min(chunk, size - len(out))
            r = self.request(f"m{addr + len(out):x},{n:x}")
            if r.startswith("E") or len(r) != 2 * n:
                raise StubError(f"cannot read {n} bytes at {addr + len(out):#x}: {r}")
            out += bytes.fromhex(r)
        return out

    def set_break(self, addr):
        if addr not in self.breaks:
            if self.request(f"Z0,{addr:x},1") != "OK":
                raise StubError(f"QEMU refused a breakpoint at {addr:#x}")
            self.breaks.add(addr)

    def clear_break(self, addr):
        if addr in self.breaks:
            self.request(f"z0,{addr:x},1")
            self.breaks.discard(addr)

    def resume(self, deadline):
        """Continues until the next stop -> the stop's pc. A breakpoint at the
        current pc is stepped over first (QEMU would stop on it again); when
        that step lands on another breakpoint (a call to a function that has
        one), the step's end is the stop."""
        pc = self.reg(self.arch.pc)
        if pc in self.breaks:
            self.request(f"z0,{pc:x},1")
            self._expect_stop(self.request("s", deadline))
            self.request(f"Z0,{pc:x},1")
            after = self.reg(self.arch.pc)
            if after in self.breaks:
                return after
        self._expect_stop(self.request("c", deadline))
        return self.reg(self.arch.pc)

    @staticmethod
    def _expect_stop(reply):
        if reply.startswith("W") or reply.startswith("X"):
            raise StubError("the guest ended (QEMU reported its exit)")
        if not reply.startswith("T") and not reply.startswith("S"):
            raise StubError(f"unexpected stop reply {reply!r}")

