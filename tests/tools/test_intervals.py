# SPDX-License-Identifier: MIT
"""The 95 % intervals of the hosted headlines (harness/results/intervals.py,
harness/report/intervals.py), the repeat verdict by intervals
(harness/report/repeat.py), and a hosted run's runs spread over passes
(harness/sizes/plan.py, harness/results/records.py): on synthetic records."""
import itertools
import json
import random
from types import SimpleNamespace

import pytest

from harness.report import intervals as report_iv, repeat
from harness.results import intervals as iv
from harness.results.records import Results, SizeRun, load_jsonl, passes_of
from harness.results.stats import SizeStats, cross_check
from harness.sizes import plan as plan_mod

GIB = 1 << 30


def test_the_ranks_are_the_binomials():
    """The narrowest pair of order statistics at 95 %, against the binomial
    worked by hand: P(B <= k) for B binomial(n, 1/2)."""
    # n = 5: the extremes hold the median with 1 - 2/32 = 93.75 %: no interval.
    assert iv.coverage(5, 1) == 1 - 2 / 32 and iv.median_ranks(5) is None
    # n = 6: 1 - 2/64 = 96.9 %, the fewest runs with one.
    assert iv.median_ranks(6) == (1, 6) and iv.coverage(6, 1) == pytest.approx(0.96875)
    # n = 10: P(B <= 1) = 11/1024, P(B <= 2) = 56/1024.
    assert iv.median_ranks(10) == (2, 9)
    assert iv.coverage(10, 2) == pytest.approx(1 - 2 * 11 / 1024) and iv.coverage(10, 3) < 0.95
    # n = 20: P(B <= 5) = 21700/2^20, P(B <= 6) = 60460/2^20.
    assert iv.median_ranks(20) == (6, 15)
    assert iv.coverage(20, 6) == pytest.approx(1 - 2 * 21700 / 2 ** 20)
    assert iv.coverage(20, 7) == pytest.approx(1 - 2 * 60460 / 2 ** 20) and iv.coverage(20, 7) < 0.95


def test_an_interval_is_two_of_the_runs():
    values = [float(v) for v in range(1, 11)]
    random.Random(7).shuffle(values)
    x = iv.Interval(values)
    assert (x.lo, x.hi, x.median, x.n) == (2, 9, 5.5, 10)
    assert x.half_width == pytest.approx(3.5 / 5.5) and x.holds(9) and not x.holds(9.5)
    assert x.text(1) == "2.0-9.0"
    scaled = x.scaled(2)
    assert (scaled.lo, scaled.hi, scaled.median) == (1, 4.5, 2.75)


def test_too_few_runs_have_no_interval_never_a_zero_width():
    for values in ([5.0], [], [3.0, 3.0, 3.0, 3.0, 3.0]):
        x = iv.Interval(values)
        assert not x.known and x.half_width is None and x.holds(5.0) is None
        assert x.text().startswith("no interval: ")
    assert iv.Interval([5.0]).text() == "no interval: 1 run"
    assert report_iv.cell(iv.Interval([5.0])) == "5.000 (no interval: 1 run)"
    assert report_iv.cell(iv.Interval([])) == "no interval: 0 runs"


def test_a_ratio_is_taken_within_each_run_first():
    """page/chunk run by run: the runs where both moved together give a
    steady ratio, which the medians' ratio does not show; a run one side
    lost is left out."""
    page = {r: 100.0 * (1 + r) for r in range(7)}
    chunk = {r: 10.0 * (1 + r) for r in range(6)}          # run 6 lost
    x = iv.ratio_interval(page, chunk)
    assert x.n == 6 and (x.lo, x.hi, x.median) == (10, 10, 10)
    assert 100.0 * 4 / (10.0 * 3.5) != 10            # the ratio of the medians is another figure


