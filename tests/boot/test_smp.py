# SPDX-License-Identifier: MIT
"""Every CPU and every node: QEMU guests with -smp and -numa, checked against
what the test asked QEMU for. Under TCG, QEMU 7.2 runs an x86 guest's vCPUs
on one host thread each (multi-threaded TCG) by default: `-accel tcg` as the
harness passes it is `-accel tcg,thread=multi` here. Every heap built, serial
or parallel, on one node or several, is held block for block to the one the
host works out from the memory record (harness.oracle)."""
import re

import pytest

from bootlib import AUDIT_BLOCKS, assert_ktap_ok, boot, check_heap, explain, record, records
from harness.report import cpus as cpus_report
from harness.results.records import Results, SizeRun

MIB = 1 << 20


def numa_args(nodes):
    """-numa arguments for [(mem_mib or 0, [cpus])]: one memory-backend-ram per
    node that has memory; a node with no memory gets no memdev."""
    args = ["-smp", str(sum(len(c) for _, c in nodes))]
    for i, (mem, cpus) in enumerate(nodes):
        opt = f"node,nodeid={i}"
        if cpus:
            opt += f",cpus={cpus[0]}-{cpus[-1]}"
        if mem:
            args += ["-object", f"memory-backend-ram,id=m{i},size={mem}M"]
            opt += f",memdev=m{i}"
        args += ["-numa", opt]
    return args


def check_smp(r, cpus):
    smp = record(r, "smp")
    assert smp["cpus_found"] == cpus and smp["cpus_up"] == cpus, explain(r)
    assert smp["cpus_failed"] == [] and smp["tables"] == "acpi"
    ids = [c["apic_id"] for c in smp["cpus"]]
    assert len(set(ids)) == cpus and [c["cpu"] for c in smp["cpus"]] == list(range(cpus))
    if cpus > 1:
        assert smp["bringup_ns"] > 0 and smp["trampoline"] < MIB
        # The skew is the largest offset measured; each offset is bounded by
        # half the round trip it rests on.
        assert smp["tsc_skew_ticks"] == max(abs(c["tsc_offset_ticks"]) for c in smp["cpus"])
        assert all(c["tsc_rtt_ticks"] > 0 for c in smp["cpus"][1:])
    else:
        assert smp["bringup_ns"] is None and smp["tsc_skew_ticks"] == 0
    return smp


@pytest.mark.parametrize("cpus", [1, 2, 4])
def test_smp_selftests(cpus):
    r = boot("pvh", "512M", f"selftest {AUDIT_BLOCKS}", extra=["-smp", str(cpus)])
    assert_ktap_ok(r, min_tests=9)
    check_heap(r, min_audits=4)
    check_smp(r, cpus)
    nm = record(r, "memory")["node_map"]
    assert nm["source"] == "none" and nm["memnode_shift"] == 63 and len(nm["nodes"]) == 1
    assert sorted(nm["nodes"][0]["apic_ids"]) == sorted(c["apic_id"] for c in record(r, "smp")["cpus"])


def check_nodes(r, nodes):
    """Each node has the memory and the CPUs QEMU was given."""
    m = record(r, "memory")
    nm = m["node_map"]
    assert nm["source"] == "srat" and nm["error"] is None, explain(r)
    assert len(nm["nodes"]) == len(nodes) and m["nodes"] == len(nodes)
    smp = record(r, "smp")
    apic_of = {c["cpu"]: c["apic_id"] for c in smp["cpus"]}
    start = 0
    for got, (mem, cpus) in zip(nm["nodes"], nodes):
        span = mem * MIB
        if start == 0 and span:
            span -= 0x60000                 # the 640 KiB - 1 MiB hole, outside every range
        assert got["span_bytes"] == span, (got, mem)
        assert (got["heap_pages"] > 0) == (mem > 0), got
        assert sorted(got["apic_ids"]) == sorted(apic_of[c] for c in cpus), got
        start += mem * MIB
    # Every page handed over is on some node.
    assert sum(n["heap_pages"] for n in nm["nodes"]) == m["heap_pages"]
    for c in smp["cpus"]:
        assert any(c["apic_id"] in n["apic_ids"] and n["node"] == c["node"] for n in nm["nodes"])
    return nm


# Unequal sizes; in the first the boundary at 768 MiB falls inside the
# first 1 GiB block, so the node map needs granules finer than 1 GiB.
NUMA = {
    "2-nodes-768M-1280M": [(768, [0]), (1280, [1])],
    "4-nodes-unequal": [(512, [0]), (1024, [1]), (256, [2]), (768, [3])],
    "memoryless-and-cpuless": [(1024, [0]), (0, [1, 2]), (1024, [])],
}


@pytest.mark.parametrize("name", list(NUMA))
def test_numa_selftests(name):
    nodes = NUMA[name]
    mem = sum(m for m, _ in nodes)
    r = boot("pvh", f"{mem}M", f"selftest {AUDIT_BLOCKS}", extra=numa_args(nodes))
    assert_ktap_ok(r, min_tests=9)
    check_heap(r, min_audits=4)
    check_smp(r, sum(len(c) for _, c in nodes))
    nm = check_nodes(r, nodes)
    if name.startswith("2-nodes"):
        # 768 MiB is frame 0x30000: its lowest set bit is 16.
        assert nm["memnode_shift"] == 16 and nm["entries"] == 8


