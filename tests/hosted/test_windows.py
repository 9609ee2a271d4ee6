# SPDX-License-Identifier: MIT
"""How every window is timed (bench/measure.h): a floor once with each way
of filling its bytes and the fastest kept, a short window repeated and
reported per repetition, the rewinds that make that cheap leaving the
tables as a reset would, and a probe that folds named and kept out of
every window's record."""
OK, FAIL, USAGE = 0, 1, 2


def test_a_floor_is_its_fastest_way_each_run(runner):
    r = runner("--mem", "512M", "runs=2", "strategies=sweep,freebsd_lazy0")
    assert r.rc == OK, r
    for f in ("floor", "floor_freebsd"):
        windows = [c for c in r.of("cpu_time") if c["strategy"] == f]
        assert sorted(c["way"] for c in windows if c["run"] == 0) == ["libc", "nt", "plain", "rep"]
        for res in (x for x in r.of("result") if x["strategy"] == f):
            ways = res["ways_ns"]
            assert set(ways) == {"rep", "plain", "nt", "libc"}
            assert res["ns"] == min(ways.values()) and ways[res["way"]] == res["ns"], res
    # The kernel's own summary takes the same per-run floor.
    summary = {(s["strategy"], s["phase"]): s for s in r.of("summary")}
    assert summary[("floor", "init")]["runs"] == 2


def test_sweep_takes_the_faster_stores_of_this_cpu(runner):
    """sweep_stores=auto times rep and nt before any run and says which it took; a choice given stays."""
    r = runner("--mem", "512M", "runs=1", "strategies=sweep")
    assert r.rc == OK, r
    rec = r.one("sweep_stores")
    assert rec["chosen"] == ("nt" if rec["nt_ticks"] < rec["rep_ticks"] else "rep") and rec["pages"] > 0
    r = runner("--mem", "512M", "runs=1", "strategies=sweep", "sweep_stores=rep")
    assert r.rc == OK and not r.of("sweep_stores"), r


def test_short_windows_are_repeated_and_reported_per_repetition(runner):
    r = runner("--mem", "1G", "runs=1", "strategies=lazy,freebsd_lazy,chunk")
    assert r.rc == OK, r
    cpu = {(c["strategy"], c["phase"]): c for c in r.of("cpu_time") if "way" not in c}
    for k in (("lazy", "init"), ("freebsd_lazy", "init"), ("freebsd_lazy", "first_alloc")):
        c = cpu[k]
        # Per repetition: the mean of those after the first, which is kept apart.
        assert c["reps"] > 1 and c["ns"] == (c["total_ns"] - c["first_ns"]) // (c["reps"] - 1), c
    # A window timed once says so.
    assert cpu[("chunk", "first_touch")]["reps"] == 1
    assert all(a["ok"] for a in r.of("audit"))
    r = runner("--mem", "1G", "runs=1", "strategies=lazy", "repeat_us=0")
    assert r.rc == OK, r
    assert all(c["reps"] == 1 for c in r.of("cpu_time")), r


def test_rewinds_leave_the_tables_as_a_reset_does(runner):
    """rewind_check scans every entry after each rewind: lazy's heads and its
    first allocation's buddies, freebsd_lazy's chunk heads and the chunk its
    first allocation initialised, over two nodes."""
    r = runner("--mem", "3G", "runs=2", "strategies=lazy,freebsd_lazy", "numa_fake=2", "rewind_check")
    assert r.rc == OK, r
    assert all(c["reps"] > 1 for c in r.of("cpu_time") if c["phase"] == "init" and "way" not in c), r
    assert all(a["ok"] for a in r.of("audit"))
    assert len({a["page_digest"] for a in r.of("audit")}) == 1


def test_a_probe_that_folds_is_named_and_shown_nowhere(runner):
    r = runner("--mem", "256M", "runs=1", "strategies=chunk", "--fake-probe-fold", "7")
    assert r.rc == OK, r
    probe = r.one("clock_probe")
    assert probe["reliable"] is False and probe["fake_fold"] == 7 and "outside 0.30-1.60x" in probe["why"]
    assert "probe: UNRELIABLE: the core-clock probe read" in r.out
    assert not any("mhz" in c or "adds_per_cycle_x100" in c for c in r.of("cpu_time"))


def test_a_bad_fake_fold_is_refused(runner):
    for bad in (["--fake-probe-fold"], ["--fake-probe-fold", "0"], ["--fake-probe-fold", "x"]):
        r = runner("--mem", "256M", *bad)
        assert r.rc == USAGE and "--fake-probe-fold needs a whole number from 1 to 64" in r.err, r
