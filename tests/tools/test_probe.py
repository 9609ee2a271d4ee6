# SPDX-License-Identifier: MIT
"""The core-clock probe's verdict on recorded figures from both vendors
(tests/tools/data/probes.json, each set saying where it was recorded): a
probe that folds, or reads far from the TSC, is named and never shown as a
clock, and the shared-core count it feeds is unknown."""
import json
import os

import pytest

from harness.report.probe import HIGH_X_TSC, LOW_X_TSC, clock_of, judge, probe_text
from harness.results.records import Results, SizeRun

DATA = os.path.join(os.path.dirname(__file__), "data", "probes.json")


@pytest.fixture(scope="module")
def recorded():
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)


def size_run(records, nbytes=8 << 30):
    run = SizeRun(nbytes)
    run.records = records
    return run


def test_the_add_chain_that_golden_cove_folds_is_named(recorded):
    c = clock_of(size_run(recorded["intel_xeon_add_chain"]["records"]))
    assert not c.reliable and c.mhz > 18000 and c.tsc_mhz == 2599
    assert "7." in c.why and "outside 0.30-1.60x" in c.why, c.why


def test_the_add_chain_on_zen5_reads_over_the_bound(recorded):
    """The EPYC's add chain read 1.6x to 1.8x its TSC: a boost the rule
    cannot tell from a fold without a second chain, so it is not shown."""
    c = clock_of(size_run(recorded["amd_epyc_zen5_add_chain"]["records"]))
    assert c.tsc_mhz == 2596 and 4000 < c.mhz < 4700
    assert not c.reliable and "outside" in c.why


def test_the_multiply_chain_holds_on_the_xeon(recorded):
    rec = recorded["intel_xeon_imul_chain"]["records"][0]
    c = clock_of(size_run([rec]))
    assert c.reliable and c.why == "" and c.issue_ok
    assert LOW_X_TSC <= c.x_tsc <= HIGH_X_TSC
    assert judge(rec["mhz"], rec["tsc_mhz"], rec["check_mhz"]) == (True, "")


def test_a_fake_fold_is_named_by_the_runner(recorded):
    rec = recorded["intel_xeon_fake_fold"]["records"][0]
    assert rec["fake_fold"] == 7 and rec["reliable"] is False
    c = clock_of(size_run([rec]))
    assert not c.reliable and "outside" in c.why


@pytest.mark.parametrize("mhz, tsc, check, ok, says", [
    (3450, 2600, 3470, True, ""),
    (18834, 2600, None, False, "7.24x the TSC's rate"),
    (600, 2600, None, False, "0.23x the TSC's rate"),
    # A fold of a fifth: inside the TSC's bounds, caught by the second chain.
    (4140, 2600, 3450, False, "the second chain reads 3450 MHz"),
    (3450, 0, None, False, "the TSC is not calibrated"),
    (0, 2600, None, False, "it read nothing"),
])
def test_the_rule(mhz, tsc, check, ok, says):
    got, why = judge(mhz, tsc, check)
    assert got is ok and says in why, why


def test_the_report_names_an_unreliable_probe(recorded):
    results = Results("/nowhere")
    results.sizes = [size_run(recorded["intel_xeon_add_chain"]["records"])]
    text = probe_text(results)
    assert "**Probe UNRELIABLE at 8 GiB**" in text and "never" not in text
    assert "whether they shared a core is unknown" in text
