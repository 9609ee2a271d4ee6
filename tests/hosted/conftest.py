# SPDX-License-Identifier: MIT
"""Fixtures for the hosted runner's tests: running build/bootheap-host and
reading its records."""
import json
import os
import subprocess
import sys

import pytest

from harness import ROOT
from harness.hosted.runner import RUNNER


class Run:
    """One finished run: exit status, stdout, stderr and the records."""

    def __init__(self, args, p):
        self.args, self.rc, self.out, self.err = args, p.returncode, p.stdout, p.stderr
        self.records = [json.loads(line) for line in self.out.splitlines()
                        if line.startswith('{"type":')]

    def of(self, rtype):
        return [r for r in self.records if r["type"] == rtype]

    def one(self, rtype):
        recs = self.of(rtype)
        assert len(recs) == 1, f"expected one {rtype} record, found {len(recs)}\n{self}"
        return recs[0]

    def __str__(self):
        tail = "\n".join(self.out.splitlines()[-15:])
        return f"bootheap-host {' '.join(self.args)}: exit {self.rc}\n{tail}\nstderr: {self.err[-800:]}"


@pytest.fixture(scope="session")
def runner():
    """Runs the runner with args under a hang guard; returns a Run."""
    if not os.access(RUNNER, os.X_OK):
        pytest.fail(f"{RUNNER} is missing: run `make hosted`")

    def run(*args, timeout=300, prefix=()):
        p = subprocess.run([*prefix, RUNNER, *args], capture_output=True, text=True,
                           timeout=timeout, cwd=ROOT)
        return Run(list(args), p)
    return run


@pytest.fixture(scope="session")
def harness_hosted():
    """Runs `python3 -m harness hosted` with args under a hang guard; returns a Run."""
    if not os.access(RUNNER, os.X_OK):
        pytest.fail(f"{RUNNER} is missing: run `make hosted`")

    def run(*args, timeout=300):
        p = subprocess.run([sys.executable, "-m", "harness", "hosted", *args], capture_output=True,
                           text=True, timeout=timeout, cwd=ROOT)
        return Run(list(args), p)
    return run
