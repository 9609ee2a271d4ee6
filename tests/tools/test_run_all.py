# SPDX-License-Identifier: MIT
"""`make test`'s driver (tests/run_all.py), with its stages' commands
stubbed: a stage whose tests are missing fails and says so, the tests
that ended inconclusive are listed and counted in the summary, and a skip
for want of a package that `make setup` installs fails the run."""
import importlib.util
import json
import os
import shutil
from xml.sax.saxutils import quoteattr

import pytest

from conftest import ROOT


def load():
    spec = importlib.util.spec_from_file_location("run_all", os.path.join(ROOT, "tests", "run_all.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tree(root, folders=("unit", "fuzz", "tools", "hosted", "boot")):
    for f in folders:
        os.makedirs(os.path.join(root, "tests", f))
    os.makedirs(os.path.join(root, "tools"), exist_ok=True)
    shutil.copy(os.path.join(ROOT, "tools", "host-files.txt"), os.path.join(root, "tools"))


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


def junit(skips):
    """A pytest JUnit XML report with one skipped test a reason, and one that passed."""
    cases = "".join(f'<testcase classname="tests.tools.test_x" name="test_{i}">'
                    f'<skipped type="pytest.skip" message={quoteattr(r)}>x</skipped></testcase>'
                    for i, r in enumerate(skips))
    return (f'<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">{cases}'
            '<testcase classname="tests.tools.test_x" name="test_ok"/>'
            '<testcase classname="tests.tools.test_x" name="test_xf"><skipped type="pytest.xfail" '
            'message="cpio is not installed"/></testcase></testsuite></testsuites>')


def run_with_skips(tmp_path, skips):
    """main() with the host-tool stage's report holding `skips` -> (exit status, output)."""
    tree(tmp_path)
    mod = load()

    def call(cmd, cwd):
        report = next((a.split("=", 1)[1] for a in cmd if a.startswith("--junitxml=")), None)
        if report and "tests/tools" in cmd:
            os.makedirs(os.path.dirname(os.path.join(cwd, report)), exist_ok=True)
            with open(os.path.join(cwd, report), "w") as f:
                f.write(junit(skips))
        return 0
    return mod.main(str(tmp_path), call), mod


def test_every_pytest_stage_writes_a_report_and_the_fuzz_stage_is_fuzz_quick():
    mod = load()
    cmds = {name: cmd for name, _, cmd in mod.stages("2")}
    assert cmds["fuzz"][-2:] == ["fuzz", "QUICK=1"]
    for name in ("host tools", "hosted", "boot"):
        assert [a for a in cmds[name] if a.startswith("--junitxml=build/test-logs/junit-")], cmds[name]


def test_a_skip_for_a_package_setup_installs_fails_the_run(tmp_path, capsys):
    rc, _ = run_with_skips(tmp_path, ["cpio is not installed", "the accelerator verdict for this boot is TCG"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "1 skipped for want of a package, which `make setup` installs" in out
    assert "  tests.tools.test_x::test_0: cpio is not installed (Debian package cpio)" in out
    assert "test_1" not in out and "test_xf" not in out      # not a package; an xfail is no skip
    assert out.rstrip().splitlines()[-1].startswith("make test: FAILED in")
    assert out.rstrip().endswith("(unit ok, fuzz ok, host tools ok, hosted ok, boot ok); "
                                 "1 skipped for want of a package")


def test_skips_for_what_no_package_gives_pass(tmp_path, capsys):
    rc, _ = run_with_skips(tmp_path, [
        "/sys/firmware/memmap is missing: this kernel does not export the firmware's map",
        "the accelerator verdict for this boot is TCG: because /dev/kvm does not exist",
        "inconclusive: no clean PIT window", "build/bootheap.elf is missing: run `make`"])
    assert rc == 0 and "make test: PASSED" in capsys.readouterr().out


def test_a_report_left_from_an_earlier_run_is_not_read(tmp_path, capsys):
    tree(tmp_path)
    old = tmp_path / "build" / "test-logs" / "junit-hosted.xml"
    os.makedirs(old.parent)
    old.write_text(junit(["valgrind is not installed"]))
    assert load().main(str(tmp_path), lambda cmd, cwd: 0) == 0
    assert not old.exists()


@pytest.mark.parametrize("reason,package", [
    ("cpio is not installed", "cpio"),
    ("valgrind is not installed (Debian package valgrind)", "valgrind"),
    ("busybox-static is not installed", "busybox-static"),
    ("`zbarimg` not found", "zbar-tools"),
    ("no valgrind on this host", "valgrind"),
    ("/usr/share/OVMF/OVMF_CODE_4M.fd: no such file", "ovmf"),
    ("/usr/lib/grub/i386-pc/normal.mod is missing", "grub-pc-bin"),
    ("frobnicate is not installed", "frobnicate, not in tools/host-files.txt"),
    ("no C compiler to build bench/stats.c for the host", None),
    ("/sys/firmware/memmap is missing: this kernel does not export the firmware's map", None),
    ("because /dev/kvm does not exist", None),
    ("build/bootheap.elf is missing: run `make`", None),
    ("this QEMU's TCG offers no x2APIC (CPUID 1 ECX bit 21 clear); xAPIC fallback checked", None),
    ("KVM exposed no CPUID 0x40000010 with this CPU model", None),
])
def test_which_reasons_name_a_package_setup_installs(reason, package):
    mod = load()
    assert mod.for_want_of(reason, mod.installable(os.path.join(ROOT, "tools", "host-files.txt"))) == package


def test_the_tests_reasons_for_a_missing_package_name_a_listed_one():
    """Every skip in the tests that says a package is not installed names
    one that make setup installs: so no such skip can pass make test."""
    mod = load()
    names = mod.installable(os.path.join(ROOT, "tools", "host-files.txt"))
    said = []
    for d, _, files in os.walk(os.path.join(ROOT, "tests")):
        for f in files:
            if f.endswith(".py") and f not in ("run_all.py", os.path.basename(__file__)):
                with open(os.path.join(d, f)) as fh:
                    said += mod.NOT_INSTALLED.findall(fh.read())
    assert {"cpio", "valgrind", "busybox-static"} <= set(said)
    assert [n for n in said if n not in names] == []
