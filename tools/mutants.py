# SPDX-License-Identifier: MIT
"""`make mutants`: every patch of tests/mutants/ applied to a scratch copy of
the tree and run against the fast stages of `make test`, to see that the
tests catch the bug it plants.

A patch opens with `Mutant: what it breaks` and, when it changes nothing a
test could see, `Equivalent: why`; then the diff (git apply's format, a
few lines of context). Each mutant's copy is built (only what the patch
touches is rebuilt) and goes through the stages in this order, stopping at
the first that fails, which kills it:

  fuzz   each fuzz target whose binary the patch changed, from its seeds,
         with libFuzzer's seed 1 for a fixed number of runs (FUZZ_RUNS), so
         that the verdict is the same at any speed;
  unit   each unit test binary the patch changed;
  tools  tests/tools;
  hosted tests/hosted, less the tests that count instructions under
         callgrind (they measure, they do not check answers: HOSTED_SKIP)
         and, but for the unmutated tree, the host testers of Xen's heap
         code and of Linux's memory init, which only a mutant of a series
         (patches/xen/, patches/linux/) or of the Xen tester's own code
         (hosted/xenheap/, harness/real/xen/host/) meets: such a mutant goes through
         that tester's quick mode alone (SERIES_TESTS), and a mutant of
         Xen's RFC (patches/xen/staging/) through its test against stock
         staging alone, which BOOTHEAP_XEN_STAGING must name (unset, that
         test skips and the RFC's mutants survive).

A binary the patch left unchanged is the one the unmutated tree passed
with, so it is not run again. The unmutated tree goes through every stage
first; if it fails one, nothing is measured.

Fails (exit 1) when a patch no longer applies or builds (naming it), when a
mutant survives that is not listed as equivalent, when one listed as
equivalent is killed (its reason is wrong), or when a fuzz target kills no
mutant. With the whole set run, rewrites the generated part of
docs/testing-mutants.md (mutants_doc.PAGE) with the score, each mutant's
verdict, the time and the load.

Usage: python3 -m tools.mutants [--jobs N] [NAME ...]   (NAME: run only those),
from the top of the tree, as make mutants runs it."""
import argparse
import fnmatch
import glob
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from tools import mutants_doc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, "tests", "mutants")
PY = sys.executable
# libFuzzer runs per target: each target's seeds and what mutation finds
# from them in that many runs, the same inputs on every machine.
FUZZ_RUNS = {"bootinfo": 2000, "cmdline": 20000, "mapfile": 20000}
HOSTED_SKIP = ["--ignore=tests/hosted/test_counts.py", "--ignore=tests/hosted/test_xen_costs_counts.py",
               "--ignore=tests/hosted/test_ablation.py",
               "--deselect=tests/hosted/test_sizes.py::test_counts_join_the_report"]
# What a stage may take before its mutant counts as hung (so killed): far
# beyond what each takes on this project's machines under load.
STAGE_LIMIT = 900
# The build's outputs a scratch copy needs; the rest of build/ (the real binaries'
# downloads, Xen's source trees, fresh Debian trees, logs, the pattern files
# of guest RAM) stays behind.
BUILD_SKIP = ("mutants", "fresh", "binaries", "peers", "xen-src", "linux-src", "test-logs", "isodir", "bootheap.iso", "guest-ram")
# Of those, what a copy gets hard links to: Debian's Xen and Linux source
# downloads, and the Linux host tester's prepared objects, which the host
# testers read (tests/hosted/test_xen_heap.py, test_linux_host.py).
BUILD_LINKED = (os.path.join("xen-src", "dl"), os.path.join("linux-src", "dl"), os.path.join("linux-src", "host-*"))
# And a symbolic link to: the Linux source unpacked, 1.6 GB that no test writes.
BUILD_SHARED = (os.path.join("linux-src", "tree-*"),)
# A mutant of a series, or of a host tester's own code, meets only that
# tester's quick mode: the first entry whose prefixes hold every file it
# touches. Xen's RFC (patches/xen/staging/) is held to stock staging by one
# test of its own, which needs BOOTHEAP_XEN_STAGING (a stock checkout).
XEN_HEAP_TEST = "tests/hosted/test_xen_heap.py"
LINUX_HOST_TEST = "tests/hosted/test_linux_host.py"
SERIES_TESTS = (
    (("patches/xen/staging/",),
     [XEN_HEAP_TEST + "::test_the_rfc_equals_stock_staging_in_every_case_the_tester_reaches"]),
    (("patches/xen/", "hosted/xenheap/", "harness/real/xen/host/heap.py"), [XEN_HEAP_TEST]),
    (("patches/linux/7.1/",), ["tests/linux/test_linux_71_host.py"]),
    (("patches/linux/",), [LINUX_HOST_TEST]),
)