def cpu_run(nbytes, windows, pages=1000):
    """A SizeRun of cpu_time records: windows {(strategy, phase): [ns by run]}."""
    run = SizeRun(nbytes)
    run.records = [{"type": "bench", "pages": pages}]
    for (s, phase), values in windows.items():
        run.records += [{"type": "cpu_time", "strategy": s, "phase": phase, "run": r, "ns": ns}
                        for r, ns in enumerate(values)]
    return run


def results_of(*runs):
    s = Results("/nowhere")
    s.sizes = list(runs)
    return s


def test_the_repeat_verdict_is_by_intervals():
    """Two runs over sizes at 8 GiB: chunk's medians 2 % apart inside each other's
    intervals; page's 8 % apart, outside; once with three runs, no interval.
    The 3 % rule says otherwise of chunk and page's pair alike."""
    a = results_of(cpu_run(8 * GIB, {("chunk", "init"): [1000, 1010, 1020, 1030, 1040, 1050],
                                   ("page", "init"): [10000, 10010, 10020, 10030, 10040, 10050],
                                   ("sweep", "init"): [300, 310, 320]}))
    b = results_of(cpu_run(8 * GIB, {("chunk", "init"): [1020, 1030, 1040, 1050, 1060, 1070],
                                   ("page", "init"): [10800, 10810, 10820, 10830, 10840, 10850],
                                   ("sweep", "init"): [300, 310, 320]}))
    rows = {r[1]: r for r in repeat.crossed(a, b)}
    assert rows["chunk"][5] is True and rows["chunk"][6] is True
    assert rows["page"][5] is False and rows["page"][6] is False
    assert rows["sweep"][5] is None and rows["sweep"][6] is None
    assert repeat.verdict(repeat.crossed(a, b)) == (1, 2, 3)
    # One run's headline inside, the other's not: not counted as agreeing.
    c = results_of(cpu_run(8 * GIB, {("chunk", "init"): [1000, 1001, 1002, 1003, 1004, 1005]}))
    d = results_of(cpu_run(8 * GIB, {("chunk", "init"): [900, 950, 1008, 1010, 1100, 1200]}))
    (row,) = repeat.crossed(c, d)
    assert row[5] is False and row[6] is True and repeat.verdict([row]) == (0, 1, 1)
    # Under 8 GiB a row is not counted.
    e = results_of(cpu_run(4 * GIB, {("chunk", "init"): [1000] * 6}))
    assert repeat.verdict(repeat.crossed(e, e)) == (0, 0, 0)


def test_the_exchange_of_two_runs_over_sizes():
    """Two runs over sizes of six runs each pooled: 924 splits. Apart (every A run below
    every B run), a split sets the medians as far apart only when one side
    holds the pool's four lowest and the other its four highest, the four
    between split two and two: 6 ways each way round, p = 12/924. The share
    inside each other's interval is what Interval.holds() says split by split."""
    pool = [float(v) for v in range(1, 13)]
    a, b = iv.Interval(pool[:6]), iv.Interval(pool[6:])
    inside, p = iv.exchanged(a, b)
    assert p == pytest.approx(12 / 924)
    held = 0
    for pick in itertools.combinations(range(12), 6):
        x = iv.Interval([pool[i] for i in pick])
        y = iv.Interval([pool[i] for i in range(12) if i not in pick])
        held += bool(x.holds(y.median) and y.holds(x.median))
    assert inside == pytest.approx(held / 924) and 0.7 < inside < 0.9
    # The same runs, the two swapped: the same answer.
    assert iv.exchanged(b, a) == (inside, p)
    # Equal medians: every split sets them at least as far apart.
    assert iv.exchanged(iv.Interval([1.0, 3, 5, 7, 9, 11]), iv.Interval([2.0, 3, 5, 7, 9, 10]))[1] == 1.0
    # Without an interval on one side, no answer.
    assert iv.exchanged(a, iv.Interval([7.0, 8, 9])) is None
    # Whole ns, scaled to ns a page: the Interval's median of 1..6 is 3 (rounded
    # down) where the split's is 3.5, and the measured split still counts.
    ints_a, ints_b = iv.Interval([1, 2, 3, 4, 5, 6]).scaled(7), iv.Interval([7, 8, 9, 11, 12, 13]).scaled(7)
    assert ints_a.median == 3 / 7 and iv.exchanged(ints_a, ints_b)[1] >= 1 / 924
    # Too many ways to split: a fixed draw, so the report regenerates alike;
    # the measured split, which the draw may miss, is counted: p is never 0.
    big_a, big_b = iv.Interval([float(v) for v in range(0, 40, 2)]), iv.Interval([float(v) for v in range(1, 41, 2)])
    assert iv.exchanged(big_a, big_b) == iv.exchanged(big_a, big_b)
    far_a, far_b = iv.Interval([float(v) for v in range(20)]), iv.Interval([float(v) for v in range(100, 120)])
    assert iv.exchanged(far_a, far_b)[1] == pytest.approx(1 / (iv.SPLITS_MAX + 1))
    # How many of n tests at 5 % chance passes 95 % of the time: P(B <= 9) of
    # binomial(111, 0.05) is under 0.95 and P(B <= 10) over it.
    assert iv.binomial_upper(111, 0.05) == 10 and iv.binomial_upper(20, 0.05) == 3
    assert iv.binomial_upper(3, 0.0) == 0


