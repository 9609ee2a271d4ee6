# SPDX-License-Identifier: MIT
"""The hand-over after SMP bring-up in `make xen-src`'s report
(harness/real/xen/variants_report.py): `make xen-src` builds Debian's
releases, which patches/xen/staging-parallel does not apply to, so the
run carries the counts `xen-src smp-count --tree` recorded on staging
among its records (records()), and its report shows them labelled as
recorded, not measured by the run (section())."""
import os

from harness import ROOT
from harness.common import md_table, read_jsonl, size_label

RECORDED = os.path.join(ROOT, "docs", "results", "xen-smp-staging", "smp-counts-folded.jsonl")
HOW = ("`python3 -m harness xen-src smp-count --tree DIR --sizes 4,16,64 --nodes 1,2`, 7 December 2026, "
       "Xen staging c447b7308b13 with patches/xen/staging and patches/xen/staging-parallel")


def _cell(rec, cpus):
    path = rec["paths"].get(str(cpus))
    if not path:
        return ""
    return f"{path['instructions'] / rec['pages']:.2f} ({rec['serial'] / path['instructions']:.2f}x)"


def records(path=RECORDED, how=HOW):
    """The counts in `path` as records of a `make xen-src` run
    (type "smp-recorded", with how they were taken), so that its report
    is still written from the run's records alone -> [record]."""
    return [dict(r, type="smp-recorded", how=how) for r in read_jsonl(path) if r.get("type") == "smp_count"]


def section(recs):
    """The report's section: for each size and topology of `recs` (the
    run's "smp-recorded" records), the serial single pass and the critical
    path on K vCPUs, instructions a page handed over and how many times
    shorter -> markdown, '' without them."""
    if not recs:
        return ""
    cpus = sorted({int(c) for r in recs for c in r["paths"]})
    rows = [[size_label(r["mem_bytes"]), len(r["nodes"]), f"{r['kept_pages'] * 100 // r['pages']} %",
             f"{r['serial'] / r['pages']:.2f}"] + [_cell(r, c) for c in cpus]
            for r in sorted(recs, key=lambda r: (len(r["nodes"]), r["mem_bytes"]))]
    keys = ", ".join(sorted({r.get("key", "?") for r in recs}))
    hows = "; ".join(sorted({r.get("how", "?") for r in recs}))
    heads = ["RAM", "nodes", "kept back", "serial single pass"] + [f"{c} vCPU" + "s" * (c > 1) for c in cpus]
    return ("## Xen's heap on every CPU (recorded on staging, not by this run)\n\n" + md_table(heads, rows)
            + "\n\nInstructions a page handed over: the RFC's serial single pass (`sweep`, on staging) and the "
            "critical path of patches/xen/staging-parallel on K vCPUs, with how many times shorter it is; exact "
            "counts under -icount on one vCPU, the critical path worked out from each piece's count "
            f"(docs/results-xen-parallel.md). Recorded by {hows}, release build {keys}.\n\n")
