# SPDX-License-Identifier: MIT
"""Runs bootheap under QEMU once, under an accelerator already chosen: the
one runner that `make run`, `make test` and `make bench` share. The
command comes from harness/qemu/command.py; the caller decides the
accelerator (a command's plan, or harness/qemu/boot.py for one boot).

Every QEMU the harness starts starts here: launch() starts it with its
serial reader, wait() polls it until it exits, runs out of time, stalls or
the caller's done() says the guest has said what was wanted, and end()
stops it. run() is bootheap's boot; the real kernels' boots
(harness/real/bracket/boot.py, harness/real/linux/dumpboot.py,
harness/real/xen/dom0.py) call the three themselves.

Serial output is shown on the terminal (unless quiet; its JSON records only
when asked, harness/qemu/echo.py), kept in a log and time-stamped line by
line as it arrives. The kernel's verdict comes back
through isa-debug-exit: QEMU exits 33 for ok and 35 for fail; anything else
means the kernel never said. A guest whose serial output stops for `stall`
seconds is killed at once rather than left to its timeout."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from harness.common import die_with_parent
from harness.qemu import command
from harness.qemu.echo import RECORD_START, SerialEcho

EXIT_OK, EXIT_FAIL = 33, 35      # (0x10 << 1) | 1 and (0x11 << 1) | 1

class Result:
    def __init__(self, status, qemu_rc, log, elapsed, accel, cmd, lines=None, stall=None, log_error=None):
        self.status = status        # "ok", "fail", "timeout", "stalled", "no-verdict", "qemu-error"
        self.qemu_rc = qemu_rc
        self.log = log              # serial output, '\r' removed
        self.elapsed = elapsed
        self.accel = accel
        self.cmd = cmd
        self.lines = lines or []    # [(seconds since QEMU started, line)] as each line arrived
        self.stall = stall          # the stall limit this boot ran under, None when off
        self.log_error = log_error  # why the log file stopped being written, None when it was not

    @property
    def ok(self):
        return self.status == "ok"

    def records(self):
        """Every JSON record line, parsed."""
        out = []
        for line in self.log.splitlines():
            if line.startswith(RECORD_START):
                out.append(json.loads(line))
        return out

    def timed_records(self):
        """[(arrival seconds, record)] for every JSON record line."""
        return [(t, json.loads(line)) for t, line in self.lines if line.startswith(RECORD_START)]

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

    def last_record_type(self):
        """The type of the last record the kernel began, None before any: a
        record cut short by the end of the boot still names its type."""
        for line in reversed(self.log.splitlines()):
            if line.startswith(RECORD_START):
                name = line[len(RECORD_START):].lstrip().lstrip('"').split('"')[0]
                return (name or "?") + ("" if line.rstrip().endswith("}") else " (cut short)")
        return None

    def ending(self, n=12):
        """How the log ends, for a person: its last n human lines (the
        records left out) and the last record's type."""
        human = [line for line in self.log.splitlines() if not line.startswith(RECORD_START)]
        while human and not human[-1].strip():
            human.pop()
        text = "\n".join("  | " + line for line in human[-n:]) if human else "  (no human lines)"
        last = self.last_record_type()
        return f"{text}\n  the last record: {last if last else 'none'}"


class _Reader:
    """Reads QEMU's serial output as it comes: time-stamps each line, keeps the
    log, echoes it, and remembers when the guest last said anything."""

    def __init__(self, proc, start, quiet, log_path, records=True):
        self.proc, self.start, self.quiet = proc, start, quiet
        self.chunks, self.lines, self.errs = [], [], []
        self.last = start
        self.partial = b""
        self.echo = SerialEcho(records)
        self.log_path, self.log_error = log_path, None
        self.logf = None
        if log_path:
            try:
                self.logf = open(log_path, "wb")
            except OSError as e:
                self.log_error = f"cannot write {log_path}: {e.strerror or e}"
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
                self._log(raw)
            if not self.quiet:
                sys.stdout.write(self.echo.feed(raw))
                sys.stdout.flush()
        if not self.quiet:
            sys.stdout.write(self.echo.flush())
            sys.stdout.flush()
        if self.partial:
            self.lines.append((time.monotonic() - self.start,
                               self.partial.decode("utf-8", "replace").replace("\r", "")))

    def _log(self, raw):
        """The log as it came; a disk that fills ends the log, not the boot."""
        try:
            self.logf.write(raw.replace(b"\r", b""))
            self.logf.flush()
        except OSError as e:
            self.log_error = f"cannot write {self.log_path}: {e.strerror or e}"
            try:
                self.logf.close()
            except OSError:
                pass
            self.logf = None

    def text(self):
        """The serial output so far, '\r' removed."""
        return b"".join(self.chunks).decode("utf-8", "replace").replace("\r", "")

    def _err(self):
        for raw in iter(lambda: self.proc.stderr.readline(), b""):
            self.errs.append(raw.decode("utf-8", "replace"))

    def finish(self):
        for t in self.threads:
            t.join(timeout=5)
        if self.logf:
            try:
                self.logf.close()
            except OSError as e:
                self.log_error = f"cannot write {self.log_path}: {e.strerror or e}"
        return self.text()

    def said(self):
        """What QEMU wrote to its stderr."""
        return "".join(self.errs).strip()


# Seconds QEMU has to exit on SIGTERM before it is killed.
TERM_GRACE = 5.0


def end(proc, grace=TERM_GRACE):
    """Ends QEMU: SIGTERM first, which it obeys at once, which a wrapper
    around it can pass on, and on which it closes an -icount recording;
    SIGKILL if it is still there `grace` s later. A QEMU that has exited
    already is left as it is."""
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def launch(cmd, quiet=True, log_path=None, records=True):
    """Starts QEMU on cmd, to die with this process, and its serial reader
    -> (proc, reader). records: the echo shows the JSON records too."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=die_with_parent)
    return proc, _Reader(proc, start, quiet, log_path, records)


def wait(proc, reader, timeout, stall, done=None, poll=0.2, grace=TERM_GRACE):
    """Waits for QEMU, looking every `poll` s -> 'exited', 'timeout',
    'stalled' or, where done(reader, now) says the guest has said what was
    wanted, 'done'; QEMU is ended (end(proc, grace)) on all but 'exited'."""
    deadline = reader.start + timeout if timeout else None
    while True:
        try:
            proc.wait(timeout=poll)
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
            end(proc, grace)
            return why


def run(mode="pvh", mem="1G", append="", acc="tcg", timeout=300, quiet=False,
        log_path=None, machine_opts="", serial=True, gdb=False, extra=(), cpu=None,
        say=None, stall=None, gfxmode=None, grub_cmds=(), cpus=1, nodes=1, records=True):
    """Boots once under acc, 'kvm' or 'tcg', and returns a Result. Never
    raises for a kernel failure, nor for a log that cannot be written
    (Result.log_error says why); the arguments as harness/qemu/boot.py's
    boot() takes them, and raises as command.prepare() does."""
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
        proc, reader = launch(cmd, quiet, log_path, records)
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
            say("harness: qemu said: " + reader.said())
    r = Result(status, rc, log, elapsed, acc, cmd, reader.lines, stall or None, reader.log_error)
    if status == "stalled":
        say(f"harness: no serial output for {stall:g} s: the guest stopped making progress; "
            f"QEMU stopped after {elapsed:.1f} s. The log ends:\n{r.ending()}")
    return r