def test_numa_benchmark_same_heap():
    """The benchmark on a node boundary inside a 1 GiB block: every strategy
    of Xen's heap builds the same heap, the peers hold the same pages (Linux's
    deferred init and FreeBSD's segments cut at the node), every audit green."""
    nodes = NUMA["2-nodes-768M-1280M"]
    r = boot("pvh", "2048M", f"runs=1 {AUDIT_BLOCKS}", extra=numa_args(nodes))
    assert r.status == "ok", explain(r)
    check_nodes(r, nodes)
    audits = check_heap(r, min_audits=4)     # Xen's heaps, each held to the oracle
    assert all(a["ok"] for a in audits), explain(r)
    assert len({a["digest"] for a in audits}) == 1
    # Every strategy, the peers too, the same pages.
    peers = [a for a in r.records() if a["type"] == "audit" and "kernel" in a]
    assert {a["strategy"] for a in peers} == {"linux", "linux_deferred", "linux612", "freebsd_lazy",
                                               "freebsd_lazy0"}
    assert all(a["ok"] for a in peers)
    assert len({a["page_digest"] for a in audits + peers}) == 1
    comps = [c for c in r.records() if c["type"] == "comparison"]
    assert comps and all(c["digest_equal"] and c["pages_equal"] for c in comps)


def test_numa_fake_without_srat():
    r = boot("pvh", "3G", "memonly numa_fake=3", extra=["-smp", "2"])
    assert r.status == "ok", explain(r)
    nm = record(r, "memory")["node_map"]
    assert nm["source"] == "fake" and len(nm["nodes"]) == 3
    # Whole 1 GiB granules per node: the shift is the lowest set bit of the
    # starts where the node changes (Xen's compute_hash_shift()), 18 or more.
    starts = [n["ranges"][0][0] for n in nm["nodes"][1:]]
    assert all(s % (1 << 18) == 0 for s in starts), starts
    bits = 0
    for s in starts:
        bits |= s
    assert nm["memnode_shift"] == (bits & -bits).bit_length() - 1, (nm, starts)


def test_uefi_iso_two_cpus():
    r = boot("iso-uefi", "512M", "memonly", extra=["-smp", "2"], timeout=400)
    assert r.status == "ok", explain(r)
    check_smp(r, 2)


def test_x2apic():
    """x2APIC mode, asked for on the command line. QEMU's TCG before 8.1
    cannot emulate it and hides the CPUID bit: the kernel then says so and
    stays in xAPIC mode, which this test checks before it skips."""
    r = boot("pvh", "512M", "memonly apic=x2apic", extra=["-smp", "2"], cpu="max,+x2apic")
    assert r.status == "ok", explain(r)
    smp = check_smp(r, 2)
    if not smp["x2apic_cpu"]:
        assert smp["apic_mode"] == "xapic" and "no x2APIC mode" in r.log, explain(r)
        pytest.skip("this QEMU's TCG offers no x2APIC (CPUID 1 ECX bit 21 clear); xAPIC fallback checked")
    assert smp["apic_mode"] == "x2apic"


def test_exception_on_an_ap():
    r = boot("pvh", "512M", "fault=ap", extra=["-smp", "2"])
    assert r.status == "fail", explain(r)
    assert "FATAL EXCEPTION on CPU 1 (APIC id 1): vector 6 (#UD invalid opcode)" in r.log, explain(r)
    assert "RAX " in r.log and "R15 " in r.log
    assert "] ud_on_ap+0x" in r.log and "] smp_ap_entry+0x" in r.log, explain(r)
    assert record(r, "done")["reason"] == "#UD invalid opcode"


def test_silent_cpu_is_left_out():
    r = boot("pvh", "512M", "memonly smp_phantom", extra=["-smp", "2"])
    assert r.status == "ok", explain(r)
    smp = record(r, "smp")
    assert smp["cpus_up"] == 2 and len(smp["cpus_failed"]) == 1, explain(r)
    assert f"warning: CPU with APIC id {smp['cpus_failed'][0]} did not answer within 10000 ms: left out" \
        in r.log, explain(r)


# ---- the parallel init builds the serial heap --------------------------------

EAGER = "page,chunk,sweep"


def digests(r):
    """{strategy: digest} of a run, every audit green and every heap the
    host's own, every eager init on the CPUs the bench record says."""
    assert r.status == "ok", explain(r)
    audits = check_heap(r, min_audits=len(EAGER.split(",")))
    assert all(a["ok"] for a in audits), explain(r)
    return {a["strategy"]: (a["digest"], a["cpus"]) for a in audits}


