# SPDX-License-Identifier: MIT
"""The benchmark's records (issue: the benchmark driver): every record
parses, the statistics agree with the raw results recomputed here, every
audit is green and every strategy built the same heap, the one the host
works out from the memory record (harness.oracle), block for block."""
import pytest

from bootlib import AUDIT_BLOCKS, boot, check_heap, expected_memory, explain, hpet_mapped, record, records

PHASES = ("init", "first_touch")
# The peers (mm/peers/peer.h): their part after boot, and the floor of their layout with its bytes a page.
PEERS = {"linux": (None, "floor_linux"), "linux_deferred": ("deferred", "floor_linux"),
         "linux612": ("deferred", "floor_linux"), "freebsd_lazy": ("drain", "floor_freebsd"),
         "freebsd_lazy0": (None, "floor_freebsd")}
FLOOR_BYTES = {"floor_linux": 64, "floor_freebsd": 88}
ALL = ["page", "chunk", "chunk-72b02bc", "sweep", "lazy", "linux", "linux_deferred", "linux612",
       "freebsd_lazy", "freebsd_lazy0"]


def phases_of(s):
    """The result phases of strategy s: init and first touch for Xen's heap, init and the later part for a peer."""
    if s in PEERS:
        return ("init",) + ((PEERS[s][0],) if PEERS[s][0] else ())
    return PHASES


