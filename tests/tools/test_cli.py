# SPDX-License-Identifier: MIT
"""`python3 -m harness` given bad arguments, run as a user runs it: a
message that names what was wrong, exit status 2, no traceback, and no
QEMU started; and its --help, which names every command."""
import argparse
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

CASES = [
    # QEMU boots its default 128 MiB for -m 0, and takes whole MiB only.
    (["boot", "--mem", "0"], "harness: guest memory '0': give a whole number of MiB, at least 1 MiB"),
    (["boot", "--mem", "1.5M"], "harness: guest memory '1.5M': give a whole number of MiB"),
    (["boot", "--mem", "lots"], "harness: bad memory size 'lots'"),
    (["accel", "--mem", "0"], "harness: guest memory '0'"),
    (["boot", "--mode", "floppy"], "argument --mode: invalid choice: 'floppy'"),
    (["boot", "--accel", "fast"], "argument --accel: invalid choice: 'fast'"),
    (["boot", "--cpus", "0"], "harness: CPUS=0: the kernel takes 1 to 64 CPUs"),
    (["boot", "--nodes", "9"], "harness: NODES=9: the kernel takes 1 to 8 nodes"),
    (["boot", "--stall", "-3"], "argument --stall: '-3': seconds cannot be negative (0 means no limit)"),
    (["boot", "--timeout", "soon"], "argument --timeout: 'soon' is not a number of seconds"),
    (["run", "--timeout", "-1"], "argument --timeout: '-1': seconds cannot be negative"),
    (["run", "--sizes", "0"], "bench: bad size '0' in --sizes"),
    (["run", "--runs", "0"], "bench: --runs must be at least 1"),
    (["bogus"], "unrecognized arguments: bogus"),
    (["report", "/nonexistent/results"], "bench: /nonexistent/results: no such results folder"),
    (["compare", "results/a"], "the following arguments are required: b"),
    (["add", "{tmp}/folder", "/nonexistent/payload.txt"],
     "bench: payload '/nonexistent/payload.txt': no such file, and no payload text either"),
    (["codegen", "/nonexistent/kernel.elf", "/nonexistent/host"],
     "bench: /nonexistent/kernel.elf: no such file"),
    (["counts", "--sizes", "1K"], "bench: bad size '1K' in --sizes"),
    # The real kernels' commands: modes are subcommands, and what was removed names its replacement.
    (["linux-src", "--init", "--unpatched"], "linux-src: --init is gone: use `linux-src init`"),
    (["linux-src", "--dump"], "linux-src: --dump is gone: use `linux-src dump`"),
    (["linux-src", "--release", "6.12"], "linux-src: --release is gone: use --releases"),
    (["linux-src", "init", "--series", "without"], "linux-src init: error: unrecognized arguments: --series"),
    (["linux-src", "measure", "--layouts"], "linux-src measure: error: unrecognized arguments: --layouts"),
    (["linux-src", "dump", "--only", "2G"], "linux-src dump --only: no layout or gate '2G': choose from"),
    (["xen-src", "smp-boot", "--tree", "x", "--cases", "6G:9:1"], "--cases 6G:9:1: want SIZE:VCPUS:NODES[:LOW] items"),
    (["xen-src", "smp-boot", "--tree", "x", "--cases", "1K:2:1"], "--cases 1K:2:1: want SIZE:VCPUS:NODES[:LOW] items"),
    (["xen-src", "smp-boot", "--tree", "x", "--cases", "6G:2:1:4G"], "--cases 6G:2:1:4G: want SIZE:VCPUS:NODES[:LOW]"),
    (["xen-src", "smp-boot", "--tree", "x", "--cases", "2G:2:1:2G"], "--cases 2G:2:1:2G: want SIZE:VCPUS:NODES[:LOW]"),
    (["xen-src", "smp-boot", "--tree", "x", "--cases", "6G:2:1:1M:1"], "--cases 6G:2:1:1M:1: want SIZE:VCPUS"),
    (["xen-src", "smp-boot", "--cases", "6G:2:1"], "the following arguments are required: --tree"),
    (["xen-src", "smp-boot", "--tree", "x", "--extra", "/nonexistent.patch"], "--extra /nonexistent.patch: no such"),
    (["xen-src", "smp-count", "--tree", "x", "--cpus", "0,2"], "--cpus 0,2: want vCPU counts from 1 to 64"),
    (["xen-src", "smp-count", "--tree", "x", "--nodes", "3"], "--nodes 3: takes 1, 2 or 1,2"),
    (["xen-src", "smp-count", "--tree", "x", "--sizes", "1,4"], "--sizes 1,4: the counts are of guests from 2 GiB up"),
    (["xen-src", "smp-count", "--tree", "x", "--extra", "nowhere.patch"], "--extra nowhere.patch: no such patch"),
    (["xen-src", "heap-test", "--parallel"], "--parallel wants --proposal and --threads K"),
    (["linux-src", "configs", "--series", "without"], "linux-src configs: error: unrecognized arguments"),
    (["linux-src", "init", "--variants", "fast"], "--variants fast: init_pages takes stock, sweep"),
    (["linux-src", "--series", "without", "--variants", "sweep"], "--variants needs the series"),
    (["linux-src", "measure", "--nodes", "3"], "--nodes 3: takes 1, 2 or 1,2"),
    (["linux-src", "--releases", "6.1"], "no Linux release 6.1: choose from 6.12"),
    (["xen-src", "--no-unpatched"], "xen-src: --no-unpatched is gone: use --series with"),
    (["xen-src", "--report", "results/a"], "xen-src: --report is gone: use `xen-src report FOLDER`"),
    (["xen-src", "build", "--sizes", "1"], "xen-src build: error: unrecognized arguments: --sizes 1"),
    (["xen-src", "--series", "without"], "argument --series: invalid choice: 'without'"),
    (["peers", "--sizes", "1"], "harness: `peers` is now `binaries`"),
    (["binaries", "--breakdown", "1"], "binaries: --breakdown is gone: use --profile-size SIZE"),
    (["binaries", "report"], "binaries report: error: the following arguments are required: folder"),
]