def serial_and_parallel(mode, mem, extra, cpus):
    """The eager strategies once serially (cpus=1) and once on every CPU: the
    same digest each, and the parallel run spread over more than one CPU."""
    ser = digests(boot(mode, mem, f"runs=1 strategies={EAGER} cpus=1 {AUDIT_BLOCKS}", extra=extra,
                       timeout=400))
    r = boot(mode, mem, f"runs=1 strategies={EAGER} {AUDIT_BLOCKS}", extra=extra, timeout=400)
    par = digests(r)
    for s in EAGER.split(","):
        assert ser[s][1] == 1 and par[s][1] == cpus, (s, ser[s], par[s])
        assert par[s][0] == ser[s][0], (s, ser[s], par[s])
    runs = [p for p in r.records() if p["type"] == "par"]
    assert {p["strategy"] for p in runs} == set(EAGER.split(","))
    for p in runs:
        pages = [w["pages"] for w in p["workers"]]
        assert sum(pages) == record(r, "bench")["pages"]     # every page handed over, once
        assert sum(1 for x in pages if x) > 1, p            # at least two CPUs built pieces
        assert sum(n["pages"] for n in p["nodes"]) == sum(pages)
    return r


@pytest.mark.parametrize("cpus", [2, 4])
def test_parallel_same_heap_smp(cpus):
    serial_and_parallel("pvh", "2G", ["-smp", str(cpus)], cpus)


@pytest.mark.parametrize("name", list(NUMA))
def test_parallel_same_heap_numa(name):
    nodes = NUMA[name]
    mem = sum(m for m, _ in nodes)
    r = serial_and_parallel("pvh", f"{mem}M", numa_args(nodes), sum(len(c) for _, c in nodes))
    check_nodes(r, nodes)


def test_parallel_same_heap_uefi_two_cpus():
    serial_and_parallel("iso-uefi", "2G", ["-smp", "2"], 2)


def test_memnode_ablation_refused_on_a_fine_node_map():
    """xen_costs without memnode reads a 1 GiB-granule copy of the node map,
    which cannot hold a node boundary at 768 MiB: refused, with the reason."""
    r = boot("pvh", "2048M", "runs=1 strategies=lazy xen_costs=-memnode",
             extra=numa_args(NUMA["2-nodes-768M-1280M"]))
    assert r.status == "fail", explain(r)
    assert "xen_costs without memnode needs node granules of 1 GiB or more" in r.log, explain(r)


# ---- the scaling table, end to end -------------------------------------------

SCALING_ROW = r"^  (\w+) +((?:  \d CPUs? \d+\.\d{3} \(\d+\.\d\dx, \d+\.\d\dx floor\))+)$"
SCALING_CELL = r"(\d) CPUs? (\d+)\.(\d{3}) \((\d+\.\d\d)x, (\d+\.\d\d)x floor\)"


def test_scaling_table_end_to_end():
    """`scaling`: every eager strategy and the floor at 1 and 2 CPUs, each
    parallel build checked against the serial heap's digest (a mismatch
    fails the boot), its records, its printed table and the report's table
    saying the same."""
    r = boot("pvh", "1G", f"runs=2 strategies={EAGER} scaling", extra=["-smp", "2"])
    assert r.status == "ok", explain(r)
    rows = records(r, "scaling")
    names = ["floor"] + EAGER.split(",")        # no peer named: Xen's floor alone
    assert [(x["strategy"], x["cpus"]) for x in rows] == [(s, c) for s in names for c in (1, 2)], rows
    med = {(x["strategy"], x["cpus"]): x["median_ns"] for x in rows}
    for x in rows:
        s, c = x["strategy"], x["cpus"]
        assert x["runs"] == 2 and x["median_ns"] > 0 and x["phase"] == "init" and x["floor"] == "floor", x
        # The kernel's integer ratios, floored to hundredths.
        assert round(x["speedup"] * 100) == med[(s, 1)] * 100 // med[(s, c)], x
        assert x["floor_median_ns"] == med[("floor", c)], x
        assert round(x["x_floor"] * 100) == med[(s, c)] * 100 // med[("floor", c)], x
    # The printed table: one row per strategy, a cell per CPU count, the
    # records' figures in ms.
    printed = {m[0]: re.findall(SCALING_CELL, m[1]) for m in re.findall(SCALING_ROW, r.log, re.M)}
    assert sorted(printed) == sorted(names), explain(r)
    for s, cells in printed.items():
        for c, ms, frac, speedup, x_floor in cells:
            x = next(x for x in rows if (x["strategy"], x["cpus"]) == (s, int(c)))
            assert int(ms) * 1000 + int(frac) == x["median_ns"] // 1000, (s, c, x)
            assert (float(speedup), float(x_floor)) == (x["speedup"], x["x_floor"]), (s, c, x)
    # The report's scaling section, from the same records.
    run, results = SizeRun(1 << 30), Results("boot")
    run.records, results.sizes = r.records(), [run]
    section = "\n".join(cpus_report.cpus_sections(results))
    assert "## Scaling: each eager strategy at 1 to N CPUs" in section
    for x in rows:
        assert (f"| 1 GiB | {x['strategy']} | {x['cpus']} | 2 | {x['median_ns'] / 1e6:.3f} | "
                f"{x['speedup']:.2f} | floor | {x['floor_median_ns'] / 1e6:.3f} | {x['x_floor']:.2f} |") in section
