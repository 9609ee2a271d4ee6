# SPDX-License-Identifier: MIT
"""The accelerator probe under TCG: its records, checked against figures the
test works out from the boot record's memory map; and a guest that stays
silent is killed at the stall limit instead of sitting out its timeout
(tests/tools/test_runner.py checks that the limit counts from the last line)."""
from bootlib import boot, explain, record, records

from harness.qemu import accel

MIB = 1 << 20
PAGE = 4096
SECTION_PAGES = 1 << 18


def align(n, a):
    return (n + a - 1) // a * a


def test_probe_records_under_tcg():
    r = boot("pvh", "512M", "probe", accel="tcg", timeout=120)
    assert r.status == "ok", explain(r)
    probes = records(r, "probe")
    assert [p["item"] for p in probes] == ["start", "frametable", "write", "pit_reads"], explain(r)
    # The probe runs before calibration and instead of the benchmark.
    assert not records(r, "calibration") and not records(r, "bench"), explain(r)
    assert record(r, "done")["status"] == "ok"
    # Every item took time, and the TSC stamps rise record by record.
    assert all(p["ticks"] > 0 for p in probes[1:]), probes
    stamps = [p["tsc"] for p in probes]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps), stamps
    write, pit = probes[2], probes[3]
    assert write["bytes"] == 64 * MIB and pit["reads"] == 4096
    # The frame table and M2P of one 1 GiB section up to the last RAM page,
    # each backed in 2 MiB pages.
    ram = [e for e in record(r, "boot")["mmap"] if e["type"] == 1]
    max_pfn = max(e["addr"] + e["len"] for e in ram) // PAGE
    frames = min(max_pfn, SECTION_PAGES)
    assert probes[1]["bytes"] == align(frames * 32, 2 * MIB) + align(frames * 8, 2 * MIB), probes[1]
    # The host's view: the ticks' rate from the lines' arrival times.
    fig, why = accel.probe_figures(r)
    assert why is None, why
    assert 0 < fig["pit_s"] < fig["write_s"] < r.elapsed, fig
    assert fig["tsc_khz"] > 100000, fig         # some TSC at all: 100 MHz or more


def test_a_silent_guest_is_killed_at_the_stall_limit():
    # -S: QEMU starts with the guest frozen, so it says nothing whatever the
    # host's load; the stall limit ends it long before its timeout would.
    r = boot("pvh", "256M", "memonly", accel="tcg", timeout=600, stall=3, extra=["-S"])
    assert r.status == "stalled", explain(r)
    assert r.log == "" and r.lines == [], explain(r)
    assert r.stall == 3 and "no serial output for 3 s" in explain(r)
    assert 3 <= r.elapsed < 600, r.elapsed
