# SPDX-License-Identifier: MIT
"""report.md of a results folder, section by section: the old against the
new, every kernel side by side, every strategy, end to end, the plot, the
sections on CPUs and nodes, hosted runs, exact counts and the ablation,
Xen's published figures (beside KVM and hosted results only), the checks
and the boots."""
import os

from harness.common import DEFAULT_RUNS, DEFAULT_SIZES_GIB, GIB, TCG_LABEL, fmt, fmt_ms, gib_text, md_table
from harness.counts.ablation import load as ablation_load, section as ablation_section
from harness.counts.callgrind import load as counts_load, section as counts_section
from harness.report.cpus import cpus_sections
from harness.report.cputime import cpu_medians
from harness.report.hosted import cpu_section as hosted_cpu_section, report_sections as hosted_sections
from harness.results.stats import (FIRST_TOUCH, FLOOR, FLOORS, INIT, NEW, OLD, SizeStats, disagreements,
                                   failures, request_mismatch)
from harness.results.xen import XEN_ARM, XEN_X86, xen_ns_per_page, xen_pages, xen_row


def cost_models_text(results):
    """What the run's boots say about the cost model they ran."""
    models = sorted({(r.first("bench") or {}).get("xen_costs") for r in results.sizes} - {None})
    if not models:
        return "These runs predate the model: their heap paid none of those costs."
    return "These runs: `xen_costs=" + "`, `xen_costs=".join(models) + "`."


# The peers by name, today's and those of runs kept from before the renames
# ("freebsd" is today's freebsd_lazy0), and those with a later part.
PEER_NAMES = ("linux", "linux_deferred", "linux612", "freebsd", "freebsd_lazy", "freebsd_lazy0")
PEERS_WITH_LATER = ("linux_deferred", "linux612", "freebsd_lazy")
WHY_DIFFERENT = """\
Why bootheap's absolute numbers differ from Xen's:

- **Different machine.** Xen's figures come from an AWS c5.metal; bootheap's
  come from whatever host ran these boots, with its own CPU, memory and clock.
- **Nesting.** Xen's x86 figures were taken with Xen itself running as a
  nested guest under KVM, where every TLB miss walks two levels of page
  tables. bootheap runs as a single guest (or, under TCG, inside an emulator
  that translates every instruction, which is slower still and not a model
  of any real CPU).
- **Per-call costs.** bootheap's logic is Xen's, and by default
  (`xen_costs=all`) its heap pays Xen's per-call costs too: the out-of-line
  mfn_valid() with its LFENCE, out-of-line spinlocks, pdx conversions, the
  node lookup and a call per page in place of the M2P store. Any other model
  pays less than Xen (docs/fidelity.md, "The ablation"). {models}
- **Page counts.** Xen's ns/page in this report divide its published time by the
  nominal size in 4 KiB pages (GB read as GiB: GB x 2^30 / 4096); the heap it
  built had somewhat fewer pages, so its true per-page cost is a little
  higher. bootheap's ns/page divides by the pages actually handed to the heap.
"""


def xen_section(emulated):
    lines = ["## Xen's published figures", ""]
    if emulated:
        lines += [f"> **{TCG_LABEL}.** The figures below were measured on real hardware "
                  "under KVM; bootheap's emulated numbers above must not be compared with them.", ""]
    lines += ["end_boot_allocator(), x86, nested KVM on c5.metal, in ms. ns/page is derived as "
              "ms x 10^6 / pages, with pages = GB x 2^30 / 4096 (4 KiB pages, GB read as GiB).", ""]
    rows = []
    for gb, b1, a1, b2, a2 in XEN_X86:
        p = xen_pages(gb)
        rows.append([f"{gb} GB", p, b1, a1, b2, a2,
                     f"{xen_ns_per_page(gb, b1):.2f} -> {xen_ns_per_page(gb, a1):.2f}",
                     f"{xen_ns_per_page(gb, b2):.2f} -> {xen_ns_per_page(gb, a2):.2f}"])
    lines.append(md_table(["RAM", "pages", "v1 before ms", "v1 after ms", "v2 before ms",
                           "v2 after ms", "v1 ns/page", "v2 ns/page"], rows))
    gb, b, a = XEN_ARM
    lines += ["", f"Arm64 Neoverse N1, {gb} GB: {b} ms -> {a} ms "
              f"({xen_ns_per_page(gb, b):.2f} -> {xen_ns_per_page(gb, a):.2f} ns/page by the same derivation).",
              ""]
    return lines


