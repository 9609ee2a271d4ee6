# SPDX-License-Identifier: MIT
"""`python3 -m harness run` with QEMU replaced by the synthetic logs: which sizes and
kernel arguments it boots with, what it writes, and how a failure ends."""
import json
import os

import pytest

from harness import cli, common
from harness.qemu import accel as accel_mod
from harness.qemu import command, runner
from conftest import GIB, SYNTHETIC

MIB = 1 << 20


def synthetic_log(nbytes):
    name = {4 * GIB: "serial-4G.log", 8 * GIB: "serial-8G.log"}.get(nbytes, "serial-1G.log")
    with open(os.path.join(SYNTHETIC, name), newline="") as f:
        return f.read().replace("\r", "")


class FakeQemu:
    """Stands in for accel.choose and runner.run; remembers each choice and
    each boot."""

    def __init__(self, accel, fail_at=()):
        self.accel, self.fail_at, self.boots, self.choices = accel, fail_at, [], 0

    def choose_accel(self, requested, mode, say=print, work=None):
        self.choices += 1
        say(f"harness: accelerator {self.accel.upper()} (fake)")
        return self.accel

    def boot(self, mode, mem, append, acc, timeout, quiet, log_path, say, stall=None):
        nbytes, accel = command.parse_size(mem), acc
        self.boots.append({"mode": mode, "bytes": nbytes, "append": append, "accel": accel})
        log, status, rc = synthetic_log(nbytes), "ok", 33
        if accel == "kvm":
            # The kernel tells the accelerator too; keep the two consistent.
            log = log.replace('"accel":"TCG"', '"accel":"KVM"').replace('"emulated":true', '"emulated":false')
        if nbytes > 16 * GIB:
            say(f"harness: {nbytes >> 20} MiB guest is larger than free host RAM: reserve=off")
        if nbytes in self.fail_at:
            log = log.replace('{"type":"done","status":"ok"}',
                              '{"type":"done","status":"fail","reason":"audit failed"}')
            status, rc = "fail", 35
        with open(log_path, "w") as f:
            f.write(log)
        return runner.Result(status, rc, log, 1.5, accel, ["qemu-system-x86_64"])


@pytest.fixture
def fake(monkeypatch):
    def make(accel, fail_at=()):
        q = FakeQemu(accel, fail_at)
        monkeypatch.setattr(runner, "run", q.boot)
        monkeypatch.setattr(accel_mod, "choose", q.choose_accel)
        return q
    return make


def test_tcg_default_is_the_reduced_run_over_sizes(fake, tmp_path, capsys):
    q = fake("tcg")
    out = str(tmp_path / "r")
    assert cli.main(["--out", out]) == 0
    assert [b["bytes"] for b in q.boots] == [g * GIB for g in (1, 2, 4, 8, 16, 32, 64, 90)]
    assert {b["append"] for b in q.boots} == {"runs=3"}
    assert {b["accel"] for b in q.boots} == {"tcg"}
    assert q.choices == 1                         # decided once, in the plan, for all eight boots
    text = capsys.readouterr()
    assert "reduced default sizes" in text.out
    assert common.TCG_LABEL in text.err
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        assert "reduced default sizes" in f.read()


def test_explicit_sizes_are_honoured_under_tcg(fake, tmp_path):
    q = fake("tcg")
    assert cli.main(["run", "--sizes", "0.5,16", "--runs", "2", "--out", str(tmp_path / "r")]) == 0
    assert [b["bytes"] for b in q.boots] == [512 * MIB, 16 * GIB]
    assert {b["append"] for b in q.boots} == {"runs=2"}
    assert sorted(os.listdir(tmp_path / "r")) == ["plot.gp", "plot.png", "records.jsonl", "report.md",
                                                  "serial-16G.log", "serial-512M.log", "summary.csv"]


