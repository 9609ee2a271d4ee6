# SPDX-License-Identifier: MIT
"""The statistics, against docs/records.md's definitions and hand-computed cases,
and the kernel's own integer statistics (bench/stats.c, built for the host)
against the host's."""
import ctypes
import math
import random
import shutil
import subprocess

import pytest

from harness.results import records
from harness.results import stats
from conftest import ROOT, SYNTHETIC, edit_records


@pytest.mark.parametrize("values,want", [
    ([7], 7),                           # one run
    ([3, 1, 2], 2),                     # odd n: the middle value
    ([5, 1, 9, 3, 7], 5),
    ([1, 4], 2),                        # even n: (1 + 4) / 2 = 2.5, rounded down
    ([4, 1, 3, 2], 2),                  # (2 + 3) / 2 = 2.5 -> 2
    ([10, 20, 30, 40], 25),             # exact mean stays exact
    ([999, 1000], 999),                 # 999.5 -> 999
])
def test_median_integers(values, want):
    got = stats.median(values)
    assert got == want and isinstance(got, int)


def test_median_of_ratios_is_not_rounded():
    assert stats.median([1.5, 2.0]) == 1.75
    assert stats.median([2.0, 1.0, 4.0]) == 2.0


def test_median_of_nothing_raises():
    with pytest.raises(ValueError):
        stats.median([])


