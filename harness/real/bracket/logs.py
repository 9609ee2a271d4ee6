# SPDX-License-Identifier: MIT
"""What the real binaries' serial logs say: Xen's and Linux's own lines
around their heap hand-over, and bootheap's records under -icount. Every
parser names what is missing rather than returning a partial answer."""
import re

from harness.results.records import parse_serial


class LogError(Exception):
    """A log that lacks what a bracket needs (a truncated or failed boot)."""


def _tail(log, n=12):
    return "\n".join(log.rstrip().splitlines()[-n:])


# ---- Xen --------------------------------------------------------------------

XEN_LINE = re.compile(r"^\(XEN\) \[\s*([0-9a-f]{16}|[0-9]+\.[0-9]+)\] (.*)$")


def xen_lines(log):
    """[(stamp, text)] of Xen's time-stamped lines. Before Xen knows its TSC
    rate, `console_timestamps=boot` prints the raw TSC in hex (an exact
    instruction count under -icount); after, seconds: those become None."""
    out = []
    for raw in log.splitlines():
        m = XEN_LINE.match(raw.rstrip("\r"))
        if m:
            s = m.group(1)
            out.append((int(s, 16) if len(s) == 16 and "." not in s else None, m.group(2)))
    return out


def xen_facts(log):
    """Xen's version, RAM and its own bracket: the TSC at the NUMA line that
    precedes end_boot_allocator() ('Faking a node', 'No NUMA configuration'
    or a node's SRAT range: 'SRAT: Node' until 4.17, 'NUMA: Node' since)
    and at 'Domain heap initialised', printed as the call ends. Raises
    LogError naming the line that never came."""
    lines = xen_lines(log)
    if not lines:
        raise LogError("no time-stamped Xen line: was Xen booted with console_timestamps=boot?\n"
                       + _tail(log))
    facts = {}
    for stamp, text in lines:
        m = re.match(r"Xen version (\S+) \(([^)]*)\)", text)
        if m:
            facts["version"], facts["build"] = m.group(1), m.group(2)
        m = re.match(r"System RAM: (\d+)MB \((\d+)kB\)", text)
        if m:
            facts["ram_kib"] = int(m.group(2))
        if re.match(r"(Faking a node|No NUMA configuration found|SRAT: Node|NUMA: Node)", text):
            facts["numa_stamp"] = stamp
        if text.startswith("Domain heap initialised") and "numa_stamp" in facts:
            facts["heap_stamp"] = stamp
            break
    if "version" not in facts:
        raise LogError("Xen never printed its version line:\n" + _tail(log))
    if facts.get("numa_stamp") is None:
        raise LogError("Xen never printed the NUMA line that opens the heap's bracket:\n" + _tail(log))
    if facts.get("heap_stamp") is None:
        raise LogError("Xen never printed 'Domain heap initialised': end_boot_allocator() did "
                       "not finish:\n" + _tail(log))
    facts["log_bracket"] = facts["heap_stamp"] - facts["numa_stamp"]
    return facts


# ---- Linux ------------------------------------------------------------------

LINUX_LINE = re.compile(r"^\[\s*(\d+)\.(\d{6})\] (.*)$")


def linux_lines(log):
    """[(microseconds, text)] of Linux's printk.time lines."""
    out = []
    for raw in log.splitlines():
        m = LINUX_LINE.match(raw.rstrip("\r"))
        if m:
            out.append((int(m.group(1)) * 1000000 + int(m.group(2)), m.group(3)))
    return out