def icount_run(run):
    """Whether a boot ran under -icount shift=0 (the deterministic emulator: 1 ns is 1 instruction)."""
    h, bench = run.harness or {}, run.first("bench") or {}
    return bool(h.get("icount") or bench.get("icount"))


def kernels_section(results, stats):
    """Every kernel side by side at each size: Xen's old and new, the peers, results, lazy, the
    floors; per page, by CPU time when the runner recorded it (hosted), else by the TSC."""
    names = []
    for ss in stats:
        names += [s for s in ss.strategies if s not in names and s not in FLOORS]
    names += [f for f in FLOORS if any(ss.get(f) for ss in stats)]
    if not any(n in PEER_NAMES for n in names):
        return []
    L = ["## Every kernel side by side", ""]
    rows, ratio_rows = [], []
    for ss in stats:
        cpu = cpu_medians(ss.run)
        icount = icount_run(ss.run)
        unit = "instructions" if icount else "CPU time ns" if cpu else "TCG ns" if ss.run.emulated else "ns"
        row = [gib_text(ss.run.nbytes), unit]
        for s in names:
            st = ss.get(s)
            if not st or not ss.pages:
                row.append("")
                continue
            init = cpu.get((s, INIT), st.median)
            later = ss.later(s)
            cell = f"{init / ss.pages:.3f}"
            if later:
                cell += f" + {cpu.get((s, later), ss.get(s, later).median) / ss.pages:.3f}"
            row.append(cell)
        rows.append(row)
        for s in names:
            if s in FLOORS or not ss.get(s):
                continue
            e2e = ss.end_to_end(s)
            own, xen = ss.x_floor(s), ss.x_xen_floor(s)
            if cpu and (s, INIT) in cpu:
                # By CPU time too, where the runner measured it: the TSC also holds other processes' time.
                later = ss.later(s) or (FIRST_TOUCH if (s, FIRST_TOUCH) in cpu else None)
                e2e = cpu[(s, INIT)] + (cpu.get((s, later), 0) if later else 0)
                own = cpu[(s, INIT)] / cpu[(ss.own_floor(s), INIT)] if cpu.get((ss.own_floor(s), INIT)) else None
                xen = cpu[(s, INIT)] / cpu[(FLOOR, INIT)] if cpu.get((FLOOR, INIT)) else None
            ratio_rows.append([gib_text(ss.run.nbytes), s, ss.own_floor(s), fmt(own, 2), fmt(xen, 2),
                               fmt(e2e / ss.pages if e2e is not None and ss.pages else None, 3),
                               ss.first_alloc(s) if ss.first_alloc(s) is not None else ""])
    L += [md_table(["RAM", "unit a page"] + [f"{n} (boot + {'later'})" if n in PEERS_WITH_LATER
                                             else n for n in names], rows), ""]
    L += ["Each cell is the init phase per page handed over; `a + b` is a peer's boot part and its "
          "later part (Linux's deferred init on its node's CPUs, FreeBSD's lazy-pool drain). The "
          "unit says how it was measured: CPU time of the hosted runner's thread (real CPU), the "
          "TSC, or, under `-icount shift=0`, instructions. Every strategy handed over the same pages "
          "(page digests equal) unless the checks below say otherwise.", ""]
    L += [md_table(["RAM", "strategy", "own floor", "x own floor", "x Xen's floor", "end to end a page",
                    "first allocation ns (TSC)"], ratio_rows), ""]
    L += ["`x own floor` is over the memset of the strategy's own metadata in the same run (Xen's "
          "page_info 32 bytes a page, Linux's struct page 64, FreeBSD's vm_page 88); `x Xen's floor` "
          "over the 32-byte one; end to end adds the first touch (Xen's heap) or the later part "
          "(peers); ratios and end to end by CPU time where the runner recorded it, the first "
          "allocation (init and one order-0 allocation) by the TSC.", ""]
    return L


