# SPDX-License-Identifier: MIT
"""Real threads racing in the parallel heap build: the hosted runner built
under ThreadSanitizer (`make hosted-tsan`) runs the eager strategies and the
floor on two threads, and the sanitiser must report nothing. The splice
into the shared node lists is the one place the workers meet; with its lock
taken out the sanitiser reports a data race there and this test fails."""
import json
import os
import subprocess

import pytest

from harness import ROOT
from harness.results import oracle

TSAN_RUNNER = os.path.join(ROOT, "build", "bootheap-host-tsan")
TSAN_OBJ = os.path.join(ROOT, "build", "hosted-tsan", "k", "mm", "heap_par.o")


@pytest.fixture(scope="module")
def tsan_runner():
    if not os.access(TSAN_RUNNER, os.X_OK):
        pytest.fail(f"{TSAN_RUNNER} is missing: run `make hosted-tsan`")
    return TSAN_RUNNER


def test_the_parallel_init_is_instrumented(tsan_runner):
    # Every load and store of the heap code goes through the sanitiser: a
    # build that lost -fsanitize=thread would pass the race test for nothing.
    calls = subprocess.run(["nm", "-u", TSAN_OBJ], capture_output=True, text=True, check=True).stdout
    assert "__tsan_write8" in calls and "__tsan_read8" in calls, calls


def run_without_a_race(tsan_runner, tmp_path, args):
    """The sanitised runner with args: its records, after no race report and a clean exit."""
    env = dict(os.environ, TSAN_OPTIONS=f"exitcode=66 halt_on_error=0 log_path={tmp_path}/tsan")
    p = subprocess.run([tsan_runner, *args], capture_output=True, text=True, timeout=600, cwd=ROOT,
                       env=env)
    reports = "".join(open(tmp_path / f).read() for f in os.listdir(tmp_path))
    assert "ThreadSanitizer" not in reports + p.stderr, reports[:4000] + p.stderr[-2000:]
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith('{"type":')]


def test_two_threads_build_the_heap_without_a_race(tsan_runner, tmp_path):
    recs = run_without_a_race(tsan_runner, tmp_path, ["--mem", "3G", "--cpus", "2", "runs=1",
                                                      "strategies=page,chunk,sweep", "audit_blocks=4096"])
    # Both threads built pieces of every eager heap.
    par = [x for x in recs if x["type"] == "par"]
    assert sorted(x["strategy"] for x in par) == ["chunk", "page", "sweep"], par
    for x in par:
        assert [w["cpu"] for w in x["workers"]] == [0, 1] and all(w["pages"] for w in x["workers"]), x
    audits = [x for x in recs if x["type"] == "audit"]
    assert [a["cpus"] for a in audits] == [2, 2, 2] and all(a["ok"] for a in audits), audits
    assert oracle.check_records(recs) == []


def test_the_peers_later_parts_run_without_a_race(tsan_runner, tmp_path):
    # Linux's deferred init on the threads of two nodes (a padata job per
    # node, chunks taken under the job's lock, every free under its zone's
    # lock) and FreeBSD's drain on the second thread.
    recs = run_without_a_race(tsan_runner, tmp_path, ["--mem", "3G", "--cpus", "2", "runs=1", "numa_fake=2",
                                                      "strategies=linux_deferred,freebsd_lazy"])
    later = {x["strategy"]: x for x in recs if x["type"] == "result" and x["phase"] in ("deferred", "drain")}
    assert later["linux_deferred"]["cpus"] == 2 and later["freebsd_lazy"]["cpus"] == 1, later
    deferred = next(x for x in recs if x["type"] == "peer" and x["strategy"] == "linux_deferred")
    assert [n["node"] for n in deferred["nodes"]] == [0, 1], deferred
    audits = [x for x in recs if x["type"] == "audit"]
    assert len(audits) == 2 and all(a["ok"] for a in audits) and len({a["page_digest"] for a in audits}) == 1
