#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`make test`: host unit tests, a bounded fuzzing run, the host-tool tests,
the hosted runner's tests, then the QEMU boot tests. Ends with one summary
line; exits non-zero when any stage fails."""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable


def stage(name, cmd):
    print(f"\n==== {name}: {' '.join(cmd)}", flush=True)
    t = time.monotonic()
    rc = subprocess.call(cmd, cwd=ROOT)
    dt = time.monotonic() - t
    print(f"==== {name}: {'ok' if rc == 0 else 'FAILED'} ({dt:.0f} s)", flush=True)
    return name, rc == 0, dt


def main():
    jobs = os.environ.get("TEST_JOBS", str(min(2, os.cpu_count() or 1)))
    stages = [
        ("unit", ["make", "--no-print-directory", "test-unit"]),
        ("fuzz", ["make", "--no-print-directory", "test-fuzz"]),
        ("host tools", [PY, "-m", "pytest", "-q", "tests/tools"]),
        ("hosted", [PY, "-m", "pytest", "-q", "-n", jobs, "tests/hosted"]),
        ("boot", [PY, "-m", "pytest", "-q", "-n", jobs, "--durations=5", "tests/boot"]),
    ]
    results = []
    start = time.monotonic()
    for name, cmd in stages:
        if name == "host tools" and not os.path.isdir(os.path.join(ROOT, "tests", "tools")):
            continue
        results.append(stage(name, cmd))
    total = time.monotonic() - start
    failed = [n for n, ok, _ in results if not ok]
    parts = ", ".join(f"{n} {'ok' if ok else 'FAILED'}" for n, ok, _ in results)
    print(f"\nmake test: {'PASSED' if not failed else 'FAILED'} in {total:.0f} s ({parts})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
