# SPDX-License-Identifier: MIT
"""The runner's fail-fast settings (harness/qemu.py): the stall limit and
where it comes from, and the longest silence of a boot."""
import pytest

from harness import qemu

GIB = 1 << 30


def test_stall_limit_grows_with_the_guest(monkeypatch):
    monkeypatch.delenv("BOOTHEAP_STALL", raising=False)
    small, big, huge = qemu.default_stall(GIB // 2), qemu.default_stall(90 * GIB), qemu.default_stall(1 << 40)
    assert qemu.STALL_BASE <= small < big < huge == qemu.STALL_MAX
    assert big == qemu.STALL_BASE + 90 * qemu.STALL_PER_GIB


@pytest.mark.parametrize("text,value", [("7", 7.0), ("0", 0.0), (" 2.5 ", 2.5)])
def test_stall_limit_from_the_environment(monkeypatch, text, value):
    monkeypatch.setenv("BOOTHEAP_STALL", text)
    assert qemu.default_stall(90 * GIB) == value


@pytest.mark.parametrize("text", ["soon", "-1"])
def test_bad_stall_limit_is_refused(monkeypatch, text):
    monkeypatch.setenv("BOOTHEAP_STALL", text)
    with pytest.raises(ValueError, match="BOOTHEAP_STALL"):
        qemu.default_stall()


def test_bad_accel_is_refused(monkeypatch):
    monkeypatch.setenv("BOOTHEAP_ACCEL", "fast")
    with pytest.raises(ValueError, match="use auto, kvm or tcg"):
        qemu.default_accel()
    monkeypatch.delenv("BOOTHEAP_ACCEL")
    assert qemu.default_accel() == "auto"


def test_longest_silence_counts_from_the_start_and_not_after_the_end():
    lines = [(1.5, "bootheap"), (2.0, "memory"), (9.0, "frame table"), (9.5, "done")]
    r = qemu.Result("stalled", -9, "\n".join(t for _, t in lines), 60.0, "tcg", [], lines, 50)
    assert r.max_gap() == (7.0, "frame table")
    assert r.tail(2) == "frame table\ndone"
    assert qemu.Result("ok", 33, "", 0.1, "tcg", []).max_gap() == (0.0, None)


class FakeClock:
    """time.monotonic() for qemu._wait(): each wait for QEMU moves it on."""

    def __init__(self):
        self.now = 100.0

    def monotonic(self):
        return self.now


class FakeQemu:
    """A QEMU that runs until killed, or exits on its own at `exits_at`."""

    def __init__(self, clock, exits_at=None):
        self.clock, self.exits_at, self.killed_at = clock, exits_at, None

    def wait(self, timeout=None):
        if self.killed_at is not None:
            return -9
        self.clock.now += timeout
        if self.exits_at is not None and self.clock.now >= self.exits_at:
            return 33
        raise qemu.subprocess.TimeoutExpired("qemu", timeout)

    def kill(self):
        self.killed_at = self.clock.now


class FakeReader:
    def __init__(self, start, last):
        self.start, self.last = start, last


@pytest.mark.parametrize("last_line_at", [0.0, 5.0, 40.0])
def test_stall_limit_counts_from_the_last_line(monkeypatch, last_line_at):
    clock = FakeClock()
    monkeypatch.setattr(qemu.time, "monotonic", clock.monotonic)
    start = clock.now
    proc = FakeQemu(clock)
    assert qemu._wait(proc, FakeReader(start, start + last_line_at), 600, 3) == "stalled"
    # Killed within one poll (0.2 s) of 3 s after the last line.
    assert start + last_line_at + 3 < proc.killed_at <= start + last_line_at + 3.2 + 1e-9


def test_a_guest_that_ends_or_runs_out_of_time(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(qemu.time, "monotonic", clock.monotonic)
    start = clock.now
    assert qemu._wait(FakeQemu(clock, exits_at=start + 2), FakeReader(start, start), 600, 3) == "exited"
    # No stall limit (0): only the timeout ends it.
    proc = FakeQemu(clock)
    assert qemu._wait(proc, FakeReader(clock.now, clock.now), 10, 0) == "timeout"
    assert proc.killed_at is not None