class Mutant:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".patch")]
        text = open(path).read()
        head = text.split("\ndiff --git ", 1)[0]
        fields = dict(re.findall(r"^(Mutant|Equivalent|Needs): (.*)$", head, re.M))
        self.what = fields.get("Mutant")
        self.equivalent = fields.get("Equivalent")
        # Needs: VARIABLE (what it names): a tree only a path can give, which CI has not.
        self.needs = fields.get("Needs")
        self.files = re.findall(r"^\+\+\+ b/(\S+)", text, re.M)
        self.verdict, self.by, self.detail, self.seconds = None, "", "", 0.0


def make_vars(root):
    """FUZZ_TARGETS and each target's libFuzzer options, read from the Makefile."""
    text = open(os.path.join(root, "Makefile")).read()
    targets = re.search(r"^FUZZ_TARGETS := (.*)$", text, re.M).group(1).split()
    opts = {}
    for t in targets:
        maxlen = re.search(rf"^FUZZ_MAXLEN_{t} := (\d+)", text, re.M).group(1)
        corpus = re.search(rf"^FUZZ_CORPUS_{t} := (\S+)", text, re.M).group(1)
        extra = re.search(rf"^FUZZ_RUN_{t} := (.*)$", text, re.M)
        opts[t] = (corpus, [f"-max_len={maxlen}"] + (extra.group(1).split() if extra else []))
    return targets, opts


def run(cmd, cwd, log, limit=STAGE_LIMIT):
    """(exit status, or None when it ran past limit), its output going to log."""
    with open(log, "ab") as out:
        out.write(f"\n$ {' '.join(cmd)}\n".encode())
        out.flush()
        try:
            return subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=limit).returncode
        except subprocess.TimeoutExpired:
            return None


def why(log, pattern, since=0):
    """For the verdict: the first line of log from byte since that matches
    pattern, after the name of the cmocka test running then, if any."""
    with open(log, "rb") as f:
        f.seek(since)
        lines = f.read().decode(errors="replace").splitlines()
    test = ""
    for line in lines:
        if line.startswith("$ "):
            continue                    # the command, as run() wrote it
        running = re.match(r"\[ RUN +\] (\w+)", line)
        if running:
            test = running.group(1)
        elif re.search(pattern, line):
            return (f"{test}: " if test else "") + line.strip()[:160]
    return ""


def size(log):
    return os.path.getsize(log) if os.path.exists(log) else 0


