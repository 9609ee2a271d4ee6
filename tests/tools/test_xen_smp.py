# SPDX-License-Identifier: MIT
"""Xen's heap on every CPU (harness/real/xen/smp/): the boots read back
(dom0.boot() faked), the heaps of the dump boots held to one another
(afterboot.kept_back()), and the critical path worked out from one vCPU's
counts (counts.py), each on input where the answer is known."""
import os

import pytest

from harness.qemu.brackets import BracketError
from harness.real.xen import afterboot, heapdump
from harness.real.xen.smp import boots, counts
from tests.tools.test_xen_tree import fake_tree

TOP = 18


def dump(blocks):
    d = heapdump.Dump()
    d.blocks = [(n, z, o, m, o, fd) for n, z, o, m, fd in blocks]
    return d


SERIES = [(0, 30, TOP, 0x40000, 0), (0, 31, TOP, 0x140000, 0), (0, 20, 9, 0x200, 0), (0, 31, TOP, 0x100000, 0)]
PIECE = afterboot.PIECE_PAGES


def test_the_parallel_boot_heap_is_the_series_less_whole_aligned_pieces():
    """What heap-init-smp=1 lacks at boot must be runs of whole 128 MiB
    pieces, as many pages as it said it kept back; what it lists must be
    free in the series and merged as far as it goes."""
    series = dump(SERIES)
    # 0x140000's block kept back whole, 0x40000's but its first piece.
    on = dump([(0, 30, 15, 0x40000, 0), SERIES[2], SERIES[3]])
    assert afterboot.kept_back(series, on, (1 << TOP) + (7 << 15), TOP) == []
    said = afterboot.kept_back(series, on, 2 << TOP, TOP)
    assert said == ["the serial heap lists 491520 pages at boot that heap-init-smp=1 does not, and it said it "
                    "handed 524288 over after SMP bring-up"]
    # The list order is not held: the pieces' chunks are listed later.
    assert afterboot.kept_back(series, dump([SERIES[3], SERIES[2], (0, 30, 15, 0x40000, 0)]),
                               (1 << TOP) + (7 << 15), TOP) == []
    lacks_small = afterboot.kept_back(series, dump([SERIES[0], SERIES[1], SERIES[3]]), 1 << 9, TOP)
    assert lacks_small == ["1 runs the serial boot heap lists and heap-init-smp=1 kept back are not whole 128 MiB "
                           "pieces, the first [0x200, 0x400)"]
    extra = afterboot.kept_back(series, dump(SERIES + [(1, 20, 0, 0x7, 0)]), 0, TOP)
    assert extra == ["1 pages free at boot that the serial heap does not list, the first at mfn 0x7"]
    split = dump([(0, 30, 14, 0x40000, 0), (0, 30, 14, 0x44000, 0), SERIES[2], SERIES[3]])
    assert afterboot.kept_back(series, split, (1 << TOP) + (7 << 15), TOP) == [
        "2 blocks at boot listed beside their free buddy, the first node 0 zone 30 order 14 mfn 0x40000"]


def test_the_runs_of_blocks_and_what_one_lacks_of_another():
    blocks = [(0, 0, 1, 8, 1, 0), (0, 0, 0, 10, 0, 0), (0, 0, 2, 0, 2, 0), (0, 0, 0, 20, 0, 0)]
    assert afterboot.runs(blocks) == [(0, 4), (8, 11), (20, 21)]
    assert afterboot.minus([(0, 16), (20, 30)], [(2, 4), (6, 8), (15, 22)]) == [(0, 2), (4, 6), (8, 15), (22, 30)]
    assert afterboot.minus([(0, 4)], []) == [(0, 4)] and afterboot.minus([(2, 4)], [(0, 8)]) == []