def test_kvm_default_is_the_full_run_over_sizes(fake, tmp_path):
    q = fake("kvm")
    assert cli.main(["--out", str(tmp_path / "r"), "--mode", "pvh"]) == 0
    assert [b["bytes"] // GIB for b in q.boots] == [1, 2, 4, 8, 16, 32, 64, 90]
    assert {b["append"] for b in q.boots} == {"runs=5"}
    assert {b["accel"] for b in q.boots} == {"kvm"} and q.choices == 1


def test_kvm_report_shows_reserve_off_and_the_speed_targets(fake, tmp_path, capsys):
    fake("kvm")
    out = str(tmp_path / "r")
    assert cli.main(["--out", out]) == 0
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        md = f.read()
    assert common.TCG_LABEL not in md + capsys.readouterr().err
    assert "| 90 GiB | ok | ok | KVM | 1.5 | reserve=off |" in md
    assert "| 16 GiB | ok | ok | KVM | 1.5 |  |" in md
    assert "one 8 GiB boot with 5 runs per strategy under 10 s: 1.5 s, met" in md
    assert "the default run over sizes under 3 minutes:" in md


def test_quick_and_strategies(fake, tmp_path):
    q = fake("kvm")
    assert cli.main(["--quick", "--strategies", "page, chunk", "--mode", "iso-bios",
                     "--out", str(tmp_path / "r")]) == 0
    assert [b["bytes"] // GIB for b in q.boots] == [1, 4]
    assert {b["append"] for b in q.boots} == {"runs=3 strategies=page,chunk"}
    assert {b["mode"] for b in q.boots} == {"iso-bios"}


def test_records_jsonl_is_self_describing(fake, tmp_path):
    fake("tcg")
    out = str(tmp_path / "r")
    assert cli.main(["--sizes", "1,4", "--out", out]) == 0
    with open(os.path.join(out, "records.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    assert lines[0]["record"]["type"] == "run" and lines[0]["record"]["sizes_bytes"] == [GIB, 4 * GIB]
    assert "elapsed_s" in lines[0]["record"]
    kernel = [w for w in lines if w["source"] == "kernel"]
    # every kernel record of both logs, each with the size it came from
    assert len(kernel) == 2 * sum(1 for line in synthetic_log(GIB).splitlines() if line.startswith('{"type":'))
    assert {(w["size"], w["size_bytes"]) for w in kernel} == {("1G", GIB), ("4G", 4 * GIB)}
    results = [w for w in lines if w["record"]["type"] == "boot_result"]
    assert [(r["size"], r["record"]["status"], r["record"]["log"]) for r in results] == \
        [("1G", "ok", "serial-1G.log"), ("4G", "ok", "serial-4G.log")]


def test_a_failed_boot_fails_the_run_but_keeps_everything(fake, tmp_path, capsys):
    q = fake("tcg", fail_at=(2 * GIB,))
    out = str(tmp_path / "r")
    assert cli.main(["--sizes", "1,2,4", "--out", out]) == 1
    assert len(q.boots) == 3                      # the run went on after the failure
    err = capsys.readouterr().err
    assert "FAILED 2 GiB: boot ended fail (qemu exit 35)" in err
    assert "FAILED 2 GiB: kernel reported failure: audit failed" in err
    for name in ("records.jsonl", "summary.csv", "report.md", "plot.png", "serial-2G.log"):
        assert os.path.getsize(os.path.join(out, name)) > 0
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        assert "**FAILED** 2 GiB" in f.read()
    # `report` on the same folder says the same.
    assert cli.main(["report", out]) == 1


@pytest.mark.parametrize("args,message", [
    (["--strategies", "page;rm"], "bad strategy name"),
    (["--sizes", "lots"], "bad size"),
    (["--runs", "0"], "at least 1"),
])
def test_bad_options(fake, tmp_path, capsys, args, message):
    fake("tcg")
    assert cli.main(args + ["--out", str(tmp_path / "r")]) == 2
    assert message in capsys.readouterr().err


def test_out_folder_must_be_empty(fake, tmp_path, capsys):
    fake("tcg")
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "old.txt").write_text("x")
    assert cli.main(["--sizes", "1", "--out", str(tmp_path / "r")]) == 2
    assert "not empty" in capsys.readouterr().err


def test_options_the_kernel_ignored_are_noted(fake, tmp_path, capsys):
    # The synthetic kernel always runs 4 runs of page,chunk,sweep,lazy.
    fake("tcg")
    out = str(tmp_path / "r")
    assert cli.main(["--sizes", "1", "--runs", "2", "--strategies", "chunk", "--out", out]) == 0
    err = capsys.readouterr().err
    assert "asked for runs=2, the kernel ran 4" in err
    assert "asked for strategies=chunk, the kernel ran page,chunk,sweep,lazy" in err
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        assert "**NOTE** 1 GiB: asked for runs=2, the kernel ran 4" in f.read()