def test_the_repeat_says_what_honest_intervals_give():
    """repeat.md's exchange lines: two runs over sizes drawn alike at 8 and
    16 GiB read as one host; one moved by 30 % at every size reads as MORE."""
    def two_runs(shift):
        rng = random.Random(3)
        return [results_of(*[cpu_run(n * GIB, {(s, "init"): [1e7 * (1 + k * shift) * rng.uniform(0.9, 1.1)
                                                           for _ in range(6)]
                                             for s in ("chunk", "page", "sweep", "lazy")})
                           for n in (8, 16)]) for k in (0, 1)]
    text = "\n".join(repeat.exchange_lines(repeat.crossed(*two_runs(0.0))))
    assert "of the 8 would lie inside" in text and "as far as their runs can tell" in text
    moved = "\n".join(repeat.exchange_lines(repeat.crossed(*two_runs(0.3))))
    assert "8 of 8" in moved and "MORE" in moved
    assert repeat.exchange_lines([]) == []


def test_the_windows_left_wide_are_named():
    run = cpu_run(8 * GIB, {("chunk", "init"): [1000000 * x for x in (10, 11, 12, 13, 14, 20)],
                            ("page", "init"): [10000000] * 6,
                            ("sweep", "init"): [2000000] * 3,
                            ("lazy", "init"): [100, 200, 300, 400, 500, 600]})     # under 1 ms: not counted
    run.records.append({"type": "result", "strategy": "floor", "phase": "init", "run": 0, "ns": 5,
                        "pages": 1000, "ticks": 5})     # every CPU time of the floor lost
    s = results_of(run)
    wide = report_iv.wide_windows(s)
    assert [(w[1], round(w[3], 3) if w[3] else None) for w in wide] == [("chunk", 0.4), ("sweep", None)]
    text, met = report_iv.summary_line(s)
    assert "chunk 8 GiB 40.0%" in text and "sweep 8 GiB no interval" in text and not met
    section = "\n".join(report_iv.interval_section(s))
    assert "| 8 GiB | floor | init | 0 | (no interval: 0 runs) | no interval |" in section
    assert "| 8 GiB | sweep | init | 3 | 2000.000 (no interval: 3 runs) | no interval |" in section


def test_runs_spread_over_passes():
    plan = plan_mod.Plan("hosted", "host", [GIB, 1024 * GIB], 6, "runs=6 strategies=chunk", [],
                         passes=6, one_boot=[1024 * GIB])
    assert plan.pass_runs(GIB) == [1] * 6
    assert plan.pass_runs(1024 * GIB) == [3, 0, 0, 0, 0, 0]
    assert plan.boot_append(GIB, 1, 4) == "runs=1 strategies=chunk run0=4"
    assert plan_mod.Plan("hosted", "host", [GIB], 7, "runs=7", [], passes=3).pass_runs(GIB) == [3, 2, 2]
    assert plan_mod.Plan("pvh", "kvm", [GIB], 5, "runs=5", []).boot_append(GIB, 5, 0) == "runs=5"