def test_what_a_node_is_given_back_for_its_early_allocations_must_be_listed():
    """end_boot_allocator() gives a node the top of what it kept back when
    it has too little for its allocations before SMP bring-up, and the boot
    log names it: an MFN the log names that the heap does not list is
    caught."""
    series = dump(SERIES)
    on = dump([SERIES[0], SERIES[2]])
    assert afterboot.kept_back(series, on, 2 << TOP, TOP, kept=[0x40000]) == []
    assert afterboot.kept_back(series, on, 2 << TOP, TOP, kept=[0x140000]) == [
        "block 0x140000, said kept for allocations before SMP bring-up, is not listed at boot"]
    line = "(XEN) Heap: node 1: block 0x140000 kept for allocations before SMP bring-up"
    assert [int(m.group(2), 16) for m in afterboot.KEPT_LINE.finditer(line)] == [0x140000]


def test_the_kept_ranges_are_read_from_xen_s_array_up_to_its_count_past_a_stale_entry():
    raw = counts.RANGE.pack(0x40000, 0x100000, 0, 0) + counts.RANGE.pack(0x140000, 0x200000, 1, 1) + \
        counts.RANGE.pack(0x140000, 0x200000, 1, 1) + bytes(counts.RANGE.size)
    assert counts.ranges_of(raw, 2) == [(0x40000, 0x100000, 0), (0x140000, 0x200000, 1)]
    assert counts.ranges_of(raw, 0) == [] and len(counts.ranges_of(raw, 9)) == 4
    assert counts.RANGE.size == 24 and counts.RANGES == 170


P = counts.PIECE_PAGES


def test_the_critical_path_adds_each_round_s_slowest_piece_to_the_serial_parts():
    """One node of 5 pieces: one vCPU runs all five, two run three rounds
    (the slowest of each pair), eight run one (the slowest of all)."""
    pieces = {0: [10, 20, 30, 40, 50]}
    assert counts.critical_path(100, 7, pieces, 1) == (257, 5)
    assert counts.critical_path(100, 7, pieces, 2) == (107 + 20 + 40 + 50, 3)
    assert counts.critical_path(100, 7, pieces, 8) == (157, 1)


def test_cpus_spread_over_nodes_as_qemu_gives_them_and_a_node_without_one_is_serial():
    """Two nodes, 2 and 4 pieces: three vCPUs give node 0 two and node 1
    one (QEMU's -numa cpus, the larger share first), so node 1 takes four
    rounds; with one vCPU node 1 has none and its pieces are serial."""
    pieces = {0: [5, 5], 1: [7, 7, 7, 7]}
    assert counts.critical_path(0, 0, pieces, 3) == (28, 4)
    assert counts.critical_path(0, 0, pieces, 1) == (28 + 10, 2)


def test_one_vcpu_marks_the_cpu_less_nodes_pieces_last_first_then_node_zero_s():
    """init_deferred_heap() on one vCPU: node 1 (no CPU) first, its pieces
    from the last, then node 0's round by round; a call of another order
    (a failed range's init_heap_pages()) is no piece."""
    O = counts.PIECE_ORDER
    calls = [("mark_fresh_chunk", (0, O, 1), {}, n) for n in (13, 12, 11)] + \
        [("mark_fresh_chunk", (0, 3, 1), {}, 99)] + [("mark_fresh_chunk", (0, O, 1), {}, n) for n in (20, 21)]
    pieces = counts.node_pieces(calls, [(0, 2 * P, 0), (2 * P, 5 * P, 1)], 2)
    assert pieces == {0: [20, 21], 1: [11, 12, 13]}
    with pytest.raises(BracketError, match="2 pieces counted .mark_fresh_chunk of order 15., 3 kept back"):
        counts.node_pieces(calls[-2:], [(0, 3 * P, 0)], 1)


