# SPDX-License-Identifier: MIT
"""The hosted runner as a program: its records, the kernel's options through
the kernel's registry, and bad arguments ending in a clear message and a
clean exit status (its maps: test_map_file.py)."""
import pytest

OK, FAIL, USAGE, NOMEM = 0, 1, 2, 3


def test_a_run_reports_like_the_kernel(runner):
    r = runner("--mem", "256M", "runs=2")
    assert r.rc == OK, r
    boot, bench = r.one("boot"), r.one("bench")
    assert boot["accel"] == "host" and bench["accel"] == "host" and bench["emulated"] is False
    assert bench["runs"] == 2 and bench["strategies"] == ["page", "chunk", "chunk-72b02bc", "sweep", "lazy", "linux",
                                                           "linux_deferred", "linux612", "freebsd_lazy",
                                                           "freebsd_lazy0"]
    audits = r.of("audit")
    assert len(audits) == 2 * 10 and all(a["ok"] for a in audits), r
    assert len({a["digest"] for a in audits if a["strategy"] in ("page", "chunk", "chunk-72b02bc", "sweep", "lazy")}) == 1
    assert len({a["page_digest"] for a in audits}) == 1
    assert all(a["free_pages"] == bench["pages"] for a in audits)
    results = r.of("result")
    assert {(x["strategy"], x["phase"]) for x in results} >= {
        ("floor", "init"), ("lazy", "first_touch"), ("floor_linux", "init"), ("floor_freebsd", "init"),
        ("linux_deferred", "deferred"), ("freebsd_lazy", "drain")}
    assert all(x["ns"] is not None and x["ns"] > 0 for x in results)
    cal = r.one("calibration")
    assert cal["calibrated"] and cal["source"] == "monotonic_raw" and cal["khz"] > 0
    cpu = r.of("cpu_time")
    # Every timed window has its CPU time, a floor's one for each way it filled; a peer's first
    # allocation has a window and no result.
    windows = [(c["strategy"], c["phase"], c["run"]) for c in cpu if c["phase"] != "first_alloc"]
    assert sorted(set(windows)) == sorted((x["strategy"], x["phase"], x["run"]) for x in results)
    assert all(windows.count(w) == (4 if w[0].startswith("floor") else 1) for w in windows)
    assert sum(c["phase"] == "first_alloc" for c in cpu) == 2 * 5
    assert all(c["ns"] > 0 for c in cpu)
    assert "cpu time of this thread in each window" in r.out
    host = r.one("host")
    assert "no hypervisor of bootheap's own" in host["means"]
    assert host["tables_bytes"] >= r.one("memory")["frame_table"]["bytes"]
    assert r.one("done")["status"] == "ok"
    assert "HOSTED" in r.out and "(hosted, user space)" in r.out


def test_host_facts_beside_the_figures(runner):
    """The core-clock probe's record is present and well formed, and the
    windows carry its figures exactly when it is believed (no rate of this
    CPU is asserted: tests/tools/test_probe.py holds the rule to recorded
    figures); the host record says where the tables lie: physical runs (as
    root) and NUMA nodes, and what a write to a far 2 MiB page costs."""
    import os
    r = runner("--mem", "1G", "runs=1", "strategies=chunk")
    assert r.rc == OK, r
    probe = r.one("clock_probe")
    assert isinstance(probe["reliable"], bool) and isinstance(probe["issue_reliable"], bool)
    assert all(isinstance(probe[k], int) for k in ("mhz", "check_mhz", "tsc_mhz", "check_tolerance_pct"))
    assert probe["low_x_tsc"] == 0.3 and probe["high_x_tsc"] == 1.6
    assert probe["x_tsc"] == int(probe["mhz"] * 100 / probe["tsc_mhz"]) / 100
    assert probe["reliable"] == (probe["why"] == "") and "imul" in probe["chain"]
    cpu = r.of("cpu_time")
    assert cpu and all(("mhz" in c) == probe["reliable"] for c in cpu), cpu
    assert all(("adds_per_cycle_x100" in c) == probe["issue_reliable"] for c in cpu), cpu
    assert all(isinstance(c["faults"], int) and isinstance(c["switches"], int) and c["reps"] >= 1
               for c in cpu)
    for c in cpu:
        assert isinstance(c["ns"], int) and c["ns"] >= 0, c
    host = r.one("host")
    assert host["numa_nodes_mask"] & 1
    assert host["reach_pages"] >= 1 and host["reach_p90_ns"] >= host["reach_p50_ns"] > 0
    if os.geteuid() == 0:
        assert host["phys_known_bytes"] == host["tables_bytes"]
        assert 1 <= host["phys_runs"] <= host["tables_bytes"] >> 21
        assert 2 << 20 <= host["phys_longest_run_bytes"] <= host["tables_bytes"]


