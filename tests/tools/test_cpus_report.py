# SPDX-License-Identifier: MIT
"""The report's CPU sections: the scaling table, pages and times per node,
bring-up and TSC skew, from the records a run wrote; nothing without them."""
from fakes import Results, Run
from harness.report.cpus import cpus_sections

GIB = 1 << 30

SCALING = [{"type": "scaling", "strategy": "chunk", "cpus": c, "runs": 3, "median_ns": ns,
            "speedup": sp, "floor_median_ns": fl, "x_floor": xf}
           for c, ns, sp, fl, xf in ((1, 12_000_000, 1.0, 4_000_000, 3.0), (2, 6_500_000, 1.84, 2_500_000, 2.6))]
PAR = [{"type": "par", "strategy": "page", "run": r, "cpus": 2, "workers": [],
        "nodes": [{"node": 0, "pages": 100, "cpus": 1, "ns": 1_500_000},
                  {"node": 1, "pages": 50, "cpus": 1, "ns": 900_000}]} for r in (0, 1)]
SMP = [{"type": "smp", "cpus_up": 2, "cpus_found": 2, "bringup_ns": 14_000_000, "tsc_skew_ns": 120,
        "tsc_bound_ns": 140}]


def test_every_section_from_its_records():
    text = "\n".join(cpus_sections(Results(Run(16 * GIB, SCALING + PAR + SMP))))
    assert "| 16 GiB | chunk | 2 | 3 | 6.500 | 1.84 | floor | 2.500 | 2.60 |" in text
    # The first run only, one row per node.
    assert text.count("| 16 GiB | page | 2 | 0 | 100 | 1 | 1.500 |") == 1
    assert "| 16 GiB | page | 2 | 1 | 50 | 1 | 0.900 |" in text
    assert "| 16 GiB | 2 | 2 | 14.000 | 120 | 140 |" in text


PADATA = [{"type": "scaling", "strategy": "linux_deferred", "phase": "deferred", "cpus": c, "runs": 3,
           "median_ns": ns, "speedup": sp, "floor": "floor_linux", "floor_median_ns": fl, "x_floor": xf}
          for c, ns, sp, fl, xf in ((1, 10_000_000, 1.0, 5_000_000, 2.0), (2, 6_000_000, 1.66, 3_000_000, 2.0))] + \
    [{"type": "scaling_node", "strategy": "linux_deferred", "cpus": c, "node": 0, "threads": c,
      "median_ns": ns, "stdev_ns": sd} for c, ns, sd in ((1, 10_000_000, 200_000), (2, 6_000_000, 100_000))]


def test_deferred_init_as_the_padata_series_tabled_it():
    text = "\n".join(cpus_sections(Results(Run(16 * GIB, PADATA))))
    # Against the floor of its own metadata, and per node: threads, the share of them, time saved.
    assert "| 16 GiB | linux_deferred (deferred) | 2 | 3 | 6.000 | 1.66 | floor_linux | 3.000 | 2.00 |" in text
    assert "| 16 GiB | linux_deferred | 0 | 50% (1) | -- | 10.0 (0.2) |" in text
    assert "| 16 GiB | linux_deferred | 0 | 100% (2) | 40.0% | 6.0 (0.1) |" in text


def test_nothing_without_the_records():
    assert cpus_sections(Results(Run(GIB, [{"type": "bench"}]))) == []