def test_smp_boots_read_what_the_initcall_handed_over(tmp_path, monkeypatch):
    """`xen-src smp-boot`: a boot a case and setting (dom0.boot() faked),
    each record with its status and the initcall's line read back (none
    where nothing was kept back or the deferral is off); a case with its
    RAM below 4 GiB given boots with QEMU's max-ram-below-4g, and one
    larger than the host's free RAM with bootscrub=off."""
    from harness.real.xen import dom0

    class Build:
        kernel, info = "xen", {"key": "k"}
    seen = []

    def boot(xen, kernel, initrd, mem, xen_append="", log_path=None, cpus=1, nodes=1, machine_opts=""):
        seen.append((mem, cpus, nodes, xen_append, machine_opts))
        on = xen_append.startswith("heap-init-smp=1")
        log = "(XEN) Heap: 9216 MiB handed over on 8 CPUs in 10 rounds\n" if on and cpus > 1 else ""
        return dom0.Result("init" if cpus > 1 else "assert", [] if cpus > 1 else ["Assertion 'x' failed"], log,
                           3.0, 0, "", [], {})
    monkeypatch.setattr(boots, "build_patched", lambda *a, **k: Build())
    monkeypatch.setattr(boots.initramfs, "initramfs", lambda path: None)
    monkeypatch.setattr(boots.dom0, "boot", boot)
    monkeypatch.setattr(boots.command, "mem_available", lambda: 20 << 30)
    t = fake_tree(tmp_path / "t")
    recs = boots.smp_boots(t, "p.patch", [(12288, 8, 2, 0), (6144, 1, 1, 0), (1 << 20, 2, 1, 128)], str(tmp_path),
                           "vmlinuz", say=lambda *a: None, off=True)
    assert seen == [("12288M", 8, 2, "heap-init-smp=1", ""), ("12288M", 8, 2, "heap-init-smp=0", ""),
                    ("6144M", 1, 1, "heap-init-smp=1", ""), ("6144M", 1, 1, "heap-init-smp=0", ""),
                    ("1048576M", 2, 1, "heap-init-smp=1 bootscrub=off", "max-ram-below-4g=128M"),
                    ("1048576M", 2, 1, "heap-init-smp=0 bootscrub=off", "max-ram-below-4g=128M")]
    assert [(r["status"], r["handed_mib"], r["on_cpus"], r["rounds"]) for r in recs] == [
        ("init", 9216, 8, 10), ("init", 0, 0, 0), ("assert", 0, 0, 0), ("assert", 0, 0, 0),
        ("init", 9216, 8, 10), ("init", 0, 0, 0)]
    assert [(r["low_mib"], r["bootscrub"]) for r in recs] == [(0, True)] * 4 + [(128, False)] * 2
    assert recs[-1]["log"] == "serial-smp-1048576M-2c-1n-low128M-off.log"


DATA = os.path.join(os.path.dirname(__file__), "data", "xen-smp")


def logs(case):
    """A case's four dump boots, as `smp-boot --dump` kept them (their Xen
    lines that the comparison reads)."""
    out = {}
    for side, _, _ in boots.DUMP_SIDES:
        with open(os.path.join(DATA, f"{case}-{side}.log")) as f:
            out[side] = f.read()
    return out


def test_a_recorded_case_is_one_heap_at_boot_and_after_the_boot_modules_went():
    """6 GiB, 2 vCPUs, one node, bootscrub=off (staging c447b7308b13):
    stock and the series one heap; the deferral kept back three 1 GiB
    blocks, and after the boot modules went its heap is heap-init-smp=0's
    entry for entry."""
    held = afterboot.hold_parallel(logs("6G-2c-1n"), boots.SMP_LINE)
    assert held["problems"] == []
    assert (held["handed_mib"], held["on_cpus"], held["rounds"], held["kept_runs"]) == (3072, 2, 12, 1)
    assert held["said"] == ["stock and the series one heap, 0 region(s) across a node's edge",
                            "3072 MiB kept back at boot in 1 run(s) and handed over on 2 CPUs in 12 rounds; after "
                            "free_boot_modules 60 blocks, entry for entry heap-init-smp=0's"]


def test_a_recorded_case_with_a_block_kept_for_node_0_s_early_allocations_is_one_heap():
    """6 GiB, 4 vCPUs, two nodes (7 December, the patch with the block kept
    above the DMA width): node 0's one whole block above 4 GiB stays for
    its allocations before SMP bring-up, the log names it, and after the
    boot modules went the heap is heap-init-smp=0's entry for entry (before
    the change: 27 blocks not in both, allocations served by node 1).
    A line naming a block the heap does not list at boot is caught."""
    case = logs("6G-4c-2n")
    held = afterboot.hold_parallel(case, boots.SMP_LINE)
    assert held["problems"] == [] and held["same_after"], held
    assert held["kept_for_early"] == [0x100000] and held["kept_runs"] == 1
    wrong = dict(case, **{"smp-on": case["smp-on"].replace("block 0x100000 kept", "block 0x140000 kept")})
    assert afterboot.hold_parallel(wrong, boots.SMP_LINE)["problems"] == [
        "smp-on at boot: block 0x140000, said kept for allocations before SMP bring-up, is not listed at boot"]