def test_touch_runs_samples_the_first_touch(runner):
    """touch_runs=1: every run times the init, the first run alone the first
    touch; summaries say over how many runs, and no first allocation is
    claimed for a run that made none."""
    r = runner("--mem", "256M", "runs=3", "touch_runs=1", "strategies=page,chunk,chunk-72b02bc,sweep,lazy")
    assert r.rc == OK, r
    assert r.one("bench")["touch_runs"] == 1
    results = r.of("result")
    assert {x["run"] for x in results if x["phase"] == "first_touch"} == {0}
    assert sorted(x["run"] for x in results if x["strategy"] == "chunk" and x["phase"] == "init") == [0, 1, 2]
    assert all(("first_alloc_ns" in x) == (x["run"] == 0)
               for x in results if x["phase"] == "init" and x["strategy"] != "floor")
    runs = {(x["strategy"], x["phase"]): x["runs"] for x in r.of("summary")}
    assert runs[("chunk", "first_touch")] == 1 and runs[("chunk", "init")] == 3
    assert {c["run"] for c in r.of("cpu_time") if c["phase"] == "first_touch"} == {0}
    assert "first 1 run only (touch_runs=1)" in r.out


def test_touch_shared_takes_turns_among_the_eager(runner):
    """touch_shared: one eager strategy a run times the first touch, in turn,
    and the others carry its figure with its name; lazy times its own; with
    no eager strategy nothing is shared."""
    r = runner("--mem", "256M", "runs=3", "strategies=page,lazy,sweep", "touch_shared")
    assert r.rc == OK, r
    own = {(c["run"], c["strategy"]) for c in r.of("cpu_time") if c["phase"] == "first_touch"}
    assert own == {(0, "page"), (1, "sweep"), (2, "page"), (0, "lazy"), (1, "lazy"), (2, "lazy")}
    touch = {(x["run"], x["strategy"]): x for x in r.of("result") if x["phase"] == "first_touch"}
    assert touch[(1, "page")]["shared_from"] == "sweep" and touch[(1, "page")]["ns"] == touch[(1, "sweep")]["ns"]
    assert "shared_from" not in touch[(1, "lazy")] and "shared_from" not in touch[(0, "page")]
    r = runner("--mem", "256M", "runs=2", "strategies=lazy", "touch_shared")
    assert r.rc == OK, r
    assert not any("shared_from" in x for x in r.of("result"))


def test_runs_are_interleaved_in_turn(runner):
    """Each run starts one place further along the strategies and the floor."""
    r = runner("--mem", "256M", "runs=3", "strategies=page,chunk")
    assert r.rc == OK, r
    order = [(x["run"], x["strategy"]) for x in r.of("result") if x["phase"] == "init"]
    assert order == [(0, "page"), (0, "chunk"), (0, "floor"), (1, "chunk"), (1, "floor"), (1, "page"),
                     (2, "floor"), (2, "page"), (2, "chunk")]


def test_the_kernel_options_reach_the_code(runner):
    r = runner("--mem", "3G", "runs=1", "strategies=sweep,chunk", "numa_fake=3", "sweep_stores=nt",
               "bootscrub=off")
    assert r.rc == OK, r
    assert r.one("bench")["strategies"] == ["sweep", "chunk"]
    assert r.one("memory")["nodes"] == 3
    assert "unknown command-line option" not in r.out, r
    assert all(a["ok"] for a in r.of("audit"))


@pytest.mark.parametrize("bad, says", [
    ("runs=0", "runs=0: expected a whole number from 1 to 100"),
    ("strategies=page,bogus", "unknown strategy 'bogus'"),
    # Names renamed since records were first kept: each names its new one.
    ("strategies=page,once", "strategies=page,once: 'once' is now called 'sweep'"),
    ("strategies=chunk_72b02bc", "strategies=chunk_72b02bc: 'chunk_72b02bc' is now called 'chunk-72b02bc'"),
    ("once_stores=nt", "once_stores= is now called sweep_stores="),
    ("bootscrub=sometimes", "bootscrub=sometimes: expected one of idle off"),
    ("sweep_stores=avx", "sweep_stores=avx: expected one of"),
    ("numa_fake=9", "numa_fake=9: expected a whole number from 1 to 8"),
])
def test_bad_kernel_options_fail_as_in_the_kernel(runner, bad, says):
    r = runner("--mem", "256M", bad)
    assert r.rc == FAIL, r
    assert says in r.out, r
    assert r.of("done")[-1]["status"] == "fail"


def test_peers_too_large_for_the_map_are_left_out_or_refused(runner):
    # 10 MiB: the frame table fits, the peers' 2 MiB arrays do not.
    r = runner("--mem", "10M", "runs=1")
    assert r.rc == OK, r
    assert "peers: the Linux struct page array (2.00 MiB) does not fit in the" in r.out
    assert "bench: freebsd_lazy left out: the FreeBSD vm_page array did not fit in boot memory" in r.out
    assert r.one("bench")["strategies"] == ["page", "chunk", "chunk-72b02bc", "sweep", "lazy"]
    r = runner("--mem", "10M", "runs=1", "strategies=linux_deferred")
    assert r.rc == FAIL, r
    assert "strategies=linux_deferred: linux_deferred needs the Linux struct page array, which did not " \
           "fit in boot memory" in r.out
    # Runs without peers back no page arrays at all.
    r = runner("--mem", "256M", "runs=1", "strategies=chunk")
    assert r.rc == OK, r
    assert not [x for x in r.one("memory")["reserved"] if "array" in x["what"]]