def test_cv_pct():
    assert stats.cv_pct([123]) == 0.0                       # one run
    assert stats.cv_pct([100, 100, 100]) == 0.0
    # [10, 20]: mean 15, sample sd sqrt(50) = 7.0711 -> 47.14 %
    assert stats.cv_pct([10, 20]) == pytest.approx(47.1405, abs=1e-4)
    # [2, 4, 4, 4, 5, 5, 7, 9]: mean 5, squares sum 32, sample sd sqrt(32/7) = 2.1381
    assert stats.cv_pct([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(42.762, abs=1e-3)


def test_speedup_pairs_by_run_index():
    # Ratios 100/50, 200/50, 300/300 = 2, 4, 1 -> median 2, while the ratio
    # of the medians would be 200 / 50 = 4.
    ref = {0: 100, 1: 200, 2: 300}
    assert stats.paired_speedup(ref, {0: 50, 1: 50, 2: 300}) == 2.0
    # Pairing follows the index, not the order of the values: 6/3, 8/2.
    assert stats.paired_speedup({1: 8, 0: 6}, {0: 3, 1: 2}) == 3.0
    # Even n takes the mean of the two middle ratios without rounding: 2, 3.
    assert stats.paired_speedup({0: 4, 1: 9}, {0: 2, 1: 3}) == 2.5
    # Runs missing on one side are left out; none in common means no value.
    assert stats.paired_speedup({0: 10, 5: 99}, {0: 5, 7: 1}) == 2.0
    assert stats.paired_speedup({0: 10}, {1: 5}) is None


def four_gib():
    return stats.SizeStats(records.load_folder(SYNTHETIC).sizes[1])


def test_stats_of_a_synthetic_size():
    ss = four_gib()
    assert ss.strategies == ["page", "chunk", "sweep", "lazy", "floor"]
    page = ss.get("page")
    # page runs 260000001, 265200000, 257400000, 273000000 (generate.py):
    # middle two 260000001 and 265200000 -> 262600000.5 -> 262600000.
    assert (page.runs, page.median, page.min, page.max) == (4, 262600000, 257400000, 273000000)
    assert page.per_page() == pytest.approx(252.5)           # / 1040000 pages
    # mean 263900000.25; squared deviations sum 1.41960e14; / 3; sqrt / mean
    assert page.cv == pytest.approx(2.6066, abs=1e-3)
    chunk = ss.get("chunk")
    # chunk runs 42016000, 40768000, 41600000, 42848000 -> (41600000 + 42016000) / 2
    assert chunk.median == 41808000
    # paired ratios 6.18812, 6.50510, 6.18750, 6.37136 -> (6.18812 + 6.37136) / 2
    assert ss.speedup("chunk") == pytest.approx(6.27974, abs=1e-5)
    assert ss.speedup("page") == 1.0
    # floor median (10296000, 10400000, 10400000, 10504000) = 10400000
    assert ss.x_floor("chunk") == pytest.approx(41808000 / 10400000)
    assert ss.x_floor("page") == pytest.approx(25.25)
    # first touch 6240000, 6427200, 6115200, 6302400 -> 6271200
    assert ss.get("chunk", "first_touch").median == 6271200
    assert ss.end_to_end("chunk") == 41808000 + 6271200
    # first_alloc_ns 900, 990, 810, 945 -> (900 + 945) / 2 = 922.5 -> 922
    assert ss.first_alloc("chunk") == 922
    assert ss.end_to_end("floor") is None and ss.first_alloc("floor") is None


def test_new_strategy_names_need_no_code(synth):
    # A strategy the host has never heard of goes everywhere the others go.
    def rename(w):
        if w["record"].get("strategy") == "sweep":
            w["record"]["strategy"] = "sparse_v2"
        if w["record"].get("type") == "bench":
            w["record"]["strategies"] = ["page", "chunk", "sparse_v2", "lazy"]
        return w
    from conftest import rewrite
    rewrite(synth, rename)
    ss = stats.SizeStats(records.load_folder(synth).sizes[0])
    assert ss.strategies == ["page", "chunk", "sparse_v2", "lazy", "floor"]
    assert ss.get("sparse_v2", "first_touch").runs == 4
    assert not stats.disagreements(ss)


def test_cross_check_agrees_on_the_synthetic_kernel_records():
    # The generator rounds like a kernel (truncated fixed point); the host
    # computes in floating point. That difference must not be flagged.
    for run in records.load_folder(SYNTHETIC).sizes:
        assert stats.disagreements(stats.SizeStats(run)) == {}


@pytest.mark.parametrize("rtype,match,change,flagged", [
    ("summary", {"strategy": "chunk", "phase": "init"}, {"median_ns": 41808001}, True),
    ("summary", {"strategy": "chunk", "phase": "init"}, {"ns_per_page": 40.201}, False),
    ("summary", {"strategy": "chunk", "phase": "init"}, {"ns_per_page": 40.21}, True),
    ("summary", {"strategy": "page", "phase": "init"}, {"cv_pct": 2.59}, True),
    ("summary", {"strategy": "lazy", "phase": "first_touch"}, {"runs": 3}, True),
    ("comparison", {"strategy": "chunk"}, {"speedup_vs_page": 6.26}, False),
    ("comparison", {"strategy": "chunk"}, {"speedup_vs_page": 6.31}, True),
    ("comparison", {"strategy": "chunk"}, {"x_floor": 4.04}, True),
    ("comparison", {"strategy": "sweep"}, {"end_to_end_median_ns": 1}, True),
    ("comparison", {"strategy": "lazy"}, {"first_alloc_median_ns": 4101}, True),
])
def test_cross_check_flags_beyond_rounding(synth, rtype, match, change, flagged):
    assert edit_records(synth, "4G", rtype, match, **change) == 1
    ss = stats.SizeStats(records.load_folder(synth).sizes[1])
    bad = stats.disagreements(ss)
    key = (match["strategy"], match.get("phase", "init"))
    assert (key in bad) == flagged, bad
    if flagged:
        assert list(change)[0] in "; ".join(bad[key])


def test_cross_check_notices_digest_claims(synth):
    # The audits of 'lazy' built another heap, but the kernel says equal.
    edit_records(synth, "1G", "audit", {"strategy": "lazy"}, digest="00")
    ss = stats.SizeStats(records.load_folder(synth).sizes[0])
    bad = stats.disagreements(ss)
    assert any("digest_equal" in p for p in bad[("lazy", "init")])


def test_missing_kernel_summary_is_marked_absent(synth):
    from conftest import rewrite
    rewrite(synth, lambda w: None if w["record"].get("type") == "summary" else w)
    ss = stats.SizeStats(records.load_folder(synth).sizes[0])
    checks = stats.cross_check(ss)
    assert checks[("page", "init")] == ["absent"]
    assert stats.check_text(checks[("page", "init")]) == "no kernel summary"
    assert not math.isnan(ss.get("page").cv)


# ---- the kernel's statistics against the host's ----------------------------

@pytest.fixture(scope="module")
def kstats(tmp_path_factory):
    """bench/stats.c as the kernel compiles it, in a shared library."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler to build bench/stats.c for the host")
    lib = tmp_path_factory.mktemp("kstats") / "stats.so"
    subprocess.run([cc, "-std=gnu11", "-O2", "-shared", "-fPIC", "-I", ROOT, "-o", str(lib),
                    "bench/stats.c"], cwd=ROOT, check=True)
    k = ctypes.CDLL(str(lib))
    u64p = ctypes.POINTER(ctypes.c_uint64)
    for name, args in (("stat_median", [u64p, ctypes.c_uint]),
                       ("stat_cv_centipct", [u64p, ctypes.c_uint]),
                       ("stat_ratio_centi", [ctypes.c_uint64, ctypes.c_uint64]),
                       ("stat_per_page_milli", [ctypes.c_uint64, ctypes.c_uint64]),
                       ("stat_paired_ratio_centi", [u64p, u64p, ctypes.c_uint])):
        getattr(k, name).argtypes = args
        getattr(k, name).restype = ctypes.c_uint64
    return k


def arr(values):
    return (ctypes.c_uint64 * len(values))(*values)


def samples():
    """Run timings as the kernel sees them, within stats.h's domain (below
    2^52): a few identical, small and huge ones, and random ones of every
    count runs= allows, from a fixed seed."""
    rng = random.Random(20221)
    yield [5, 5, 5]
    yield [2, 4, 4, 4, 5, 5, 7, 9]
    yield [1, 2**52 - 1]
    for n in list(range(1, 12)) + [50, 100]:
        for scale in (10, 10**6, 10**12, 2**52):
            yield [rng.randrange(scale) + 1 for _ in range(n)]


def test_kernel_median_is_the_readmes(kstats):
    for v in samples():
        assert kstats.stat_median(arr(v), len(v)) == stats.median(v), v


def test_kernel_cv_is_the_readmes(kstats):
    for v in samples():
        got = kstats.stat_cv_centipct(arr(v), len(v))
        # docs/records.md: 2 decimals, rounded down. Exact integers, not floats: with
        # d_i = n x_i - sum, cv = sqrt(sum(d_i^2) / (n - 1)) / sum.
        if len(v) < 2:
            assert got == 0
            continue
        s = sum(v)
        sq = sum((len(v) * x - s) ** 2 for x in v)
        want = math.isqrt(sq * 10**8 // (len(v) - 1)) // s
        assert got == want, (v, got, want)
        assert abs(got / 100 - stats.cv_pct(v)) <= 0.011, (v, got, stats.cv_pct(v))


def test_kernel_ratios_are_the_readmes(kstats):
    rng = random.Random(7)
    for _ in range(2000):
        a, b = rng.randrange(1, 2**64), rng.randrange(1, 2**40)
        assert kstats.stat_ratio_centi(a, b) == min(a * 100 // b, 2**64 - 1)
        assert kstats.stat_per_page_milli(a, b) == min(a * 1000 // b, 2**64 - 1)
    assert kstats.stat_ratio_centi(5, 0) == 0
    for v in samples():
        w = [x + 1 for x in reversed(v)]
        want = stats.median([a * 100 // b for a, b in zip(v, w)])
        assert kstats.stat_paired_ratio_centi(arr(v), arr(w), len(v)) == want, (v, w)