def args(**kw):
    base = dict(hosted=True, full=False, quick=False, sizes=None, runs=None, strategies=None, passes=None,
                target=5.0)
    return SimpleNamespace(**dict(base, **kw))


def test_the_default_hosted_plan_is_a_pass_a_run():
    p = plan_mod.make(args())
    assert p.runs == 6 and p.passes == 6 and p.one_boot == {1024 * GIB}
    assert any("spread over 6 passes" in n for n in p.notes)
    p = plan_mod.make(args(sizes="1,4", runs=2))
    assert p.passes == 2 and not p.one_boot and p.pass_runs(GIB) == [1, 1]
    assert plan_mod.make(args(sizes="1", runs=4, passes=2)).pass_runs(GIB) == [2, 2]
    from harness.common import BenchError
    with pytest.raises(BenchError, match="--passes must be at least 1"):
        plan_mod.make(args(passes=0))
    with pytest.raises(BenchError, match="--target"):
        plan_mod.make(args(target=0))


def line(size, rec, source="kernel", **tag):
    return json.dumps({"size_bytes": size, "size": "1G", "source": source, **tag, "record": rec})


def boot(run0, ns):
    """One pass's records at 1 GiB: a run of chunk and of the floor, and the kernel's summaries of it."""
    recs = [{"type": "bench", "pages": 1000, "runs": 1, "run0": run0}]
    for s, v in (("chunk", ns), ("floor", ns // 2)):
        recs += [{"type": "result", "strategy": s, "phase": "init", "run": 0, "pages": 1000, "ticks": v, "ns": v},
                 {"type": "cpu_time", "strategy": s, "phase": "init", "run": 0, "ns": v},
                 {"type": "summary", "strategy": s, "phase": "init", "runs": 1, "median_ns": v, "min_ns": v,
                  "max_ns": v}]
    return recs + [{"type": "done", "status": "ok"}]


def test_a_size_in_passes_reads_as_one_size(tmp_path):
    """Three passes of one run at 1 GiB: the size's runs are the whole run's
    0, 1, 2; each boot's summaries are checked against its own run; the
    harness record sums the boots' wall times; a failed pass is named."""
    lines = [line(None, {"type": "run", "runs": 3, "passes": 3}, "harness")]
    for k, ns in enumerate((1000, 1100, 1200)):
        lines += [line(GIB, r, pass_=None, **{"pass": k, "run0": k}) for r in boot(k, ns)]
        lines.append(line(GIB, {"type": "boot_result", "status": "ok", "elapsed_s": 1.5, "accel": "host"},
                          "harness", **{"pass": k, "run0": k}))
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(x.replace('"pass_": null, ', "") for x in lines) + "\n")
    s = load_jsonl(str(path))
    (run,) = s.sizes
    assert len(passes_of(run)) == 3 and run.harness["elapsed_s"] == 4.5
    ss = SizeStats(run)
    assert ss.get("chunk").by_run == {0: 1000, 1: 1100, 2: 1200}
    assert all(p == ["absent"] or p == [] for p in cross_check(ss).values()), cross_check(ss)
    assert not [p for p in cross_check(ss).values() if p and p != ["absent"]]
    # A kernel summary that disagrees with its own pass's run is caught there.
    bad = path.read_text().replace('"median_ns": 1100', '"median_ns": 1111')
    path.write_text(bad)
    probs = cross_check(SizeStats(load_jsonl(str(path)).sizes[0]))[("chunk", "init")]
    assert probs == ["median_ns kernel 1111 vs host 1100"], probs
