# SPDX-License-Identifier: MIT
"""The runner's fail-fast settings (harness/qemu/runner.py): the stall limit and
where it comes from, the longest silence of a boot, and a guest that never
outlives the harness that started it; and launch() and wait() as the real
kernels' boots use them: until a line after a marker, with their own poll
and grace."""
import os
import signal
import struct
import subprocess
import sys
import time

import pytest

from harness import ROOT, common
from harness.qemu import boot
from harness.qemu import command, runner

GIB = 1 << 30


def test_stall_limit_grows_with_the_guest(monkeypatch):
    monkeypatch.delenv("BOOTHEAP_STALL", raising=False)
    small, big, huge = command.default_stall(GIB // 2), command.default_stall(90 * GIB), command.default_stall(1 << 40)
    assert command.STALL_BASE <= small < big < huge == command.STALL_MAX
    assert big == command.STALL_BASE + 90 * command.STALL_PER_GIB


@pytest.mark.parametrize("text,value", [("7", 7.0), ("0", 0.0), (" 2.5 ", 2.5)])
def test_stall_limit_from_the_environment(monkeypatch, text, value):
    monkeypatch.setenv("BOOTHEAP_STALL", text)
    assert command.default_stall(90 * GIB) == value


@pytest.mark.parametrize("text", ["soon", "-1"])
def test_bad_stall_limit_is_refused(monkeypatch, text):
    monkeypatch.setenv("BOOTHEAP_STALL", text)
    with pytest.raises(ValueError, match="BOOTHEAP_STALL"):
        command.default_stall()


def test_bad_accel_is_refused(monkeypatch):
    monkeypatch.setenv("BOOTHEAP_ACCEL", "fast")
    with pytest.raises(ValueError, match="use auto, kvm or tcg"):
        command.default_accel()
    monkeypatch.delenv("BOOTHEAP_ACCEL")
    assert command.default_accel() == "auto"


def test_longest_silence_counts_from_the_start_and_not_after_the_end():
    lines = [(1.5, "bootheap"), (2.0, "memory"), (9.0, "frame table"), (9.5, "done")]
    r = runner.Result("stalled", -9, "\n".join(t for _, t in lines), 60.0, "tcg", [], lines, 50)
    assert r.max_gap() == (7.0, "frame table")
    assert r.tail(2) == "frame table\ndone"
    assert runner.Result("ok", 33, "", 0.1, "tcg", []).max_gap() == (0.0, None)


class FakeClock:
    """time.monotonic() for runner.wait(): each wait for QEMU moves it on."""

    def __init__(self):
        self.now = 100.0

    def monotonic(self):
        return self.now


class FakeQemu:
    """A QEMU that runs until ended, or exits on its own at `exits_at`; one
    that ignores SIGTERM (deaf) runs on until killed."""

    def __init__(self, clock, exits_at=None, deaf=False):
        self.clock, self.exits_at, self.deaf = clock, exits_at, deaf
        self.killed_at = self.termed_at = None

    def wait(self, timeout=None):
        if self.killed_at is not None:
            return -9
        if self.termed_at is not None and not self.deaf:
            return -15
        self.clock.now += timeout
        if self.exits_at is not None and self.clock.now >= self.exits_at:
            return 33
        raise runner.subprocess.TimeoutExpired("qemu", timeout)

    def terminate(self):
        self.termed_at = self.clock.now

    def kill(self):
        self.killed_at = self.clock.now


class FakeReader:
    def __init__(self, start, last):
        self.start, self.last = start, last


@pytest.fixture
def clock(monkeypatch):
    """The fake clock, standing in for the runner's time.monotonic()."""
    c = FakeClock()
    monkeypatch.setattr(runner.time, "monotonic", c.monotonic)
    return c


class Started(Exception):
    """Raised by a stand-in for Popen: the boot got as far as starting QEMU."""


@pytest.mark.parametrize("last_line_at", [0.0, 5.0, 40.0])
def test_stall_limit_counts_from_the_last_line(clock, last_line_at):
    start = clock.now
    proc = FakeQemu(clock)
    assert runner.wait(proc, FakeReader(start, start + last_line_at), 600, 3) == "stalled"
    # Ended within one poll (0.2 s) of 3 s after the last line, by SIGTERM.
    assert start + last_line_at + 3 < proc.termed_at <= start + last_line_at + 3.2 + 1e-9
    assert proc.killed_at is None


def test_a_guest_deaf_to_sigterm_is_killed_after_the_grace(clock):
    proc = FakeQemu(clock, deaf=True)
    assert runner.wait(proc, FakeReader(clock.now, clock.now), 600, 3) == "stalled"
    assert proc.killed_at == pytest.approx(proc.termed_at + runner.TERM_GRACE)


def test_a_guest_that_ends_or_runs_out_of_time(clock):
    start = clock.now
    assert runner.wait(FakeQemu(clock, exits_at=start + 2), FakeReader(start, start), 600, 3) == "exited"
    # No stall limit (0): only the timeout ends it.
    proc = FakeQemu(clock)
    assert runner.wait(proc, FakeReader(clock.now, clock.now), 10, 0) == "timeout"
    assert proc.termed_at is not None


def test_a_deaf_guest_gets_the_grace_it_was_given(clock):
    proc = FakeQemu(clock, deaf=True)
    assert runner.wait(proc, FakeReader(clock.now, clock.now), 5, 0, poll=0.1, grace=30) == "timeout"
    assert proc.killed_at == pytest.approx(proc.termed_at + 30)


def test_a_real_boot_waits_for_a_whole_line_after_its_marker(tmp_path):
    """A stand-in QEMU that prints a line at a time: the bracket boots'
    done() holds once the marker's line and one more are in, the log file
    holds what came, and the stand-in is ended, not waited for."""
    from harness.real.bracket.boot import marked
    script = "echo one; sleep 0.3; printf 'heap initialised'; sleep 0.3; echo; sleep 0.3; echo two; exec sleep 60"
    log = tmp_path / "serial.log"
    proc, reader = runner.launch(["sh", "-c", script], log_path=str(log))
    seen = []
    done = marked("heap initialised")
    how = runner.wait(proc, reader, 30, None, done=lambda r, now: seen.append(r.text()) or done(r, now), poll=0.1)
    text = reader.finish()
    assert how == "done" and proc.returncode is not None
    assert text.endswith("heap initialised\ntwo\n") and log.read_text() == text
    assert not any(done(type("R", (), {"text": lambda self, t=t: t})(), 0) for t in seen[:-1])


def test_a_boot_that_ends_early_is_exited_with_what_qemu_said(tmp_path):
    proc, reader = runner.launch(["sh", "-c", "echo booting; echo 'qemu: no such file' >&2; exit 1"])
    assert runner.wait(proc, reader, 30, None, done=lambda r, now: False) == "exited"
    assert reader.finish() == "booting\n" and reader.said() == "qemu: no such file" and proc.returncode == 1


# Run from the top of the repository (cwd=ROOT), where `python3 -c` finds
# the harness package as `python3 -m harness` does.
CHILD = r"""
import subprocess, time
from harness.common import die_with_parent
p = subprocess.Popen(["sleep", "300"], preexec_fn=die_with_parent)
print(p.pid, flush=True)
time.sleep(300)
"""


def _alive(pid):
    """True while pid runs (a zombie awaiting its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_guest_dies_with_the_harness_that_started_it():
    """A harness killed with SIGKILL (a test runner's own timeout) takes its
    child with it: before, a QEMU it started ran on for hours."""
    harness = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    child = int(harness.stdout.readline())
    assert _alive(child)
    os.kill(harness.pid, signal.SIGKILL)
    harness.wait()
    deadline = time.monotonic() + 30
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(child)
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, "the child outlived the harness that started it"


def test_every_boot_starts_qemu_to_die_with_the_harness(monkeypatch, tmp_path):
    elf = tmp_path / "bootheap.elf"
    fake_elf(elf, [(1, 0x200000, 0x1000)])
    monkeypatch.setattr(command, "ELF", str(elf))
    seen = {}

    def popen(cmd, **kw):
        seen.update(kw)
        raise Started

    monkeypatch.setattr(runner.subprocess, "Popen", popen)
    with pytest.raises(Started):
        boot.boot("pvh", "256M", accel="tcg", quiet=True)
    assert seen.get("preexec_fn") is common.die_with_parent


def fake_elf(path, segments):
    """A 64-bit ELF header and program headers: (type, paddr, memsz) each."""
    head = bytearray(64)
    head[:5] = b"\x7fELF\x02"
    struct.pack_into("<Q", head, 32, 64)
    struct.pack_into("<HH", head, 54, 56, len(segments))
    table = b"".join(struct.pack("<IIQQQQQQ", kind, 0, 0, 0, paddr, 0, memsz, 0)
                     for kind, paddr, memsz in segments)
    path.write_bytes(bytes(head) + table)


def test_image_end_counts_bss_and_only_loaded_segments(tmp_path):
    elf = tmp_path / "k.elf"
    fake_elf(elf, [(1, 0x200000, 0x1000), (1, 0x24d000, 0x2d3000), (4, 0x9000000, 0x1000)])
    assert command.image_end(str(elf)) == 0x520000
    (tmp_path / "text").write_text("not an ELF")
    with pytest.raises(ValueError, match="not a 64-bit ELF"):
        command.image_end(str(tmp_path / "text"))


@pytest.mark.parametrize("mem,refused", [("2M", True), ("5M", True), ("6M", False)])
def test_a_guest_smaller_than_the_kernel_image_is_refused(monkeypatch, tmp_path, mem, refused):
    """Under 5.1 MiB QEMU loaded part of the kernel and the guest stayed
    silent until the stall limit: now refused, naming the size."""
    elf = tmp_path / "bootheap.elf"
    fake_elf(elf, [(1, 0x200000, 0x1000), (1, 0x24d000, 0x2d3000)])
    monkeypatch.setattr(command, "ELF", str(elf))

    monkeypatch.setattr(runner.subprocess, "Popen", lambda *a, **k: (_ for _ in ()).throw(Started()))
    if refused:
        with pytest.raises(ValueError, match=f"guest memory '{mem}': the kernel image itself reaches "
                                             r"5\.1 MiB; give at least 6 MiB"):
            boot.boot("pvh", mem, accel="tcg", quiet=True)
    else:
        with pytest.raises(Started):
            boot.boot("pvh", mem, accel="tcg", quiet=True)
