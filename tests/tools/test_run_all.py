# SPDX-License-Identifier: MIT
"""`make test`'s driver (tests/run_all.py), with its stages' commands
stubbed: a stage whose tests are missing fails and says so, and the tests
that ended inconclusive are listed and counted in the summary."""
import importlib.util
import json
import os

from conftest import ROOT


def load():
    spec = importlib.util.spec_from_file_location("run_all", os.path.join(ROOT, "tests", "run_all.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tree(root, folders=("unit", "fuzz", "tools", "hosted", "boot")):
    for f in folders:
        os.makedirs(os.path.join(root, "tests", f))


def test_every_stage_runs_and_passes(tmp_path, capsys):
    tree(tmp_path)
    ran = []
    assert load().main(str(tmp_path), lambda cmd, cwd: ran.append(cmd) or 0) == 0
    assert len(ran) == 5
    assert "make test: PASSED in" in capsys.readouterr().out


def test_a_missing_stage_fails_and_says_so(tmp_path, capsys):
    tree(tmp_path, ("unit", "fuzz", "hosted", "boot"))
    ran = []
    assert load().main(str(tmp_path), lambda cmd, cwd: ran.append(cmd) or 0) == 1
    out = capsys.readouterr().out
    assert "==== host tools: FAILED: tests/tools is missing, so its tests cannot run" in out
    assert "make test: FAILED" in out and "host tools FAILED" in out and len(ran) == 4


def test_inconclusive_tests_are_listed_and_counted(tmp_path, capsys):
    tree(tmp_path)
    log = tmp_path / "build" / "test-logs" / "inconclusive.jsonl"
    os.makedirs(log.parent)
    log.write_text(json.dumps({"test": "old run", "why": "left from before"}) + "\n")

    def call(cmd, cwd):
        if "tests/boot" in cmd:
            with open(log, "a") as f:
                f.write(json.dumps({"test": "tests/boot/test_x.py::test_y", "why": "no clean window"}) + "\n")
        return 0
    assert load().main(str(tmp_path), call) == 0
    out = capsys.readouterr().out
    assert "  tests/boot/test_x.py::test_y: no clean window" in out and "left from before" not in out
    assert out.rstrip().endswith("; 1 inconclusive")