def head_section(results, stats):
    """The title, the TCG warning, and what ran: path, accelerator, runs, sizes, strategies."""
    info = results.info
    L = [f"# bootheap benchmark: {os.path.basename(results.folder.rstrip('/'))}", ""]
    if results.emulated:
        L += [f"> **{TCG_LABEL}.**", "> These numbers come from QEMU's TCG emulator: they show "
              "relative behaviour at best, and are not set beside Xen's figures.", ""]
    accels = ", ".join(a.upper() for a in results.accels) or "unknown"
    strategies = []
    for ss in stats:
        strategies += [s for s in ss.strategies if s not in strategies]
    runs = info.get("runs") or ", ".join(sorted({str(r.first("bench").get("runs"))
                                                for r in results.sizes if r.first("bench")})) or "unknown"
    L.append(f"Boot path {info.get('mode', 'unknown')}, accelerator {accels}, "
             f"runs {runs}, sizes "
             f"{', '.join(gib_text(r.nbytes) for r in results.sizes)}; strategies "
             f"{', '.join(strategies) or 'none recorded'}.")
    for note in info.get("notes", []):
        L += ["", f"Note: {note}"]
    if results.missing:
        L += ["", f"> **Incomplete run.** It planned {len(info['sizes_bytes'])} sizes and stopped before "
              f"{', '.join(gib_text(n) for n in results.missing)}: no records of "
              f"{'that size' if len(results.missing) == 1 else 'those sizes'}. Everything below covers the "
              "sizes it finished."]
    L.append("")
    return L


def old_new_section(stats, side_by_side):
    """Old against new, one row a size, with Xen's published figures beside them unless emulated."""
    L = ["## Old (page by page) versus new (aligned chunks), init phase", ""]
    headers = ["RAM", "pages", f"{OLD} (old) ms", f"{NEW} (new) ms", "speedup",
               f"{OLD} ns/page", f"{NEW} ns/page", f"{FLOOR} ns/page", f"{NEW} x floor"]
    if side_by_side:
        headers += ["Xen v1 ms (before -> after)", "Xen v2 ms (before -> after)",
                    "Xen speedup (v1, v2)", "Xen v2 ns/page (before -> after)"]
    rows = []
    for ss in stats:
        old, new, fl = ss.get(OLD), ss.get(NEW), ss.get(FLOOR)
        row = [gib_text(ss.run.nbytes), ss.pages, fmt_ms(old.median if old else None),
               fmt_ms(new.median if new else None), fmt(ss.speedup(NEW), 2),
               fmt(old.per_page() if old else None, 3), fmt(new.per_page() if new else None, 3),
               fmt(fl.per_page() if fl else None, 3), fmt(ss.x_floor(NEW), 2)]
        if side_by_side:
            x = xen_row(ss.run.nbytes)
            row += [f"{x[1]} -> {x[2]}", f"{x[3]} -> {x[4]}", f"{x[1] / x[2]:.2f}, {x[3] / x[4]:.2f}",
                    f"{xen_ns_per_page(x[0], x[3]):.2f} -> {xen_ns_per_page(x[0], x[4]):.2f}"] if x else [""] * 4
        rows.append(row)
    L += [md_table(headers, rows), ""]
    if side_by_side:
        L += ["Xen's columns are its published end_boot_allocator() times (nested KVM, c5.metal) at "
              "the same nominal size; see the derivation of their ns/page below. Its \"after\" times "
              "are of commit 72b02bc (`chunk-72b02bc` here, where present), not of the released 4.17.0 "
              f"that `{NEW}` models (docs/fidelity.md).", ""]
    return L


