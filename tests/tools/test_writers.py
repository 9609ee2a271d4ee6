# SPDX-License-Identifier: MIT
"""summary.csv and report.md: concrete cells on the synthetic run over sizes, and the
failures that must show."""
import csv
import os

from harness.results import records
from harness.report import markdown, outputs as report
from harness.results import stats
from conftest import SYNTHETIC, edit_records, rewrite


def csv_of(folder):
    results = records.load_folder(folder)
    path = os.path.join(folder, "summary.csv")
    report.write_csv(results, path)
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def row(rows, size, strategy, phase="init"):
    found = [r for r in rows if r["size_gib"] == size and r["strategy"] == strategy and r["phase"] == phase]
    assert len(found) == 1, (size, strategy, phase)
    return found[0]


def test_csv_one_row_per_size_strategy_and_phase(synth):
    rows = csv_of(synth)
    # 3 sizes x (4 heap strategies x 2 phases + floor init)
    assert len(rows) == 27
    assert {r["size_gib"] for r in rows} == {"1", "4", "8"}
    assert [r["strategy"] for r in rows[:9]] == ["page", "page", "chunk", "chunk", "sweep", "sweep",
                                                "lazy", "lazy", "floor"]


def test_csv_cells(synth):
    rows = csv_of(synth)
    r = row(rows, "4", "chunk")
    assert r["mem_bytes"] == str(4 << 30) and r["pages"] == "1040000"
    assert (r["runs"], r["median_ns"], r["min_ns"], r["max_ns"]) == ("4", "41808000", "40768000", "42848000")
    assert r["ns_per_page"] == "40.200"                 # 41808000 / 1040000
    assert r["speedup_vs_page"] == "6.28"               # paired median 6.2797
    assert r["x_floor"] == "4.02"                       # 41808000 / 10400000
    assert r["init_plus_first_touch_ns"] == "48079200"  # 41808000 + 6271200
    assert r["init_plus_first_touch_ns_per_page"] == "46.230"
    assert r["first_alloc_median_ns"] == "922"
    assert r["kernel_check"] == "agrees" and r["status"] == "ok"
    p = row(rows, "4", "page")
    assert (p["median_ns"], p["ns_per_page"], p["cv_pct"], p["speedup_vs_page"]) == \
        ("262600000", "252.500", "2.61", "1.00")
    # End-to-end and ratio columns belong to init rows of heap strategies only.
    t = row(rows, "4", "lazy", "first_touch")
    assert t["median_ns"] == "31356000" and t["speedup_vs_page"] == "" and t["init_plus_first_touch_ns"] == ""
    f = row(rows, "1", "floor")
    assert f["median_ns"] == "2600000" and f["x_floor"] == "" and f["first_alloc_median_ns"] == ""


def test_csv_marks_disagreement_and_failure(synth):
    edit_records(synth, "8G", "summary", {"strategy": "sweep", "phase": "init"}, max_ns=5)
    edit_records(synth, "8G", "done", {}, status="fail", reason="heap digests differ")
    rows = csv_of(synth)
    r = row(rows, "8", "sweep")
    assert r["kernel_check"].startswith("DISAGREES") and "max_ns kernel 5" in r["kernel_check"]
    assert r["status"] == "FAILED"
    assert row(rows, "4", "sweep")["status"] == "ok"


def md_of(folder):
    return markdown.render_markdown(records.load_folder(folder))


def test_markdown_tables(synth):
    md = md_of(synth)
    # Old versus new at 4 GiB: 262.600 ms -> 41.808 ms, 6.28x, 4.02 x floor.
    assert "| 4 GiB | 1040000 | 262.600 | 41.808 | 6.28 | 252.500 | 40.200 | 10.000 | 4.02 |" in md
    # Every strategy: the lazy row at 8 GiB (median 4202 us, 2.020 ns/page).
    assert "| 8 GiB | lazy | 4 | 4.202 | 3.952 | 4.576 | 6.13 | 2.020 |" in md
    # End to end at 1 GiB for lazy: 0.525 + 7.839 = 8.364 ms, first allocation 4100 ns.
    assert "| 1 GiB | lazy | 0.525 | 7.839 | 8.364 | 32.170 | 4100 |" in md
    assert "![ns per page against memory size](plot.png)" in md
    assert "| 4 GiB | ok | ok | TCG | 10.5 |  | `serial-4G.log` |" in md


def test_markdown_xen_figures_and_derivation(synth):
    md = md_of(synth)
    # 4 GB = 1048576 pages: 60 ms -> 57.22 ns/page, 4 ms -> 3.81 ns/page.
    assert "| 4 GB | 1048576 | 60 | 6 | 62 | 4 | 57.22 -> 5.72 | 59.13 -> 3.81 |" in md
    assert "| 90 GB | 23592960 | 1426 | 166 | 1445 | 96 |" in md
    assert "GB x 2^30 / 4096" in md
    assert "Arm64 Neoverse N1, 32 GB: 1180 ms -> 63 ms" in md
    for reason in ("Different machine", "Nesting", "Per-call costs"):
        assert reason in md
    # The synthetic boots' bench records carry no cost model: the report says
    # they predate it rather than naming one.
    assert "These runs predate the model" in md and "These runs: `xen_costs=" not in md


def test_markdown_checks_section(synth):
    assert "agree with the host's statistics within rounding" in md_of(synth)
    edit_records(synth, "4G", "audit", {"strategy": "chunk", "run": 2}, ok=False, errors=["order 3 list corrupt"])
    edit_records(synth, "4G", "comparison", {"strategy": "chunk"}, speedup_vs_page=9.99)
    md = md_of(synth)
    assert "**FAILED** 4 GiB: audit failed: chunk run 2: order 3 list corrupt" in md
    assert "**DISAGREES** 4 GiB chunk/init: speedup_vs_page kernel 9.99" in md
    assert "every boot finished ok" not in md


def test_failures():
    runs = records.load_folder(SYNTHETIC).sizes
    assert [stats.failures(r) for r in runs] == [[], [], []]


def test_failures_name_each_cause(synth):
    def edit(w):
        r = w["record"]
        if w.get("size") == "1G" and r["type"] == "boot_result":
            r.update(status="timeout", qemu_rc=-9)
        if w.get("size") == "1G" and r["type"] == "done":
            return None
        if w.get("size") == "8G" and r["type"] == "comparison" and r["strategy"] == "lazy":
            r["digest_equal"] = False
        return w
    rewrite(synth, edit)
    one, four, eight = records.load_folder(synth).sizes
    assert "boot ended timeout (qemu exit -9)" in stats.failures(one)
    assert any("no done record" in f for f in stats.failures(one))
    assert stats.failures(four) == []
    assert stats.failures(eight) == ["lazy built a different heap (digest_equal=false)"]


def test_boot_without_benchmark_records_fails(synth):
    rewrite(synth, lambda w: None if w["record"]["type"] in ("bench", "result") and w["size"] == "4G" else w)
    four = records.load_folder(synth).sizes[1]
    assert any("no benchmark records" in f for f in stats.failures(four))
    rows = csv_of(synth)
    assert [r["status"] for r in rows if r["size_gib"] == "4"] == ["FAILED"]
