# SPDX-License-Identifier: MIT
"""`python3 -m harness compare A B`: per-strategy change with a noise estimate."""
import shutil

from harness import cli, common
from harness.report import compare
from harness.results import records
from conftest import SYNTHETIC, rewrite, to_kvm


def scaled(folder, strategy, factors):
    """Multiplies the init results of one strategy, run by run."""
    def edit(w):
        r = w["record"]
        if r["type"] == "result" and r["strategy"] == strategy and r["phase"] == "init":
            r["ns"] = round(r["ns"] * factors[r["run"]])
        return w
    rewrite(folder, edit)


def rows_by_key(a, b):
    return {(r["nbytes"] >> 30, r["strategy"], r["phase"]): r
            for r in compare.compare_rows(records.load_folder(a), records.load_folder(b))}


def test_the_same_runs_in_another_order_are_no_change(synth):
    # B holds A's runs with their numbers rotated: each run's figures differ
    # from A's run of the same number, every median and spread is the same.
    def rotate(w):
        r = w["record"]
        if r["type"] == "result":
            r["run"] = (r["run"] + 1) % 4
        return w
    rewrite(synth, rotate)
    rows = rows_by_key(SYNTHETIC, synth)
    a = records.load_folder(SYNTHETIC)
    keys = {(run.nbytes >> 30, rec["strategy"], rec["phase"]) for run in a.sizes for rec in run.of("result")}
    assert set(rows) == keys and len(rows) == 27
    assert all(r["change_pct"] == 0 and r["verdict"] == "within noise" and r["noise_pct"] > 0
               for r in rows.values()), rows


def test_real_change_and_noise(synth):
    # chunk twice as fast on every run: a change far beyond the ~2 % spread.
    scaled(synth, "chunk", [0.5, 0.5, 0.5, 0.5])
    # sweep 1 % slower on every run: its min..max ranges overlap, so noise.
    scaled(synth, "sweep", [1.01, 1.01, 1.01, 1.01])
    rows = rows_by_key(SYNTHETIC, synth)
    c = rows[(4, "chunk", "init")]
    # 4 GiB chunk median 41808000 -> 20904000: -50 %
    assert c["a"] == 41808000 and c["b"] == 20904000
    assert abs(c["change_pct"] + 50) < 1e-9 and c["verdict"] == "faster"
    # cv of 42016, 40768, 41600, 42848 (x 1000): mean 41808, squared
    # deviations 2249728, sample sd sqrt(2249728 / 3) = 865.97 -> 2.0713 %,
    # unchanged by halving. noise = 2 x sqrt(2 x 2.0713^2) = 5.8585 %
    assert abs(c["noise_pct"] - 5.8585) < 0.001
    o = rows[(4, "sweep", "init")]
    assert abs(o["change_pct"] - 1.0) < 0.01 and o["verdict"] == "within noise"
    assert rows[(4, "page", "init")]["verdict"] == "within noise"


def test_slower_beyond_noise(synth):
    scaled(synth, "floor", [1.2, 1.2, 1.2, 1.2])
    r = rows_by_key(SYNTHETIC, synth)[(1, "floor", "init")]
    assert abs(r["change_pct"] - 20) < 0.01 and r["verdict"] == "slower"


def test_single_run_has_no_noise_estimate(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    for d in (a, b):
        shutil.copytree(SYNTHETIC, d)
        rewrite(d, lambda w: None if w["record"]["type"] == "result" and w["record"]["run"] > 0 else w)
    scaled(b, "page", [2.0])
    r = rows_by_key(a, b)[(8, "page", "init")]
    assert r["verdict"] == "no noise estimate (1 run)" and abs(r["change_pct"] - 100) < 1e-6


def test_sizes_in_one_folder_only(synth):
    rewrite(synth, lambda w: None if w.get("size") == "8G" else w)
    rows = rows_by_key(SYNTHETIC, synth)
    assert rows[(8, "page", "init")]["verdict"] == "only in A"
    rows = rows_by_key(synth, SYNTHETIC)
    assert rows[(8, "lazy", "first_touch")]["verdict"] == "only in B"


def test_compare_text_and_accelerator_mismatch(synth, capsys):
    to_kvm(synth)
    assert cli.main(["compare", SYNTHETIC, synth]) == 0
    out = capsys.readouterr().out
    assert common.TCG_LABEL in out
    assert "A ran under TCG and B under KVM" in out
    assert "4 GiB  chunk     init" in out and "within noise" in out


def test_compare_counts_real_changes_and_shows_failures(synth, capsys):
    scaled(synth, "lazy", [3.0, 3.0, 3.0, 3.0])
    from conftest import edit_records
    edit_records(synth, "1G", "done", {}, status="fail", reason="audit failed")
    assert cli.main(["compare", SYNTHETIC, synth]) == 0
    out = capsys.readouterr().out
    # lazy init three times slower at each of the 3 sizes, nothing else moved
    assert "3 of 27 changes are beyond noise." in out
    assert "!! B 1 GiB FAILED: kernel reported failure: audit failed" in out
    line = [x for x in out.splitlines() if x.startswith("8 GiB") and " lazy " in x and " init " in x][0]
    assert "+200.00" in line and line.endswith("slower")