def floors_of(strategies):
    """The floors a run times: Xen's, then one per peer layout it runs."""
    return ["floor"] + [f for f in ("floor_linux", "floor_freebsd") if any(PEERS.get(s, (0, 0))[1] == f
                                                                          for s in strategies)]


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else s[n // 2 - 1] + (s[n // 2] - s[n // 2 - 1]) // 2


def cv_pct(v):
    if len(v) < 2:
        return 0.0
    mean = sum(v) / len(v)
    var = sum((x - mean) ** 2 for x in v) / (len(v) - 1)
    return var ** 0.5 / mean * 100


def m2p_stores(model):
    """Whether the cost model named as xen_costs= writes M2P entries: only
    when Xen's boot-time M2P call (the m2p item) is not modelled."""
    if model in ("all", "none"):
        return model == "none"
    items = model.split(",")
    if items[0].startswith("-"):
        return "-m2p" in items
    return "m2p" not in items


def check_run(r, runs, strategies):
    assert r.status == "ok", explain(r)
    recs = r.records()
    assert recs and recs[-1] == {"type": "done", "status": "ok"}, explain(r)
    bench = record(r, "bench")
    assert bench["runs"] == runs and bench["strategies"] == strategies
    assert bench["emulated"] == (bench["accel"] == "TCG")
    assert bench["calibrated"], "expected a calibrated TSC under QEMU\n" + explain(r)
    pages = bench["pages"]
    # The pages handed over, worked out from the raw map, not the kernel's word.
    want = expected_memory(record(r, "boot"), hpet_mapped(r))["heap_pages"]
    assert pages == want and record(r, "memory")["heap_pages"] == want, (pages, want)
    record(r, "frametable")
    khz = record(r, "calibration")["khz"]
    assert bench["tsc_khz"] == khz

    res = records(r, "result")
    floors = floors_of(strategies)
    assert len(res) == runs * (sum(len(phases_of(s)) for s in strategies) + len(floors)), len(res)
    # Every result says which cost model ran; the floor writes what the
    # eager strategies write under it: page_info, and M2P entries if stored.
    model = bench["xen_costs"]
    assert f"Xen's per-call costs modelled: xen_costs={model}" in r.log, explain(r)
    ns = {}
    for x in res:
        assert x["pages"] == pages
        assert x["xen_costs"] == model, x
        if x["strategy"] == "floor":
            assert x["bytes"] == pages * (40 if m2p_stores(model) else 32), (model, x)
        elif x["strategy"] in FLOOR_BYTES:
            assert x["bytes"] == pages * FLOOR_BYTES[x["strategy"]], x
        assert x["ns"] >= 0 and x["ticks"] > 0
        # ns from ticks at the recorded rate: the kernel's rate is khz
        # rounded, so within half a kHz of it, and its ns within 1 of exact.
        lo = x["ticks"] * 10**9 // (khz * 1000 + 500)
        hi = -(-x["ticks"] * 10**9 // (khz * 1000 - 500)) + 1
        assert lo <= x["ns"] <= hi, (x, khz, lo, hi)
        # ns per page: ns * 1000 / pages, rounded down, printed with 3 decimals.
        assert round(x["ns_per_page"] * 1000) == x["ns"] * 1000 // pages, x
        ns.setdefault((x["strategy"], x["phase"]), {})[x["run"]] = x["ns"]
    for s in strategies:
        for p in phases_of(s):
            assert sorted(ns[(s, p)]) == list(range(runs)), (s, p)
    for f in floors:
        assert sorted(ns[(f, "init")]) == list(range(runs)), f

    # Every run was audited, every audit green; Xen's heaps one block digest,
    # every strategy the same pages.
    audits = records(r, "audit")
    assert len(audits) == runs * len(strategies)
    assert all(a["ok"] and not a["errors"] for a in audits), audits
    assert all(a["free_pages"] == a["expected_pages"] == pages for a in audits)
    assert all(sum(c << o for o, c in enumerate(a["blocks"])) == pages for a in audits)
    assert len({a["digest"] for a in audits if a["strategy"] not in PEERS}) <= 1, \
        {a["strategy"]: a["digest"] for a in audits}
    assert len({a["page_digest"] for a in audits}) == 1, {a["strategy"]: a["page_digest"] for a in audits}
    check_heap(r, min_audits=runs * len([s for s in strategies if s not in PEERS]))

    # Summaries agree with the raw results.
    sums = {(x["strategy"], x["phase"]): x for x in records(r, "summary")}
    assert len(sums) == sum(len(phases_of(s)) for s in strategies) + len(floors)
    for key, x in sums.items():
        v = [ns[key][i] for i in range(runs)]
        assert x["runs"] == runs
        assert x["median_ns"] == median(v), (key, x, v)
        assert x["min_ns"] == min(v) and x["max_ns"] == max(v)
        assert round(x["ns_per_page"] * 1000) == median(v) * 1000 // pages
        assert abs(x["cv_pct"] - cv_pct(v)) <= 0.011, (key, x["cv_pct"], cv_pct(v))

    # Comparisons: paired speedups, multiples of the own and Xen's floor, end to end.
    fmed = {f: median([ns[(f, "init")][i] for i in range(runs)]) for f in floors}
    comps = {x["strategy"]: x for x in records(r, "comparison")}
    assert sorted(comps) == sorted(strategies)
    for s, x in comps.items():
        init = [ns[(s, "init")][i] for i in range(runs)]
        after = phases_of(s)[1:]
        later = [ns[(s, after[0])][i] for i in range(runs)] if after else [0]
        assert x["digest_equal"] is True and x["pages_equal"] is True
        assert x["init_median_ns"] == median(init)
        if s in PEERS:
            assert x["first_touch_median_ns"] is None
            assert x["later_median_ns"] == (median(later) if after else None)
        else:
            assert x["first_touch_median_ns"] == median(later) and x["later_median_ns"] is None
        assert x["end_to_end_median_ns"] == median(init) + median(later)
        assert x["first_alloc_median_ns"] >= x["init_median_ns"]
        own = PEERS[s][1] if s in PEERS else "floor"
        assert x["floor"] == own
        assert round(x["x_floor"] * 100) == median(init) * 100 // fmed[own]
        assert round(x["x_xen_floor"] * 100) == median(init) * 100 // fmed["floor"]
        if "page" in strategies:
            ratios = [ns[("page", "init")][i] * 100 // init[i] for i in range(runs)]
            assert round(x["speedup_vs_page"] * 100) == median(ratios), (s, x, ratios)
        else:
            assert x["speedup_vs_page"] is None
    # The report states the result in words.
    return comps


def test_records_agree_with_results():
    r = boot("pvh", "512M", f"runs=2 {AUDIT_BLOCKS}", timeout=300)
    comps = check_run(r, 2, ALL)
    assert "chunked init is " in r.log and "x faster than page-by-page on" in r.log, explain(r)
    assert "digests: one heap for Xen's strategies, the same pages for all (0x" in r.log, explain(r)
    assert "sweep init is " in r.log and "x faster than linux's, " in r.log and \
        "x faster than freebsd_lazy0's, at " in r.log, explain(r)
    # Linux's deferred init says per node what it took, as Linux does.
    assert "linux_deferred: node 0 deferred pages initialised in " in r.log, explain(r)
    peers = records(r, "peer")
    assert {p["strategy"] for p in peers} == set(PEERS)
    assert all(p["init_ns"] is not None for p in peers)
    if record(r, "bench")["emulated"]:
        assert "EMULATED TIMINGS" in r.log
    assert comps["page"]["speedup_vs_page"] == 1.0


def test_strategy_selection_and_order():
    r = boot("pvh", "256M", f"runs=3 strategies=sweep,chunk {AUDIT_BLOCKS}", timeout=300)
    check_run(r, 3, ["sweep", "chunk"])
    assert record(r, "bench")["xen_costs"] == "all"


@pytest.mark.parametrize("arg,model", [
    ("xen_costs=-m2p,-lfence", "-lfence,-m2p"),
    ("xen_costs=none", "none"),
    ("xen_costs=m2p", "m2p"),
])
def test_records_say_which_cost_model_ran(arg, model):
    r = boot("pvh", "256M", f"runs=1 {arg} {AUDIT_BLOCKS}", timeout=300)
    check_run(r, 1, ALL)
    assert record(r, "bench")["xen_costs"] == model


def test_sixteen_gib_page_then_chunk_same_heap():
    # The check, under whatever accelerator this machine has.
    r = boot("pvh", "16G", f"runs=1 strategies=page,chunk {AUDIT_BLOCKS}", timeout=600)
    check_run(r, 1, ["page", "chunk"])


@pytest.mark.parametrize("args,message", [
    ("strategies=page,bogus", "strategies=page,bogus: unknown strategy 'bogus' (known: page chunk chunk-72b02bc sweep lazy "
                              "linux linux_deferred linux612 freebsd_lazy freebsd_lazy0)"),
    ("strategies=linux,linux", "strategies=linux,linux: 'linux' is listed twice"),
    ("strategies=page,page", "strategies=page,page: 'page' is listed twice"),
    ("runs=0", "bad command line: runs=0: expected a whole number from 1 to 100"),
    ("runs=many", "bad command line: runs=many: expected a whole number from 1 to 100"),
    ("xen_costs=-lfnce", "bad command line: xen_costs=-lfnce: '-lfnce' is not all, none or [+-] one of "
                         "lfence mfn_valid lock m2p node_heap heap_ptrs pdx memnode zone scrub_check"),
])
def test_bad_bench_options_fail_cleanly(args, message):
    r = boot("pvh", "256M", args, timeout=120)
    assert r.status == "fail", explain(r)
    assert message in r.log, explain(r)
    assert record(r, "done")["status"] == "fail"
    assert not records(r, "result")


def test_no_clock_at_all_labels_results_uncalibrated():
    # No PIT, no HPET, no ACPI (so no PM timer), and TCG exposes no TSC leaf:
    # the run still ends cleanly, with ticks instead of made-up nanoseconds.
    r = boot("pvh", "256M", f"runs=1 strategies=page,chunk {AUDIT_BLOCKS}",
             machine_opts="pit=off,hpet=off,acpi=off", timeout=120)
    assert r.status == "ok", explain(r)
    cal = record(r, "calibration")
    assert cal["calibrated"] is False and cal["source"] == "none" and cal["khz"] == 0
    assert record(r, "bench")["calibrated"] is False
    res = records(r, "result")
    assert res and all(x["ns"] is None and x["ns_per_page"] is None and x["ticks"] > 0 for x in res)
    assert all(x["median_ns"] is None for x in records(r, "summary"))
    assert "UNCALIBRATED" in r.log and "no usable clock to calibrate the TSC" in r.log
    check_heap(r, min_audits=2)
