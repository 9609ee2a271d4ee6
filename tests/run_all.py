#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`make test`: host unit tests, a bounded fuzzing run, the host-tool tests,
the hosted runner's tests, then the QEMU boot tests. Ends with one summary
line; exits non-zero when any stage fails, when a stage's tests are
missing from the tree, or when a test skipped for want of something that
`make setup` installs (a package of tools/host-files.txt, or one of its
files, named in the skip's reason as missing), or would install once
listed there ("X is not installed"). Tests that ended
inconclusive (no clean samples: neither passed nor failed,
tests/boot/bootlib.py) are listed before the summary, as are those skips."""
import glob
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
LOGS = os.path.join("build", "test-logs")
INCONCLUSIVE = os.path.join(LOGS, "inconclusive.jsonl")
HOST_FILES = os.path.join("tools", "host-files.txt")
# The words of a skip's reason that may name a package, a command or a
# path; and what, said right after such a word or right before it, makes
# it missing: "cpio is not installed", "valgrind not found", "PATH: no such
# file", "no valgrind", "(Debian package valgrind)".
WORD = re.compile(r"[\w/+-][\w./+-]*")
AFTER = re.compile(r"[`'\")]*(?:\s+(?:is\s+)?(?:not\s+installed|missing|not\s+found)|:\s+no\s+such\s+file)\b", re.I)
BEFORE = re.compile(r"\b(?:no|install|package|needs?|requires?)\s+[`'\"(]*$", re.I)
# What the tests say of a package that is not there, listed or not.
NOT_INSTALLED = re.compile(r"[`'\"]?([\w.+-]+)[`'\"]? is not installed", re.I)


def junit(folder):
    """Where a pytest stage writes its JUnit XML report, which holds its skips' reasons."""
    return os.path.join(LOGS, f"junit-{os.path.basename(folder)}.xml")


def stages(jobs):
    """(name, the folder its tests live in, command)."""
    def pytest(folder, *args):
        return [PY, "-m", "pytest", "-q", "-rs", f"--junitxml={junit(folder)}", *args, folder]
    return [
        ("unit", "tests/unit", ["make", "--no-print-directory", "test-unit"]),
        ("fuzz", "tests/fuzz", ["make", "--no-print-directory", "fuzz", "QUICK=1"]),
        ("host tools", "tests/tools", pytest("tests/tools")),
        ("hosted", "tests/hosted", pytest("tests/hosted", "-n", jobs)),
        ("boot", "tests/boot", pytest("tests/boot", "-n", jobs, "--durations=5")),
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


def installable(host_files):
    """{name: Debian package} of what `make setup` installs, from
    tools/host-files.txt: each package by its name, and each of its files by
    path and by file name (/usr/bin/valgrind, valgrind); a folder (ending /)
    by its path, which covers every path under it. The kinds in parentheses,
    (kernel) and the like, no package provides."""
    names = {}
    with open(host_files) as f:
        for line in f:
            cols = line.split()
            if line.startswith("#") or len(cols) < 2 or cols[1].startswith("("):
                continue
            path, package = cols[0], cols[1]
            names[package] = package
            names[path] = package
            names[os.path.basename(path.rstrip("/"))] = package
    return names


def for_want_of(reason, names):
    """The package of `names` (installable()) that a skip's reason says is
    missing, or None: a word of the reason that names the package, one of
    its commands or files, or a path under one of its folders, and says it
    is missing right after it or right before it (AFTER, BEFORE). "X is not
    installed" with X on no line of the list -> "X, not in HOST_FILES":
    make setup would install it once listed."""
    for m in WORD.finditer(reason):
        word = m.group().rstrip(".")
        package = names.get(word) or next((names[p] for p in names if p.endswith("/") and word.startswith(p)), None)
        if package and (AFTER.match(reason, m.start() + len(word)) or BEFORE.search(reason, 0, m.start())):
            return package
    m = NOT_INSTALLED.search(reason)
    return f"{m.group(1)}, not in {HOST_FILES}" if m else None


def skipped(report):
    """[(test, reason)] of every test a pytest JUnit XML report says skipped (xfails aside)."""
    try:
        tree = ET.parse(report)
    except (FileNotFoundError, ET.ParseError):
        return []
    return [(f"{case.get('classname')}::{case.get('name')}", s.get("message", ""))
            for case in tree.iter("testcase") for s in case.findall("skipped")
            if s.get("type", "pytest.skip") == "pytest.skip"]


def wanting(reports, names):
    """[(test, reason, package)] of every skip in the reports for want of what make setup installs."""
    out = []
    for report in reports:
        for test, reason in skipped(report):
            package = for_want_of(reason, names)
            if package:
                out.append((test, reason, package))
    return out


def inconclusive(root):
    """[{test, why}] noted by this run's tests."""
    try:
        with open(os.path.join(root, INCONCLUSIVE)) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def main(root=ROOT, call=subprocess.call):
    jobs = os.environ.get("TEST_JOBS", str(min(2, os.cpu_count() or 1)))
    for old in [os.path.join(root, INCONCLUSIVE)] + glob.glob(os.path.join(root, junit("*"))):
        try:
            os.remove(old)
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
    wanted = wanting(sorted(glob.glob(os.path.join(root, junit("*")))),
                     installable(os.path.join(root, HOST_FILES)))
    if wanted:
        print(f"\n{len(wanted)} skipped for want of a package, which `make setup` installs (one not yet "
              f"in {HOST_FILES} once listed there):")
        for test, reason, package in wanted:
            print(f"  {test}: {reason} (Debian package {package})")
    print(f"\nmake test: {'PASSED' if not failed and not wanted else 'FAILED'} in {total:.0f} s ({parts})"
          + (f"; {len(unsure)} inconclusive" if unsure else "")
          + (f"; {len(wanted)} skipped for want of a package" if wanted else ""))
    return 1 if failed or wanted else 0


if __name__ == "__main__":
    sys.exit(main())