def test_peers_over_the_host_memory_limit_are_left_out_or_refused(runner):
    # 200 MiB holds an 8 GiB map's frame table, M2P and bitmap, not the peers' arrays beside them.
    r = runner("--mem", "8G", "--mem-limit", "200M", "runs=1")
    assert r.rc == OK, r
    assert "the peers' page arrays would take the tables to 384.32 MiB, over the 200 MiB available: " \
           "the peers are left out" in r.out
    assert r.one("bench")["strategies"] == ["page", "chunk", "chunk-72b02bc", "sweep", "lazy"]
    r = runner("--mem", "8G", "--mem-limit", "200M", "runs=1", "strategies=freebsd_lazy0")
    assert r.rc == NOMEM, r
    assert "the frame table, M2P, audit bitmap and the peers' page arrays need up to" in r.err


def test_peers_on_two_threads_and_nodes(runner):
    r = runner("--mem", "3G", "--cpus", "2", "runs=1", "numa_fake=2",
               "strategies=sweep,linux_deferred,freebsd_lazy,linux")
    assert r.rc == OK, r
    assert len({a["page_digest"] for a in r.of("audit")}) == 1 and all(a["ok"] for a in r.of("audit"))
    deferred = [x for x in r.of("result") if x["phase"] == "deferred"]
    assert deferred and all(x["cpus"] == 2 for x in deferred)
    peer = [p for p in r.of("peer") if p["strategy"] == "linux_deferred"][0]
    assert [n["node"] for n in peer["nodes"]] == [0, 1] and all(n["threads"] == 1 for n in peer["nodes"])


def test_unknown_kernel_options_are_warned_about(runner):
    r = runner("--mem", "256M", "runs=1", "strategies=lazy", "no_such_option=1")
    assert r.rc == OK, r
    assert "unknown command-line option 'no_such_option=1' ignored" in r.out


def test_list_options_shows_the_registry(runner):
    r = runner("--list-options")
    assert r.rc == OK
    keys = {line.split()[0] for line in r.out.splitlines() if line.strip()}
    assert {"runs", "strategies", "sweep_stores", "numa_fake", "bootscrub", "verbose", "memonly"} <= keys


@pytest.mark.parametrize("args, says", [
    (["--mem", "0"], "--mem 0: a map needs some RAM"),
    (["--mem", "12Q"], "the unit must be K, M, G or T"),
    (["--mem", "lots"], "'lots' is not a size"),
    (["--mem", "99999999999999999999G"], "too large"),
    (["--mem"], "--mem needs a value"),
    (["--bogus"], "unknown option --bogus"),
    (["--map", "x.map", "--mem", "1G"], "--mem does not apply"),
    (["--map"], "--map needs a value"),
    (["--cpus", "0"], "--cpus 0: between 1 and 64 threads"),
    (["--cpus", "65"], "--cpus 65: between 1 and 64 threads"),
    (["--cpus", "two"], "--cpus two: expected a number of threads or all"),
    (["--cpus"], "--cpus needs a value"),
])
def test_bad_runner_arguments(runner, args, says):
    r = runner(*args)
    assert r.rc == USAGE, r
    assert says in r.err, r
    assert not r.records


def test_a_zero_memory_limit_is_refused(runner):
    # 0 cannot mean "no limit" and a limit no map fits at once: it is refused.
    r = runner("--mem", "256M", "--mem-limit", "0", "runs=1")
    assert r.rc == USAGE and not r.records, r
    assert "--mem-limit 0: give a size above 0 (without --mem-limit the limit is MemAvailable less " \
           "512 MiB)" in r.err, r


def test_too_little_host_memory_is_refused(runner):
    r = runner("--mem", "64G", "--mem-limit", "100M", "runs=1")
    assert r.rc == NOMEM, r
    assert "not enough memory on this host" in r.err
    assert "need up to" in r.err and "100 MiB is available" in r.err, r
    assert r.of("done")[-1]["status"] == "fail"


def test_threads_build_the_serial_heap(runner):
    """--cpus 2: the eager strategies and the floor on two threads, the same
    digest as on one; cpus=1 on the command line keeps them serial."""
    digests = {}
    for args in (["cpus=1"], []):
        r = runner("--mem", "3G", "--cpus", "2", "runs=1", "strategies=page,chunk,sweep", *args)
        assert r.rc == OK, r
        want = 1 if args else 2
        assert r.one("bench")["cpus"] == want
        audits = r.of("audit")
        assert audits and all(a["ok"] and a["cpus"] == want for a in audits), r
        digests[want] = {a["strategy"]: a["digest"] for a in audits}
        par = r.of("par")
        assert len(par) == (0 if args else 3)
        for p in par:
            pages = [w["pages"] for w in p["workers"]]
            assert sum(pages) == r.one("bench")["pages"] and all(pages), p
    assert digests[1] == digests[2]