def snapshot(root, dest):
    """The tree as it stands (tracked and new files) and the build's outputs,
    times kept: every copy is made from this one, so edits made to the tree
    while the run lasts reach none of them."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root,
                            capture_output=True, check=True).stdout.split(b"\0")
    for rel in (p.decode() for p in listed if p):
        src = os.path.join(root, rel)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel))
    build = os.path.join(root, "build")
    # Fuzzing's work corpora and crash files are a run's own, not the build's.
    skip = shutil.ignore_patterns("test-corpus-*", "corpus-*", "crash-*", "mutant-corpus-*")
    os.makedirs(os.path.join(dest, "build"), exist_ok=True)
    for entry in sorted(os.listdir(build)):
        src, dst = os.path.join(build, entry), os.path.join(dest, "build", entry)
        if entry in BUILD_SKIP:
            continue
        if os.path.isdir(src):
            shutil.copytree(src, dst, symlinks=True, ignore=skip)
        else:
            shutil.copy2(src, dst)
    for pattern in BUILD_LINKED:
        for src in glob.glob(os.path.join(build, pattern)):
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(dest, "build", os.path.relpath(src, build)),
                                symlinks=True, copy_function=os.link)
    for pattern in BUILD_SHARED:
        for src in glob.glob(os.path.join(build, pattern)):
            os.makedirs(os.path.dirname(os.path.join(dest, "build", os.path.relpath(src, build))), exist_ok=True)
            os.symlink(src, os.path.join(dest, "build", os.path.relpath(src, build)))


def binaries(tree):
    """{path: mtime} of the unit and fuzz binaries."""
    out = {}
    for sub, prefix in (("unit", "test_"), ("fuzz", "fuzz_")):
        d = os.path.join(tree, "build", sub)
        for f in sorted(os.listdir(d)):
            p = os.path.join(d, f)
            if f.startswith(prefix) and os.path.isfile(p) and os.access(p, os.X_OK):
                out[p] = os.stat(p).st_mtime_ns
    return out


def likely_first(binaries, files):
    """The unit tests in the order to try them: those named like a folder or
    a word of a file the patch touches first (test_heap for mm/heap_alloc.c,
    test_peers for mm/peers/linux/buddy.c). Only the time to a kill depends
    on it, never the verdict."""
    words = {w for f in files for part in os.path.splitext(f)[0].split("/") for w in part.split("_")}
    return sorted(binaries, key=lambda b: not set(os.path.basename(b)[5:].split("_")) & words)


def stages(tree, log, changed, targets, fuzz_opts, jobs, files=()):
    """Runs the stages on tree in order; returns (stage, detail) of the first
    that fails, or None. changed: the binaries to run (None: all); files:
    what the patch touches. The kernel and the hosted runners are built
    before the Python stages."""
    def picked(path):
        return changed is None or path in changed
    for prefixes, tests in SERIES_TESTS:
        if files and all(f.startswith(prefixes) for f in files):
            since = size(log)
            rc = run([PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests], tree, log)
            if rc != 0:
                return f"{'xen' if tests[0].startswith(XEN_HEAP_TEST) else 'linux'} host tester", \
                    why(log, r"^FAILED|^ERROR|differs from|failed \(exit|^E +seed \d+: ", since) \
                    if rc is not None else "ran out of time"
            return None
    for t in targets:
        binary = os.path.join(tree, "build", "fuzz", f"fuzz_{t}")
        if not picked(binary):
            continue
        corpus, opts = fuzz_opts[t]
        work = os.path.join(tree, "build", "fuzz", f"mutant-corpus-{t}")
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(os.path.join(tree, corpus), work)
        since = size(log)
        rc = run([binary, "-seed=1", f"-runs={FUZZ_RUNS[t]}", "-timeout=60", *opts,
                  f"-artifact_prefix={work}/crash-", work], tree, log)
        if rc != 0:
            return f"fuzz_{t}", why(log, r"invariant broken|ERROR: ", since) if rc else "ran out of time"
    unit = likely_first(sorted(p for p in binaries(tree) if "/unit/" in p and picked(p)), files)
    for binary in unit:
        since = size(log)
        rc = run([binary], tree, log)
        if rc != 0:
            return f"unit ({os.path.basename(binary)})", why(log, r"^\[  (FAILED|ERROR)|ERROR: |panic|runtime error", since) \
                if rc is not None else "ran out of time"
    since = size(log)
    if build(tree, log, jobs, "all", "hosted", "hosted-tsan") != 0:
        return "build", f"the kernel or the hosted runners no longer build ({why(log, 'error', since)})"
    pytest = [PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
    # Xen's and Linux's own code are the series' to break: the other mutants leave them be.
    hosted = HOSTED_SKIP + ([f"--ignore={t}" for t in (XEN_HEAP_TEST, LINUX_HOST_TEST)] if files else [])
    for stage, args in (("tools", ["tests/tools"]), ("hosted", ["-n", str(jobs), "tests/hosted", *hosted])):
        since = size(log)
        rc = run(pytest + args, tree, log)
        if rc != 0:
            return stage, why(log, r"^FAILED|^ERROR", since) if rc is not None else "ran out of time"
    return None


def build(tree, log, jobs, *goals):
    return run(["make", f"-j{jobs}", "--no-print-directory", "-s", *goals], tree, log)


def copy(base, dest):
    def link_downloads(src, dst):
        inside = os.path.relpath(src, os.path.join(base, "build"))
        if any(fnmatch.fnmatch(inside, os.path.join(rel, "*")) for rel in BUILD_LINKED):
            return os.link(src, dst)
        return shutil.copy2(src, dst)
    shutil.copytree(base, dest, symlinks=True, copy_function=link_downloads)


def try_mutant(m, scratch, targets, fuzz_opts, jobs):
    t0 = time.monotonic()
    if m.needs and not os.environ.get(m.needs.split()[0]):
        var, _, what = m.needs.partition(" ")
        m.verdict, m.detail = "not run", f"{var} is not set {what}".rstrip()
        return m
    tree = os.path.join(scratch, m.name)
    log = tree + ".log"
    copy(os.path.join(scratch, "base"), tree)
    before = binaries(tree)
    if run(["git", "apply", m.path], tree, log) != 0:
        m.verdict, m.detail = "stale", f"no longer applies ({why(log, 'error')})"
    elif build(tree, log, 1, *(os.path.relpath(p, tree) for p in before)) != 0:
        m.verdict, m.detail = "stale", f"no longer builds ({why(log, 'error')})"
    else:
        after = binaries(tree)
        changed = {p for p, t in after.items() if before.get(p) != t}
        hit = stages(tree, log, changed, targets, fuzz_opts, 1, m.files)
        m.verdict = "stale" if hit and hit[0] == "build" else "killed" if hit else "survived"
        m.by, m.detail = hit or ("", "")
    m.seconds = time.monotonic() - t0
    if m.verdict != "stale":
        shutil.rmtree(tree, ignore_errors=True)
    return m


class Load:
    """The one-minute load average, sampled every 10 s while the run lasts."""

    def __init__(self):
        self.samples = [os.getloadavg()[0]]
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self):
        while not self.done.wait(10):
            self.samples.append(os.getloadavg()[0])

    def stop(self):
        self.done.set()
        self.samples.append(os.getloadavg()[0])
        return min(self.samples), max(self.samples)


IN_RUN = "BOOTHEAP_MUTANTS_RUN"     # set in the stages a run of make mutants starts


def unusable(mutants, root=ROOT):
    """What stops these mutants from being tried: a patch that no longer
    applies to the tree, or one with no 'Mutant:' line or no diff."""
    out = []
    for m in mutants:
        p = subprocess.run(["git", "apply", "--check", m.path], cwd=root, capture_output=True, text=True)
        if p.returncode:
            out.append(f"tests/mutants/{m.name}.patch no longer applies: {p.stderr.strip()}")
        if not m.what or not m.files:
            out.append(f"tests/mutants/{m.name}.patch has no 'Mutant:' line or no diff")
    return out


def all_mutants():
    return [Mutant(os.path.join(MUTANTS, f)) for f in sorted(os.listdir(MUTANTS)) if f.endswith(".patch")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="mutants tried at once (default: 2, or 1 on one CPU)")
    ap.add_argument("names", nargs="*", help="run only these mutants")
    args = ap.parse_args(argv)
    mutants = all_mutants()
    if args.names:
        unknown = set(args.names) - {m.name for m in mutants}
        if unknown:
            print(f"make mutants: no such mutant: {', '.join(sorted(unknown))}")
            return 1
        mutants = [m for m in mutants if m.name in args.names]
    stale = unusable(mutants)
    if stale:
        print("\n".join(stale) + "\nmake mutants: FAILED before running anything: rework or remove those patches")
        return 1

    # The stages' own check that every mutant applies (test_mutants_snapshot.py)
    # would fail in a tree a mutant is applied to: it was made above.
    os.environ[IN_RUN] = "1"
    targets, fuzz_opts = make_vars(ROOT)
    load, t0 = Load(), time.monotonic()
    scratch = tempfile.mkdtemp(prefix="bootheap-mutants-")
    print(f"make mutants: {len(mutants)} mutants, {args.jobs} at a time, in {scratch}", flush=True)
    snapshot(ROOT, os.path.join(scratch, "base"))
    tested = mutants_doc.commit(ROOT)
    base = os.path.join(scratch, "unmutated")
    copy(os.path.join(scratch, "base"), base)
    hit = stages(base, base + ".log", None, targets, fuzz_opts, args.jobs)
    if hit:
        print(f"make mutants: FAILED: the unmutated tree fails {hit[0]}: {hit[1]} (log: {base}.log)")
        return 1
    shutil.rmtree(base)
    print(f"  the unmutated tree passes every stage ({time.monotonic() - t0:.0f} s)", flush=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for m in pool.map(lambda m: try_mutant(m, scratch, targets, fuzz_opts, 1), mutants):
            said = mutants_doc.killed_by(m) if m.verdict == "killed" else m.detail
            print(f"  {m.verdict:9} {m.name:40} {said} ({m.seconds:.0f} s)", flush=True)
    wall, (lo, hi) = time.monotonic() - t0, load.stop()

    problems = mutants_doc.problems(mutants, targets)
    print("\n" + mutants_doc.summary(mutants, wall, lo, hi, args.jobs))
    for p in problems:
        print(f"  {p}")
    if not args.names:
        mutants_doc.write(os.path.join(ROOT, mutants_doc.PAGE), mutants, targets, wall, lo, hi, args.jobs,
                          tested)
    if not problems:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"make mutants: {'PASSED' if not problems else 'FAILED'} in {wall:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