def strategies_section(stats):
    """Every strategy's init phase at every size."""
    L = ["## Every strategy, init phase", ""]
    rows = []
    for ss in stats:
        for s in ss.strategies:
            st = ss.get(s)
            if not st:
                continue
            rows.append([gib_text(ss.run.nbytes), s, st.runs, fmt_ms(st.median), fmt_ms(st.min),
                         fmt_ms(st.max), fmt(st.cv, 2), fmt(st.per_page(), 3),
                         fmt(ss.speedup(s), 2) if s != FLOOR else "",
                         fmt(ss.x_floor(s), 2)])
    L += [md_table(["RAM", "strategy", "runs", "median ms", "min ms", "max ms", "cv %", "ns/page",
                    "speedup vs page", "x floor"], rows), ""]
    L += [f"`{FLOOR}` is a plain memset, in the same boot, of the metadata the eager strategies write "
          "for the pages handed over: their page_info (32 bytes a page), and their M2P entries (8 more) "
          "when the run's cost model stores them (xen_costs=-m2p): the least an eager init must write. speedup is the median over runs of page[i] / strategy[i], paired by "
          "run index; x floor is the strategy's median over the floor's.", ""]
    return L


def end_to_end_section(results, stats):
    """Init and first touch, and the time to the first allocation, of Xen's heap's strategies."""
    L = ["## End to end: init + first touch, and time to first allocation", ""]
    rows = []
    for ss in stats:
        for s in ss.heap_strategies:
            init, ft = ss.get(s), ss.get(s, FIRST_TOUCH)
            e2e = ss.end_to_end(s)
            rows.append([gib_text(ss.run.nbytes), s, fmt_ms(init.median if init else None),
                         fmt_ms(ft.median if ft else None), fmt_ms(e2e),
                         fmt(init.per_page(e2e) if init and e2e is not None else None, 3),
                         ss.first_alloc(s) if ss.first_alloc(s) is not None else ""])
    L += [md_table(["RAM", "strategy", "init ms", "first touch ms", "init + first touch ms",
                    "end-to-end ns/page", "first allocation ns"], rows), ""]
    L += ["A lazy init escapes the floor only by moving work to the first touch, so compare "
          "strategies on the end-to-end column as well.", ""]
    if any(r.get("shared_from") for run in results.sizes for r in run.of("result")):
        L += ["Where the eager strategies shared their first touch (`touch_shared`: their heaps are "
              "the same, so it was timed after one of them a run, in turn), their first-touch "
              "column is that one figure.", ""]
    return L


def plot_section(emulated, plot_note):
    L = ["## ns per page against memory size", ""]
    if plot_note:
        return L + [plot_note, ""]
    return L + ["![ns per page against memory size](plot.png)", "",
                "Log-log axes; one line per strategy (init phase) and the floor; Xen's published "
                "points are marked" + (" for reference only (KVM, not comparable)" if emulated else "")
                + ". Points at zero cannot sit on a log axis and are left out.", ""]


