# SPDX-License-Identifier: MIT
"""The report's sections about CPUs and nodes (report.md): the scaling table
from the `scaling` records, each parallel init's pages and times per node
from the `par` records, and the CPUs' bring-up and TSC skew from `smp`."""
from harness.common import fmt_ms, gib_text, md_table


def scaling_rows(run):
    return [[gib_text(run.nbytes), s["strategy"] + (f" ({s['phase']})" if s.get("phase", "init") != "init"
                                                     else ""),
             s["cpus"], s["runs"], fmt_ms(s["median_ns"]), f"{s['speedup']:.2f}",
             s.get("floor", "floor"), fmt_ms(s["floor_median_ns"]), f"{s['x_floor']:.2f}"]
            for s in run.of("scaling")]


def padata_rows(run):
    """Threads against ms per node, as Linux's padata series tabled its deferred init."""
    rows = []
    base = {}
    for s in run.of("scaling_node"):
        key = (s["strategy"], s["node"])
        base.setdefault(key, s["median_ns"])
        cpus = max(x["threads"] for x in run.of("scaling_node") if (x["strategy"], x["node"]) == key) or 1
        speedup = "--" if s["cpus"] == 1 else f"{(base[key] - s['median_ns']) * 100 / base[key]:.1f}%"
        rows.append([gib_text(run.nbytes), s["strategy"], s["node"],
                     f"{s['threads'] * 100 // cpus}% ({s['threads']})", speedup,
                     f"{s['median_ns'] / 1e6:.1f} ({s['stdev_ns'] / 1e6:.1f})"])
    return rows


def node_rows(run):
    rows = []
    for p in run.of("par"):
        if p["run"] != 0:
            continue
        for n in p["nodes"]:
            rows.append([gib_text(run.nbytes), p["strategy"], p["cpus"], n["node"], n["pages"], n["cpus"],
                         fmt_ms(n["ns"])])
    return rows


def smp_rows(run):
    s = run.first("smp")
    if not s:
        return []
    return [[gib_text(run.nbytes), s["cpus_up"], s["cpus_found"], fmt_ms(s["bringup_ns"]),
             "" if s.get("tsc_skew_ns") is None else s["tsc_skew_ns"],
             "" if s.get("tsc_bound_ns") is None else s["tsc_bound_ns"]]]


def cpus_sections(results):
    """Markdown lines; none when no run recorded CPUs."""
    L = []
    scaling = [r for run in results.sizes for r in scaling_rows(run)]
    if scaling:
        L += ["## Scaling: each eager strategy at 1 to N CPUs", "",
              md_table(["RAM", "strategy", "CPUs", "runs", "median ms", "speedup over 1 CPU", "floor",
                  "floor ms, as many CPUs", "x floor"], scaling), "",
              "Run with `scaling` on the command line. The floor beside each row ran on as many "
              "CPUs: where a strategy is at its floor, memory bandwidth, not the CPU count, bounds it.", ""]
    padata = [r for run in results.sizes for r in padata_rows(run)]
    if padata:
        L += ["## Deferred init per node, as Linux's padata series reported it", "",
              md_table(["RAM", "strategy", "node", "node% (thr)", "speedup", "time_ms (stdev)"], padata), "",
              "Each node's part of `linux_deferred`'s deferred init on 1 to N of its CPUs (`scaling`): "
              "the share of the node's CPUs used and their number, the time saved against one thread, "
              "and the median with the runs' standard deviation.", ""]
    nodes = [r for run in results.sizes for r in node_rows(run)]
    if nodes:
        L += ["## Parallel init: pages and time per node (first run)", "",
              md_table(["RAM", "strategy", "CPUs", "node", "pages", "CPUs on the node", "slowest CPU ms"], nodes), ""]
    smp = [r for run in results.sizes for r in smp_rows(run)]
    if smp:
        L += ["## CPUs: bring-up and TSC skew", "",
              md_table(["RAM", "CPUs up", "CPUs in the MADT", "bring-up ms", "TSC skew ns", "bound ns"], smp), ""]
    return L
