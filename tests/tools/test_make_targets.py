# SPDX-License-Identifier: MIT
"""The Makefile's short list: `make help` names at most 12 targets, each a
rule of the Makefile, and points to docs/usage.md for the rest; a target
folded into another, typed as before, fails at once with one line naming
its replacement; a value a variable does not take fails naming those it
does; and the variables of the folded targets reach the commands."""
import os
import re
import subprocess

import pytest

from conftest import ROOT

# Each folded target, and what replaces it.
MOVED = {
    "run-iso": "run BOOT=iso-bios",
    "run-uefi": "run BOOT=iso-uefi",
    "debug": "run GDB=1",
    "bench-quick": "bench QUICK=1",
    "bench-host-repeat": "bench-host MODE=repeat",
    "bench-host-full": "bench-host MODE=full",
    "xen-fuzz": "xen-heap-test LONG=1",
    "test-fuzz": "fuzz QUICK=1",
    "test-fuzz-cmdline": "fuzz-cmdline QUICK=1",
}


def make(*args):
    """make as a user types it, whether or not these tests run under make test's own make."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")}
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env)


def rules():
    with open(f"{ROOT}/Makefile") as f:
        return set(re.findall(r"^([a-z][\w.-]*)\s*:(?!=)", f.read(), re.M))


def test_help_lists_at_most_12_targets_each_a_rule():
    r = make("help")
    assert r.returncode == 0, r.stderr
    listed = [line.split()[0] for line in r.stdout.splitlines() if line.startswith("  ")]
    assert 8 <= len(listed) <= 12, listed
    assert not set(listed) - rules(), "make help lists targets with no rule"
    # The names CI and the README call stay, and the folded ones are gone.
    assert {"run", "test", "mutants", "xen-src", "linux-src"} <= set(listed)
    assert not set(listed) & set(MOVED)
    assert "docs/usage.md" in r.stdout


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_folded_target_names_its_replacement(old):
    r = make(old)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert f"make {old} is now 'make {MOVED[old]}'" in r.stderr
    assert old not in rules()


@pytest.mark.parametrize("args,message", [
    (["run", "BOOT=floppy"], "BOOT=floppy: give BOOT=pvh|iso-bios|iso-uefi"),
    (["run", "GDB=yes"], "GDB=yes: give GDB=0|1"),
    (["bench", "QUICK=2"], "QUICK=2: give QUICK=0|1"),
    (["bench-host", "MODE=fast"], "MODE=fast: give MODE=repeat|full"),
    (["bench-host", "MODE=repeat full"], "MODE=repeat full: give MODE=repeat|full"),
    (["xen-heap-test", "LONG=yes"], "LONG=yes: give LONG=0|1"),
    (["fuzz-cmdline", "QUICK=yes"], "QUICK=yes: give QUICK=0|1"),
])
def test_a_value_a_variable_does_not_take_fails_naming_those_it_does(args, message):
    r = make("-n", *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert "harness" not in r.stdout


@pytest.mark.parametrize("args,want,unwanted", [
    (["run"], "harness boot --mode pvh", "--gdb"),
    (["run"], "--hosted-beside", "bootheap.iso"),
    (["run", "BOOT=iso-uefi", "ARGS=runs=1"], '--mode iso-uefi --accel tcg --mem 8G --append "runs=1"',
     "--hosted-beside"),
    (["run", "GDB=1"], "--gdb --timeout 0", "--hosted-beside"),
    (["bench", "QUICK=1", "OPTS=--runs 2"], "harness run --quick --accel tcg  --runs 2", None),
    (["bench-host", "MODE=repeat"], "harness run --hosted --repeat", "--full"),
    (["bench-host", "MODE=full"], "harness run --hosted --full", "--repeat"),
    (["xen-heap-test", "LONG=1", "XEN_TREE=/x", "OPTS=--page"], "--sequences 102000 --seed 1000000", None),
    (["xen-heap-test", "LONG=1", "XEN_TREE=/x", "OPTS=--page"], "--tree /x  --page", None),
    (["xen-heap-test"], "harness xen-src heap-test", "--sequences"),
    (["mutants", "OPTS=heap-partly-dirty-at-head"], "tools.mutants  heap-partly-dirty-at-head", None),
])
def test_the_folded_targets_variables_reach_the_command(args, want, unwanted):
    r = make("-n", *args, "ACCEL=tcg")
    assert r.returncode == 0, r.stderr
    assert want in r.stdout, r.stdout[-2000:]
    assert unwanted is None or unwanted not in r.stdout.split("harness", 1)[-1]


def test_the_options_of_before_still_work_and_name_opts():
    r = make("-n", "binaries", "PEERS_ARGS=--sizes 1", "OPTS=--no-model")
    assert r.returncode == 0, r.stderr
    assert "harness binaries --sizes 1 --no-model" in r.stdout
    assert r.stdout.count("make: PEERS_ARGS is now OPTS (the old name still works)") == 1
    r = make("-n", "binaries")
    assert "is now OPTS" not in r.stdout


def test_fuzz_quick_is_make_test_s_bounded_run_from_fresh_seeds():
    r = make("-n", "fuzz-cmdline", "QUICK=1")
    assert r.returncode == 0, r.stderr
    assert "rm -rf build/fuzz/test-corpus-cmdline && mkdir -p build/fuzz/test-corpus-cmdline" in r.stdout
    assert "-max_total_time=10 build/fuzz/test-corpus-cmdline" in r.stdout
    r = make("-n", "fuzz-cmdline")
    assert "rm -rf" not in r.stdout and "-max_total_time=600 build/fuzz/corpus-cmdline" in r.stdout
