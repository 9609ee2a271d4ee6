# SPDX-License-Identifier: MIT
"""Runs bootheap under QEMU once, under an accelerator already chosen: the
one runner that `make run`, `make test`, `make bench` and `make peers`
share. The command comes from harness/qemu/command.py; the caller decides
the accelerator (a command's plan, or harness/qemu/boot.py for one boot).

Serial output is shown on the terminal (unless quiet), kept in a log and
time-stamped line by line as it arrives. The kernel's verdict comes back
through isa-debug-exit: QEMU exits 33 for ok and 35 for fail; anything else
means the kernel never said. A guest whose serial output stops for `stall`
seconds is killed at once rather than left to its timeout."""
import codecs
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from harness.common import die_with_parent
from harness.qemu import command

EXIT_OK, EXIT_FAIL = 33, 35      # (0x10 << 1) | 1 and (0x11 << 1) | 1

class Result:
    def __init__(self, status, qemu_rc, log, elapsed, accel, cmd, lines=None, stall=None):
        self.status = status        # "ok", "fail", "timeout", "stalled", "no-verdict", "qemu-error"
        self.qemu_rc = qemu_rc
        self.log = log              # serial output, '\r' removed
        self.elapsed = elapsed
        self.accel = accel
        self.cmd = cmd
        self.lines = lines or []    # [(seconds since QEMU started, line)] as each line arrived
        self.stall = stall          # the stall limit this boot ran under, None when off

    @property
    def ok(self):
        return self.status == "ok"

    def records(self):
        """Every JSON record line, parsed."""
        out = []
        for line in self.log.splitlines():
            if line.startswith('{"type":'):
                out.append(json.loads(line))
        return out

    def timed_records(self):
        """[(arrival seconds, record)] for every JSON record line."""
        return [(t, json.loads(line)) for t, line in self.lines if line.startswith('{"type":')]

    def max_gap(self):
        """(seconds, line after the gap): the longest serial silence from QEMU's
        start to the last line; the silence after the last line is not counted."""
        best, after, prev = 0.0, None, 0.0
        for t, line in self.lines:
            if t - prev > best:
                best, after = t - prev, line
            prev = t
        return best, after

    def tail(self, n=25):
        return "\n".join(self.log.splitlines()[-n:])


class _Reader:
    """Reads QEMU's serial output as it comes: time-stamps each line, keeps the
    log, echoes it, and remembers when the guest last said anything."""

    def __init__(self, proc, start, quiet, log_path):
        self.proc, self.start, self.quiet = proc, start, quiet
        self.chunks, self.lines, self.errs = [], [], []
        self.last = start
        self.partial = b""
        # The echo decodes across reads: a character's bytes can arrive in two.
        self.echo = codecs.getincrementaldecoder("utf-8")("replace")
        self.logf = open(log_path, "wb") if log_path else None
        self.threads = [threading.Thread(target=self._out, daemon=True),
                        threading.Thread(target=self._err, daemon=True)]
        for t in self.threads:
            t.start()

    def _out(self):
        fd = self.proc.stdout.fileno()
        while True:
            raw = os.read(fd, 65536)
            if not raw:
                break
            now = time.monotonic()
            self.last = now
            self.chunks.append(raw)
            *done, self.partial = (self.partial + raw).split(b"\n")
            for line in done:
                text = line.decode("utf-8", "replace").replace("\r", "")
                self.lines.append((now - self.start, text))
            if self.logf:
                self.logf.write(raw.replace(b"\r", b""))
                self.logf.flush()
            if not self.quiet:
                sys.stdout.write(self.echo.decode(raw).replace("\r", ""))
                sys.stdout.flush()
        if self.partial:
            self.lines.append((time.monotonic() - self.start,
                               self.partial.decode("utf-8", "replace").replace("\r", "")))

    def _err(self):
        for raw in iter(lambda: self.proc.stderr.readline(), b""):
            self.errs.append(raw.decode("utf-8", "replace"))

    def finish(self):
        for t in self.threads:
            t.join(timeout=5)
        if self.logf:
            self.logf.close()
        return b"".join(self.chunks).decode("utf-8", "replace").replace("\r", "")


# Seconds QEMU has to exit on SIGTERM before it is killed.
TERM_GRACE = 5.0


def end(proc):
    """Ends QEMU: SIGTERM first, which it obeys at once and which a wrapper
    around it can pass on; SIGKILL if it is still there TERM_GRACE s later."""
    proc.terminate()
    try:
        proc.wait(timeout=TERM_GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def launch(cmd, quiet=True, log_path=None):
    """Starts QEMU on cmd, to die with this process, and its serial reader -> (proc, reader)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=die_with_parent)
    return proc, _Reader(proc, start, quiet, log_path)


def wait(proc, reader, timeout, stall, done=None):
    """Waits for QEMU -> 'exited', 'timeout', 'stalled' or, where done(reader,
    now) says the guest has said its last word, 'done' (QEMU ended)."""
    deadline = reader.start + timeout if timeout else None
    while True:
        try:
            proc.wait(timeout=0.2)
            return "exited"
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        why = None
        if deadline is not None and now > deadline:
            why = "timeout"
        elif stall and now - reader.last > stall:
            why = "stalled"
        elif done and done(reader, now):
            why = "done"
        if why:
            end(proc)
            return why


def run(mode="pvh", mem="1G", append="", acc="tcg", timeout=300, quiet=False,
        log_path=None, machine_opts="", serial=True, gdb=False, extra=(), cpu=None,
        say=None, stall=None, gfxmode=None, grub_cmds=(), cpus=1, nodes=1):
    """Boots once under acc, 'kvm' or 'tcg', and returns a Result. Never
    raises for a kernel failure; the arguments as harness/qemu/boot.py's boot()
    takes them, and raises as command.prepare() does."""
    if say is None:
        say = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    mem_bytes, stall = command.prepare(mode, mem, stall, serial, gdb, cpus, nodes)
    if acc not in ("kvm", "tcg"):
        raise ValueError(f"accelerator {acc!r}: QEMU runs kvm or tcg (harness/qemu/boot.py chooses one)")
    with tempfile.TemporaryDirectory(prefix="bootheap-") as work:
        iso = None
        if mode != "pvh":
            iso = command.make_iso(append, work, gfxmode, grub_cmds) if append or gfxmode or grub_cmds \
                else command.ISO
            if not os.path.exists(iso):
                raise RuntimeError(f"{iso} is missing: run `make iso`")
        cmd = command.qemu_command(mode, acc, mem_bytes, append, iso, work, machine_opts, serial,
                                   gdb, extra, cpu, say, cpus, nodes)
        say("harness: " + " ".join(cmd))
        proc, reader = launch(cmd, quiet, log_path)
        how = wait(proc, reader, timeout, stall)
        log = reader.finish()
        elapsed = time.monotonic() - reader.start
    rc = proc.returncode
    if how != "exited":
        status = how
    elif rc == EXIT_OK:
        status = "ok"
    elif rc == EXIT_FAIL:
        status = "fail"
    elif rc == 0:
        status = "no-verdict"       # e.g. a triple fault with -no-reboot
    else:
        status = "qemu-error"
        if reader.errs:
            say("harness: qemu said: " + "".join(reader.errs).strip())
    r = Result(status, rc, log, elapsed, acc, cmd, reader.lines, stall or None)
    if status == "stalled":
        say(f"harness: no serial output for {stall:g} s: the guest stopped making progress; "
            f"QEMU stopped after {elapsed:.1f} s. The log ends:\n{r.tail()}")
    return r
