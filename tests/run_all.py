#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`make test`: host unit tests, a bounded fuzzing run, the host-tool tests,
the hosted runner's tests, then the QEMU boot tests. Ends with one summary
line; exits non-zero when any stage fails, or when a stage's tests are
missing from the tree. Tests that ended inconclusive (no clean samples:
neither passed nor failed, tests/boot/bootlib.py) are listed before it."""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
INCONCLUSIVE = os.path.join("build", "test-logs", "inconclusive.jsonl")


def stages(jobs):
    """(name, the folder its tests live in, command)."""
    pytest = [PY, "-m", "pytest", "-q", "-rs"]
    return [
        ("unit", "tests/unit", ["make", "--no-print-directory", "test-unit"]),
        ("fuzz", "tests/fuzz", ["make", "--no-print-directory", "fuzz", "QUICK=1"]),
        ("host tools", "tests/tools", pytest + ["tests/tools"]),
        ("hosted", "tests/hosted", pytest + ["-n", jobs, "tests/hosted"]),
        ("boot", "tests/boot", pytest + ["-n", jobs, "--durations=5", "tests/boot"]),
    ]


def stage(root, name, folder, cmd, call=subprocess.call):
    print(f"\n==== {name}: {' '.join(cmd)}", flush=True)
    t = time.monotonic()
    if not os.path.isdir(os.path.join(root, folder)):
        print(f"==== {name}: FAILED: {folder} is missing, so its tests cannot run", flush=True)
        return name, False, 0.0
    rc = call(cmd, cwd=root)
    dt = time.monotonic() - t
    print(f"==== {name}: {'ok' if rc == 0 else 'FAILED'} ({dt:.0f} s)", flush=True)
    return name, rc == 0, dt


def inconclusive(root):
    """[{test, why}] noted by this run's tests."""
    try:
        with open(os.path.join(root, INCONCLUSIVE)) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def main(root=ROOT, call=subprocess.call):
    jobs = os.environ.get("TEST_JOBS", str(min(2, os.cpu_count() or 1)))
    try:
        os.remove(os.path.join(root, INCONCLUSIVE))
    except FileNotFoundError:
        pass
    start = time.monotonic()
    results = [stage(root, name, folder, cmd, call) for name, folder, cmd in stages(jobs)]
    total = time.monotonic() - start
    failed = [n for n, ok, _ in results if not ok]
    parts = ", ".join(f"{n} {'ok' if ok else 'FAILED'}" for n, ok, _ in results)
    unsure = inconclusive(root)
    if unsure:
        print(f"\n{len(unsure)} inconclusive (no clean samples on this host; neither passed nor "
              f"failed), from {INCONCLUSIVE}:")
        for u in unsure:
            print(f"  {u['test']}: {u['why']}")
    print(f"\nmake test: {'PASSED' if not failed else 'FAILED'} in {total:.0f} s ({parts})"
          + (f"; {len(unsure)} inconclusive" if unsure else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
