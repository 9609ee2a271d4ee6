# SPDX-License-Identifier: MIT
"""`make run` under TCG ends with two answers, each labelled: the emulated
boot's, then the hosted runner's at the same size on this CPU (harness
boot --hosted-beside); a boot that is not emulated, or not asked, ends as
before."""
import subprocess
import sys

from bootlib import ROOT


def boot_cli(*args):
    p = subprocess.run([sys.executable, "-m", "harness", "boot", "--mode", "pvh", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def test_an_emulated_run_ends_with_this_cpus_answer():
    rc, out, err = boot_cli("--accel", "tcg", "--mem", "256M", "--append", "runs=2", "--hosted-beside")
    assert rc == 0, err[-2000:]
    tail = out[out.index("The answer, twice (emulated, then real):"):].splitlines()
    assert tail[1].strip().startswith("emulated: chunked init is ") and "(TCG, emulated:" in tail[1], tail
    assert tail[2].strip().startswith("this CPU: chunked init is ") and "; hosted, real: this CPU" in tail[2], tail
    assert "at 0.25 GiB" in tail[1] and "at 0.25 GiB" in tail[2]
    assert "bootheap-host --mem 256M runs=2 strategies=page,chunk" in err


def test_without_the_flag_a_run_ends_as_before():
    rc, out, err = boot_cli("--accel", "tcg", "--mem", "256M", "--append", "runs=1 strategies=chunk")
    assert rc == 0, err[-2000:]
    assert "The answer, twice" not in out and "bootheap-host" not in err
