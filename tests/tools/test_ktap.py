# SPDX-License-Identifier: MIT
"""The boot tests' reading of the kernel's KTAP (tests/boot/bootlib.py): a
skip passes only where ALLOWED_SKIPS says why it may, an inconclusive
self-test counts as neither pass nor fail and is noted for `make test`'s
summary, and the kernel's own summary line must add up."""
import json
import os

import pytest

import bootlib
from harness.qemu import runner


def result(lines, status="ok"):
    """A boot whose log holds these KTAP lines; the last one is the summary."""
    log = "\n".join(["bootheap: self-tests", "KTAP version 1", f"1..{len(lines) - 1}"] + lines)
    return runner.Result(status, 33 if status == "ok" else 35, log, 1.0, "tcg", [])


def summary(passed, skipped, unsure, failed=0):
    return f"# selftests: {passed} passed, {failed} failed, {skipped} skipped, {unsure} inconclusive"


@pytest.fixture
def logdir(tmp_path, monkeypatch):
    monkeypatch.setattr(bootlib, "ROOT", str(tmp_path))
    return tmp_path / "build" / "test-logs"


def test_an_allowed_skip_passes(logdir):
    r = result(["ok 1 tsc_scale_matches_division",
                "ok 2 tsc_hpet_interval # SKIP the hpet is the source: the check would be circular",
                "ok 3 tsc_pit_interval # SKIP the pit is dead (OUT2 high before the count ran out, 3 tries)",
                summary(1, 2, 0)])
    assert len(bootlib.assert_ktap_ok(r)) == 3


@pytest.mark.parametrize("line", [
    "ok 2 lazy_allocates_every_order # SKIP no lazy strategy registered",
    # Allowed for the HPET, not for a clock that is there on every q35.
    "ok 2 tsc_pmtimer_interval # SKIP the hpet is the source: the check would be circular",
    "ok 2 tsc_hpet_interval # SKIP the hpet disagreed with the chosen rate",
])
def test_any_other_skip_fails(line, logdir):
    r = result(["ok 1 tsc_scale_matches_division", line, summary(1, 1, 0)])
    with pytest.raises(AssertionError, match="no entry of bootlib.ALLOWED_SKIPS allows it"):
        bootlib.assert_ktap_ok(r)


def test_every_allowed_skip_says_why():
    assert bootlib.ALLOWED_SKIPS and all(len(because) > 20 for _, _, because in bootlib.ALLOWED_SKIPS)


def test_inconclusive_is_neither_pass_nor_fail(logdir, monkeypatch):
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/boot/test_x.py::test_y (call)")
    r = result(["ok 1 tsc_scale_matches_division",
                "ok 2 tsc_hpet_interval # SKIP inconclusive: none of 12 hpet intervals was clean",
                summary(1, 0, 1)])
    with pytest.warns(bootlib.Inconclusive, match="self-test tsc_hpet_interval inconclusive: none of 12"):
        bootlib.assert_ktap_ok(r)
    with open(logdir / "inconclusive.jsonl") as f:
        noted = [json.loads(line) for line in f]
    assert noted == [{"test": "tests/boot/test_x.py::test_y: self-test tsc_hpet_interval",
                      "why": "none of 12 hpet intervals was clean"}]


def test_the_kernel_summary_must_add_up(logdir):
    # An inconclusive counted as a pass by the kernel: its summary is wrong.
    r = result(["ok 1 tsc_scale_matches_division",
                "ok 2 tsc_hpet_interval # SKIP inconclusive: none of 12 hpet intervals was clean",
                summary(2, 0, 0)])
    with pytest.raises(AssertionError, match="the kernel's summary does not say"):
        bootlib.assert_ktap_ok(r)


def test_a_failure_still_fails(logdir):
    r = result(["ok 1 tsc_scale_matches_division", "not ok 2 tsc_hpet_interval", summary(1, 0, 0, 1)],
               status="fail")
    with pytest.raises(AssertionError, match=r"self-tests failed: \['tsc_hpet_interval'\]"):
        bootlib.assert_ktap_ok(r)


def test_inconclusive_ends_a_boot_test_as_a_noted_skip(logdir, monkeypatch):
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/boot/test_x.py::test_z (call)")
    with pytest.raises(pytest.skip.Exception, match="^inconclusive: no clean PIT window"):
        bootlib.inconclusive("no clean PIT window")
    assert os.path.exists(logdir / "inconclusive.jsonl")
