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