def linux_facts(log, need_deferred=True):
    """Linux's own lines around its three phases: the holes its memmap
    init fills ('pages in unavailable ranges'), memblock_free_all() between
    'mem auto-init' and the next line after mem_init() ('Memory:' in 6.1,
    'SLUB:' in 6.12), 'Memory:' (free and present KiB; in 6.12 after the
    deferred init, memory_after_deferred, and after 'SLUB:', memory_late,
    with deferral or without), the hash tables taken from vmalloc before
    it (vmalloc_hash_kib), and 'node N deferred pages initialised in M ms'.
    Raises LogError naming what is missing."""
    lines = linux_lines(log)
    if not lines:
        raise LogError("no time-stamped Linux line: was Linux booted with printk.time=1?\n"
                       + _tail(log))
    f = {"unavailable_pages": 0, "deferred_ms": {}, "vmalloc_hash_kib": 0}
    for us, text in lines:
        m = re.match(r"Linux version (\S+)", text)
        if m:
            f["release"] = m.group(1)
        m = re.match(r"On node (\d+), zone (\w+): (\d+) pages in unavailable ranges", text)
        if m:
            f["unavailable_pages"] += int(m.group(3))
        if text.startswith("mem auto-init:"):
            f["auto_init_us"] = us
        # Hash tables spread over more than one node come from vmalloc,
        # out of the free pages, before 'Memory:' (on one node: memblock).
        m = re.match(r".*hash table entries: \d+ \(order: \d+, (\d+) bytes, vmalloc", text)
        if m and "free_kib" not in f:
            f["vmalloc_hash_kib"] += int(m.group(1)) // 1024
        m = re.match(r"Memory: (\d+)K/(\d+)K available", text)
        if m:
            f["free_kib"], f["present_kib"] = int(m.group(1)), int(m.group(2))
            f["memory_after_deferred"] = bool(f["deferred_ms"])
            f["memory_late"] = "memory_us" in f      # after 'SLUB:' (6.12), with or without deferral
        # The first line after mem_init(): 6.1 prints 'Memory:' there; 6.12
        # prints it after the deferred init, and kmem_cache_init()'s 'SLUB:'
        # is the first line after mem_init().
        if "auto_init_us" in f and "memory_us" not in f and text.startswith(("Memory:", "SLUB:")):
            f["memory_us"] = us
        m = re.match(r"node (\d+) deferred pages initialised in (\d+)ms", text)
        if m:
            f["deferred_ms"][int(m.group(1))] = int(m.group(2))
    if "release" not in f:
        raise LogError("Linux never printed its version line:\n" + _tail(log))
    if "memory_us" not in f or "auto_init_us" not in f:
        raise LogError("Linux never printed 'mem auto-init' and 'Memory:' or 'SLUB:' around "
                       "memblock_free_all():\n" + _tail(log))
    if need_deferred and not f["deferred_ms"]:
        raise LogError("Linux never printed 'deferred pages initialised': its deferred init "
                       "did not finish:\n" + _tail(log))
    if "free_kib" not in f:
        raise LogError("Linux never printed its 'Memory:' line:\n" + _tail(log))
    f["memblock_log_us"] = f["memory_us"] - f["auto_init_us"]
    return f


# ---- bootheap under -icount ---------------------------------------------------

def bootheap_counts(log):
    """{strategy: (ticks, pages)} of run 0's init windows (the floor
    included), the bench record and the calibration record, from a
    bootheap serial log. Under -icount shift=0 a TSC tick is one guest
    instruction."""
    recs, problems = parse_serial(log)
    if problems:
        raise LogError("bootheap's log has unreadable records: " + "; ".join(problems))
    bench = next((r for r in recs if r["type"] == "bench"), None)
    cal = next((r for r in recs if r["type"] == "calibration"), None)
    done = next((r for r in recs if r["type"] == "done"), None)
    if bench is None or cal is None:
        raise LogError("bootheap printed no bench or calibration record:\n" + _tail(log))
    if done is None:
        raise LogError("bootheap's log ends before its done record (truncated):\n" + _tail(log))
    if done.get("status") != "ok":
        raise LogError(f"bootheap's run failed: {done.get('reason')}")
    counts = {}
    for r in recs:
        if r["type"] == "result" and r["phase"] == "init" and r["run"] == 0:
            counts[r["strategy"]] = (r["ticks"], r["pages"])
    missing = [s for s in bench["strategies"] + ["floor"] if s not in counts]
    if missing:
        raise LogError(f"bootheap's log has no init result for {', '.join(missing)}")
    return counts, bench, cal