def test_a_recorded_case_of_the_pieces_is_the_serial_heap_less_the_pieces_and_one_heap_after_boot():
    """6 GiB, 4 vCPUs, two nodes, the patch with 128 MiB pieces (7
    December): 3840 MiB kept back in two runs, each node given its top
    block back for its early allocations, the boot heap the serial one
    less whole pieces, and after the boot modules went heap-init-smp=0's
    entry for entry. A line naming an MFN still kept back is caught."""
    case = logs("6G-4c-2n-pieces")
    held = afterboot.hold_parallel(case, boots.SMP_LINE)
    assert held["problems"] == [] and held["same_after"], held
    assert (held["handed_mib"], held["on_cpus"], held["rounds"], held["kept_runs"]) == (3840, 4, 8, 2)
    assert held["kept_for_early"] == [0x100000, 0x1c0000]
    wrong = dict(case, **{"smp-on": case["smp-on"].replace("block 0x1c0000 kept", "block 0x1b8000 kept")})
    assert afterboot.hold_parallel(wrong, boots.SMP_LINE)["problems"] == [
        "smp-on at boot: block 0x1b8000, said kept for allocations before SMP bring-up, is not listed at boot"]


def test_a_block_never_listed_or_a_wrong_count_of_what_was_kept_is_caught():
    case = logs("6G-2c-1n")
    on = case["smp-on"]
    stage = on.index("heapdump: stage free_boot_modules")
    line = next(x for x in on[stage:].splitlines() if " 21 18 0x100000 " in x)
    lost = dict(case, **{"smp-on": on[:stage] + on[stage:].replace(line + "\n", "", 1)})
    said = afterboot.hold_parallel(lost, boots.SMP_LINE)["problems"]
    assert said == ["smp-on after free_boot_modules: the block digest of the 59 block lines is fa8f08079a83df2c, Xen "
                    "printed 03d8287d5256f92a: lines lost or misread", "smp-on after free_boot_modules: 59 block "
                    "lines of 1261144 pages, Xen counted 60 blocks of 1523288 pages"]
    big = [x for x in on[stage:].splitlines() if " 21 18 " in x]
    swapped = on[:stage] + on[stage:].replace(big[0], "@").replace(big[1], big[0]).replace("@", big[1])
    held = afterboot.hold_parallel(dict(case, **{"smp-on": swapped}), boots.SMP_LINE)
    assert held["problems"] == [] and not held["same_after"] and held["said"][-1].endswith(
        "after free_boot_modules 1523288 pages free against 1523288, 0 blocks not in both, free pages a node, "
        "on less off: node 0 +0")
    total = next(x for x in on[stage:].splitlines() if "total_avail_pages" in x)
    gone = on[:stage] + on[stage:].replace(total, total.replace("1523288", str(1523288 - (1 << 18))))
    said = afterboot.hold_parallel(dict(case, **{"smp-on": gone}), boots.SMP_LINE)["problems"]
    assert "smp-on after free_boot_modules: 1261144 pages free, heap-init-smp=0 1523288: more apart than a " \
        "piece of 128 MiB" in said
    short = dict(case, **{"smp-on": on.replace("Heap: 3072 MiB", "Heap: 2048 MiB")})
    assert afterboot.hold_parallel(short, boots.SMP_LINE)["problems"] == [
        "smp-on at boot: the serial heap lists 786432 pages at boot that heap-init-smp=1 does not, and it said it "
        "handed 524288 over after SMP bring-up"]
    silent = dict(case, **{"smp-on": on.replace("Heap: 3072 MiB", "Heap:")})
    assert afterboot.hold_parallel(silent, boots.SMP_LINE)["problems"] == [
        "smp-on: no line saying what was handed over after SMP bring-up"]