def checks_section(results, stats):
    """Failures, disagreements between the kernel's statistics and the host's, notes, unread lines."""
    L = ["## Checks", ""]
    any_fail = False
    for ss in stats:
        f = failures(ss.run)
        any_fail |= bool(f)
        for msg in f:
            L.append(f"- **FAILED** {gib_text(ss.run.nbytes)}: {msg}")
    n_checked = 0
    any_disagree = False
    for ss in stats:
        n_checked += len(ss.run.of("summary")) + len(ss.run.of("comparison"))
        for (s, phase), probs in disagreements(ss).items():
            any_disagree = True
            L.append(f"- **DISAGREES** {gib_text(ss.run.nbytes)} {s}/{phase}: "
                     + "; ".join(p for p in probs if p != "absent"))
    for ss in stats:
        for msg in request_mismatch(ss.run):
            L.append(f"- **NOTE** {gib_text(ss.run.nbytes)}: {msg}")
        for p in ss.run.problems:
            L.append(f"- log {ss.run.label}: {p}")
    for p in results.problems:
        L.append(f"- {p}")
    if not any_fail:
        L.append("- every boot finished ok; every audit passed and every strategy built the "
                 "same heap (digests equal)")
    if not any_disagree:
        L.append(f"- the kernel's {n_checked} summary/comparison records agree with the host's "
                 "statistics within rounding")
    L.append("")
    return L


def boots_section(results):
    """One row a boot, the run's wall time, and the speed targets of PVH under KVM."""
    info = results.info
    L = ["## Boots", ""]
    rows = []
    for run in results.sizes:
        h = run.harness or {}
        memory = "reserve=off" if any("reserve=off" in n for n in h.get("notes", [])) else ""
        source = f"`{h.get('log') or 'serial-' + run.label + '.log'}`"
        if run.first("qr") and not run.of("result"):
            source = f"QR code `{run.label}`: {(run.first('boot') or {}).get('cpu_brand') or '?'}"
        rows.append([gib_text(run.nbytes), run.status, "FAILED" if failures(run) else "ok",
                     run.accel.upper(), fmt(h.get("elapsed_s"), 1), memory, source])
    L += [md_table(["RAM", "boot", "verdict", "accelerator", "wall s", "guest RAM", "serial log"], rows), "",
          "reserve=off: the guest is larger than the host's free RAM, so only the pages it "
          "touches are backed. A run read back from its QR code (`python3 -m harness add`) "
          "carries the kernel's medians only: no single runs, min, max or cv, nothing to "
          "recompute.", ""]
    if "elapsed_s" in info:
        L += [f"Wall time of the run over sizes: {info['elapsed_s']:.1f} s.", ""]
    # The speed targets hold for PVH under KVM only.
    if not results.emulated and info.get("mode") == "pvh":
        for run in results.sizes:
            h = run.harness or {}
            if run.nbytes == 8 * GIB and info.get("runs") == DEFAULT_RUNS and "elapsed_s" in h:
                L.append(f"- target: one 8 GiB boot with {DEFAULT_RUNS} runs per strategy under 10 s: "
                         f"{h['elapsed_s']:.1f} s, {'met' if h['elapsed_s'] < 10 else 'MISSED'}")
        if [r.nbytes for r in results.sizes] == [g * GIB for g in DEFAULT_SIZES_GIB] and "elapsed_s" in info:
            L.append(f"- target: the default run over sizes under 3 minutes: {info['elapsed_s']:.1f} s, "
                     f"{'met' if info['elapsed_s'] < 180 else 'MISSED'}")
        L.append("")
    return L


def render_markdown(results, plot_note=None):
    """report.md for loaded Results, its sections in order. Hosted sizes lead
    with the thread's CPU time, steadier than the TSC on a shared machine."""
    emulated = results.emulated
    stats = [SizeStats(run) for run in results.sizes]
    L = head_section(results, stats) + hosted_cpu_section(results)
    L += old_new_section(stats, side_by_side=not emulated)
    L += kernels_section(results, stats)
    L += strategies_section(stats)
    L += end_to_end_section(results, stats)
    L += plot_section(emulated, plot_note)
    L += cpus_sections(results)
    L += hosted_sections(results) + counts_section(counts_load(results.folder))
    L += ablation_section(ablation_load(results.folder))
    L += xen_section(emulated)
    L += [WHY_DIFFERENT.format(models=cost_models_text(results))]
    L += checks_section(results, stats)
    L += boots_section(results)
    return "\n".join(L)