def harness(args, env=None):
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env=dict(os.environ, **(env or {})))


@pytest.mark.parametrize("args,message", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_arguments_exit_2_naming_them(args, message, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    r = harness(args, {"BOOTHEAP_ACCEL": "tcg"})
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and "qemu-system" not in r.stderr + r.stdout, r.stderr
    # Nothing was made of the arguments: add did not create its folder.
    assert not (tmp_path / "folder").exists()


@pytest.mark.parametrize("var,value,message", [
    ("BOOTHEAP_ACCEL", "fast", "harness: BOOTHEAP_ACCEL='fast': use auto, kvm or tcg"),
    ("BOOTHEAP_STALL", "-1", "harness: BOOTHEAP_STALL='-1': must not be negative"),
    ("BOOTHEAP_STALL", "later", "harness: BOOTHEAP_STALL='later': give seconds of serial silence"),
])
def test_bad_environment_exits_2_naming_it(var, value, message):
    env = {"BOOTHEAP_ACCEL": "tcg", var: value}
    r = harness(["boot", "--mem", "256M"], env)
    assert r.returncode == 2 and message in r.stderr, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "qemu-system" not in r.stderr


def test_help_names_every_command_in_its_description_and_list():
    """The description is made from the subcommands, so a new one cannot be
    left out of it: each name is in the description and in the list, with a
    line of help, and main() knows it (else it would run it as `run NAME`)."""
    from harness import cli
    ap = cli.parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    names = list(sub.choices)
    assert len(names) >= 17 and set(names) == set(cli.COMMANDS)
    r = harness(["--help"])
    assert r.returncode == 0, r.stderr
    description = r.stdout.split("\n\n")[1]
    said = " ".join(description.split())
    assert f"in {len(names)} commands:" in said
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name in names:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", said), f"{name} is not in the description"
        assert helps.get(name), f"{name} has no help line"
        assert re.search(rf"^    {re.escape(name)}\b", r.stdout, re.M), f"{name} is not in the list"


def test_the_description_follows_the_subcommands():
    from harness import cli
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers()
    for name in ("one", "two-words", "three"):
        sub.add_parser(name, help="x")
    said = " ".join(cli.describe(sub).split())
    assert "in 3 commands: one, two-words and three," in said
