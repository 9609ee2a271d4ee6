# SPDX-License-Identifier: MIT
"""Shared checks for the QEMU boot tests: boots through harness.qemu, KTAP
parsing, and memory-map arithmetic done independently of the kernel."""
import json
import os
import re

from harness import ROOT, qemu

PAGE = 4096
E820_RAM = 1


def boot(mode="pvh", mem="512M", append="", accel=None, timeout=240, **kw):
    """Boots quietly and returns harness.qemu's Result; the serial log is
    kept under build/test-logs/ for a failing test to point at. The
    accelerator is BOOTHEAP_ACCEL's (`make test ACCEL=...`) unless a test
    names one; a guest silent for BOOTHEAP_STALL seconds ends as 'stalled'."""
    accel = accel or qemu.default_accel()
    logdir = os.path.join(ROOT, "build", "test-logs")
    os.makedirs(logdir, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{mode}-{mem}-{append}")[:120]
    r = qemu.boot(mode=mode, mem=mem, append=append, accel=accel, timeout=timeout,
                  quiet=True, log_path=os.path.join(logdir, name + ".log"), **kw)
    note_silence(logdir, name, r)
    return r


def note_silence(logdir, name, r):
    """Appends the boot's longest serial silence to build/test-logs/silences.jsonl:
    the figures the default stall limit (harness/qemu.py) is chosen from."""
    gap, after = r.max_gap()
    with open(os.path.join(logdir, "silences.jsonl"), "a") as f:
        f.write(json.dumps({"log": name, "status": r.status, "accel": r.accel,
                            "elapsed_s": round(r.elapsed, 2), "max_gap_s": round(gap, 2),
                            "before": (after or "")[:100]}) + "\n")


def explain(r):
    """Last lines of the log, for assertion messages."""
    stalled = f" (no serial output for {r.stall:g} s)" if r.status == "stalled" else ""
    return (f"status={r.status}{stalled} qemu_rc={r.qemu_rc} accel={r.accel}\n"
            f"--- serial tail ---\n{r.tail()}")


def record(r, rtype):
    """The single record of a type; fails if it is missing or repeated."""
    recs = [x for x in r.records() if x["type"] == rtype]
    assert len(recs) == 1, f"expected one {rtype!r} record, found {len(recs)}\n" + explain(r)
    return recs[0]


def records(r, rtype):
    return [x for x in r.records() if x["type"] == rtype]


def ktap(log):
    """Parses KTAP version 1 from a log: (plan, [(ok, number, name, directive)])."""
    lines = log.splitlines()
    try:
        start = lines.index("KTAP version 1")
    except ValueError:
        return None, []
    plan, results = None, []
    for line in lines[start + 1:]:
        m = re.fullmatch(r"1\.\.(\d+)", line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = re.fullmatch(r"(not ok|ok) (\d+) (\S+)(?: # (.*))?", line)
        if m:
            results.append((m.group(1) == "ok", int(m.group(2)), m.group(3), m.group(4) or ""))
    return plan, results


def assert_ktap_ok(r, min_tests=1):
    """Fails on a missing or short plan, any 'not ok', a panic or a timeout."""
    assert r.status != "timeout", "boot timed out\n" + explain(r)
    assert "panic:" not in r.log, "kernel panicked\n" + explain(r)
    plan, results = ktap(r.log)
    assert plan is not None, "no KTAP plan\n" + explain(r)
    assert plan >= min_tests, f"KTAP plan {plan} is below the {min_tests} tests expected\n" + explain(r)
    assert len(results) == plan, f"KTAP plan says {plan}, {len(results)} results\n" + explain(r)
    assert [n for _, n, _, _ in results] == list(range(1, plan + 1)), "KTAP numbering broken"
    bad = [name for ok, _, name, _ in results if not ok]
    assert not bad, f"self-tests failed: {bad}\n" + explain(r)
    assert r.status == "ok", "self-tests passed but the run did not exit ok\n" + explain(r)
    return results


def ram_pages_in(entries):
    """Whole pages of type-1 RAM in a raw map, overlaps with other types and
    with each other resolved, the first MiB excluded - computed here without
    the kernel's sanitiser."""
    points = sorted({e["addr"] for e in entries} | {e["addr"] + e["len"] for e in entries})
    total = 0
    for lo, hi in zip(points, points[1:]):
        covering = [e["type"] for e in entries if e["addr"] <= lo and e["addr"] + e["len"] >= hi]
        if covering and all(t == E820_RAM for t in covering):
            total += hi - lo
    return total


def usable_ram_ranges(entries):
    """Sorted, merged [start, end) byte ranges that are RAM and nothing else."""
    points = sorted({e["addr"] for e in entries} | {min(e["addr"] + e["len"], 2**64) for e in entries})
    out = []
    for lo, hi in zip(points, points[1:]):
        covering = [e["type"] for e in entries if e["addr"] <= lo and e["addr"] + e["len"] >= hi]
        if covering and all(t == E820_RAM for t in covering):
            if out and out[-1][1] == lo:
                out[-1][1] = hi
            else:
                out.append([lo, hi])
    return out