def test_an_idle_scrub_makes_the_heaps_after_boot_a_matter_of_timing_so_the_dump_boots_turn_it_off():
    """The same build with bootscrub left idle (6 GiB, 2 vCPUs, two nodes):
    at boot every relation holds, but after the boot modules went the
    second vCPU had scrubbed some of the memory, so even stock and the
    series differ; the dump boots therefore run bootscrub=off."""
    held = afterboot.hold_parallel(logs("6G-2c-2n-idle"), boots.SMP_LINE)
    assert held["problems"] and all(p.startswith("after free_boot_modules: ") for p in held["problems"])
    assert held["regions_across_nodes"] == 1      # the proposal's node scan cut a region at the node's edge
    assert "bootscrub=off" in boots.DUMP_ARGS.split()


def test_the_dump_boots_boot_each_side_of_each_case_and_hold_the_case(tmp_path, monkeypatch):
    """dom0.boot() faked: four boots a case with heap-dump and
    bootscrub=off, the parallel build twice (heap-init-smp=0 and 1), and
    one smp-dump record a case from the logs it returned."""
    from harness.real.xen import dom0
    case = logs("6G-2c-1n")
    seen, made = [], []

    class Build:
        def __init__(self, label):
            self.kernel, self.info = label, {"key": label}

    def build(path, patches, label, config, say):
        made.append((label, config, len(patches)))
        return Build(label)

    def boot(xen, kernel, initrd, mem, xen_append="", log_path=None, cpus=1, nodes=1, machine_opts=""):
        seen.append((xen, mem, cpus, nodes, xen_append))
        side = {"stock-dump": "stock", "series-dump": "series"}.get(xen) or \
            ("smp-on" if xen_append.endswith("=1") else "smp-off")
        return dom0.Result("init", [], case[side], 20.0, 0, "", [], {})
    monkeypatch.setattr(boots, "build_patched", build)
    monkeypatch.setattr(boots.initramfs, "initramfs", lambda path: None)
    monkeypatch.setattr(boots.dom0, "boot", boot)
    monkeypatch.setattr(boots, "proposal", lambda path: ["p1", "p2"])
    t = fake_tree(tmp_path / "t")
    recs = boots.dump_boots(t, "par.patch", "dump.patch", [(6144, 2, 1, 0)], str(tmp_path), "vmlinuz",
                            say=lambda *a: None)
    assert made == [("stock-dump", "debug", 1), ("series-dump", "debug", 3), ("parallel-dump", "debug", 4)]
    assert [s[0] for s in seen] == ["stock-dump", "series-dump", "parallel-dump", "parallel-dump"]
    assert [s[4] for s in seen] == ["heap-dump bootscrub=off"] * 2 + [
        "heap-dump bootscrub=off heap-init-smp=0", "heap-dump bootscrub=off heap-init-smp=1"]
    assert [r["type"] for r in recs] == ["dump_boot"] * 4 + ["smp-dump"]
    assert recs[-1]["problems"] == [] and recs[-1]["kept_runs"] == 1
    # With a change on top of the parallel patch, that build has it too,
    # and a name of its own.
    made.clear()
    boots.dump_boots(t, "par.patch", "dump.patch", [(6144, 2, 1, 0)], str(tmp_path / "x"), "vmlinuz",
                     say=lambda *a: None, extra="/a/0004-alt.patch")
    assert made[-1] == ("parallel-dump-0004", "debug", 5)


def test_the_count_s_recording_stops_after_the_initcall_s_last_line_not_its_first():
    """init_deferred_heap() may say other "Heap:" lines first (one CPU to
    mark on, a node with no CPU); a recording stopped at those ended
    before the marking, and its replay lost QEMU under the count."""
    log = ("(XEN) Heap: one CPU to mark the memory kept back: it goes over serially\n"
           "(XEN) Heap: node 1 has no online CPU: CPU0 marks its 9216 MiB\n")
    assert counts.MARKER not in log
    assert counts.MARKER in log + "(XEN) Heap: 13312 MiB handed over on 1 CPUs in 32 rounds\n"
    assert counts.MARKER not in "(XEN) Domain heap initialised DMA width 31 bits\n"
