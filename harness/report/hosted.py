# SPDX-License-Identifier: MIT
"""What a report says of hosted runs: the CPU time of each window (with the
core's clock and issue beside it), the run's targets, Xen's published
figures beside the hosted ones, and `beside`: a hosted run and a TCG run
side by side."""
from harness.common import TCG_LABEL, gib_text, md_table
from harness.hosted.runner import LETTER, MEANS
from harness.report.cputime import (HEADLINE, SHARED, SHARED_CORE, clock_mhz, cpu_medians, cpu_times, headline,
                                    repetitions, shared_core, shared_touch)
from harness.report.intervals import interval_section
from harness.report.probe import believed, clock_of, probe_text
from harness.report.targets import targets_section
from harness.results.stats import FIRST_TOUCH, FLOOR, INIT, NEW, OLD, SizeStats, cv_pct
from harness.results.xen import xen_ns_per_page, xen_row

# Wall time (the TSC window) beyond CPU time by more than this share of the
# CPU time means the thread was descheduled for part of the window; the
# report then shows both. Quiet, the two agreed within 1% here.
WALL_MARGIN = 0.05


def cpu_section(results):
    """The report's lead for hosted sizes: the CPU time of each window (on a
    shared machine the TSC window also holds the time other processes had
    the CPU), median with its spread and cv, and the wall time beside it
    where the two differ by more than WALL_MARGIN."""
    rows, descheduled = [], 0
    best, shared_by = shared_core(results)
    for run in results.sizes:
        ss, cpu, mhz = SizeStats(run), cpu_times(run), clock_mhz(run)
        clock_ok, issue_ok = believed(run)
        probed = clock_of(run) is not None
        if not cpu or not ss.pages:
            continue
        floor = headline(cpu[(FLOOR, INIT)].values()) if (FLOOR, INIT) in cpu else None
        reps = repetitions(run)
        shared = shared_touch(run)
        pooled = {(s, r): ns for (s, phase), by in cpu.items() if phase == FIRST_TOUCH and s in shared
                  for r, ns in by.items()}
        for s in ss.strategies + ([SHARED] if pooled else []):
            for phase in (INIT, FIRST_TOUCH):
                by = pooled if s == SHARED and phase == FIRST_TOUCH else cpu.get((s, phase))
                if not by or (s in shared and phase == FIRST_TOUCH):
                    continue
                v = list(by.values())
                med, wall = headline(v), ss.get(s, phase) if s != SHARED else None
                # End to end: this init and its own first touch, or the shared one.
                touch = pooled if s in shared else cpu.get((s, FIRST_TOUCH))
                e2e = med + headline(touch.values()) if phase == INIT and touch else None
                wall_text = ""
                if wall and wall.median > med * (1 + WALL_MARGIN):
                    wall_text = f"{wall.per_page():.3f} (+{(wall.median / med - 1) * 100:.0f}%)"
                    descheduled += 1
                rows.append([gib_text(run.nbytes), s, phase, len(v), reps.get((s, phase), ""),
                             f"{med / ss.pages:.3f} [{min(v) / ss.pages:.3f}-{max(v) / ss.pages:.3f}]",
                             f"{cv_pct(v):.1f}",
                             f"{med / floor:.2f}" if floor and phase == INIT else "",
                             "" if not probed else mhz.get((s, phase), "") if clock_ok else "unreliable",
                             "" if not probed or s == SHARED else
                             shared_by.get((run.nbytes, s, phase), "") if issue_ok and best else "unknown",
                             f"{e2e / ss.pages:.3f}" if e2e else "", wall_text])
    if not rows:
        return []
    head = ["RAM", "strategy", "phase", "runs", "repetitions a run", f"CPU ns/page, {HEADLINE} [min-max]", "cv %",
            "x floor (CPU)",
            "core MHz", "runs on a shared core", "init + first touch ns/page (CPU)",
            "wall ns/page where it differs"]
    return ["## Hosted: CPU time of each window", "",
            "The CPU time the runner's thread spent in each timed window "
            f"(`CLOCK_THREAD_CPUTIME_ID`): the {HEADLINE} over runs (docs/hosted-speeds.md says why "
            "that estimator), with the fastest and slowest run and the cv. A window shorter than 1 ms "
            "was repeated until the repetitions after its first passed 1 ms, and counts as their mean "
            "(`repetitions a run`, the median over runs; the first, which opens on the prelude and pays "
            "the host's first accesses to far pages, is in the records as `first_ns`). A floor counts "
            "as the fastest of the ways it was filled that run. Every window opened on the same "
            "prelude: its tables reset and, where they fit in twice this thread's share of the "
            "last-level cache, flushed from it. The TSC tables below measure wall time, which also holds the time other processes "
            f"had the CPU. Where the wall-time median exceeds the CPU-time median by more than "
            f"{WALL_MARGIN * 100:.0f}%, the wall figure is shown beside it: the thread was "
            f"descheduled for that share of the window ({descheduled} of {len(rows)} rows here). "
            f"`{SHARED}`: the first touch the eager strategies shared, timed after one of them a "
            "run, in turn (their heaps are the same). "
            "`core MHz` is the clock the thread saw beside its windows (a chain of dependent multiplies, "
            "3 cycles each on Intel's and AMD's cores, over CPU time; median): a window run at a lower "
            "clock shows there; `unreliable` where the probe failed its check at start (below). "
            "`runs on a shared core`: the runs whose core, probed beside the window, issued "
            f"independent adds at under {SHARED_CORE * 100:.0f}% of the best rate of the run"
            + (f" ({best / 100:.2f} a cycle)" if best else "") + ": another thread had part of the core "
            "(an SMT sibling on the machine's host; docs/hosted-speeds.md). Sharing inside a window "
            "that the probes beside it miss does not show.", "",
            probe_text(results), "",
            md_table(head, rows), ""] + interval_section(results)


def xen_section(results):
    """Hosted medians beside Xen's published ones, with what differs: by the
    thread's CPU time where the runs have it (the TSC also counts other
    processes' time), else by the TSC."""
    rows, clocks = [], set()
    for run in results.sizes:
        x, ss, cpu = xen_row(run.nbytes), SizeStats(run), cpu_medians(run)
        if not x or not ss.get(OLD) or not ss.get(NEW) or not ss.pages:
            continue
        if (OLD, INIT) in cpu and (NEW, INIT) in cpu:
            old, new = cpu[(OLD, INIT)], cpu[(NEW, INIT)]
            clocks.add("CPU time")
        else:
            old, new = ss.get(OLD).median, ss.get(NEW).median
            clocks.add("TSC")
        bench = run.first("bench") or {}
        # The cover letter's code, where the run has it (chunk-72b02bc).
        letter = cpu.get((LETTER, INIT)) if "CPU time" in clocks else \
            (ss.get(LETTER).median if ss.get(LETTER) else None)
        rows.append([f"{x[0]} GB", f"{xen_ns_per_page(x[0], x[3]):.2f}", f"{xen_ns_per_page(x[0], x[4]):.2f}",
                     f"{x[3] / x[4]:.2f}x", f"{old / ss.pages:.3f}",
                     f"{letter / ss.pages:.3f}" if letter else "", f"{old / letter:.2f}x" if letter else "",
                     f"{new / ss.pages:.3f}", f"{old / new:.2f}x", bench.get("xen_costs", "(before the model)")])
    if not rows:
        return []
    head = ["RAM", "Xen 4.16 ns/page", "Xen 4.17 (72b02bc) ns/page", "Xen before/after", f"hosted {OLD} ns/page",
            f"hosted {LETTER} ns/page", f"hosted {OLD}/{LETTER}", f"hosted {NEW} (4.17.0) ns/page",
            f"hosted {OLD}/{NEW}", "xen_costs"]
    return ["## Hosted beside Xen's published figures", "",
            f"Hosted medians by {' and '.join(sorted(clocks))}.", "", md_table(head, rows), "",
            f"Which figure is which code: Xen's \"after\" figures were measured at commit 72b02bc, "
            f"whose node scan compared the range's first page every time, so that the compiler "
            f"could take it out of the loop; `{LETTER}` models that code. The released 4.17.0 "
            f"(since bd0bb8a0) looks up every page's node, as `{NEW}` does. Xen's \"before\" figures "
            f"are 4.16's page-by-page loop, as `{OLD}` (docs/fidelity.md).", "",
            "What differs: the CPU (this machine's, named in the boot records; Xen's was a c5.metal's); "
            "how it runs (Xen ran nested, as a guest of KVM; the hosted runner is a user process "
            "with no hypervisor of its own, on a machine that may itself be a virtual one: see the "
            "`host` record); the heap's per-call costs (Xen's, modelled, under `xen_costs=all`, the "
            "default; fewer under any other model: docs/fidelity.md); and the load of the machine while "
            "it ran (the `host` records).", ""]


def report_sections(results):
    """Everything a report adds for hosted sizes; [] when there are none."""
    if not any(r.accel == "host" for r in results.sizes):
        return []
    hosts = [h for r in results.sizes for h in r.of("host")]      # every boot, every pass
    lines = [f"## Hosted: {MEANS}", ""]
    if hosts:
        h = hosts[0]
        lines += [f"Ran on {h.get('os')} {h.get('os_release')}"
                  + (f", itself a guest of '{h['host_hypervisor'].strip()}'" if h.get("host_hypervisor") else "")
                  + f"; load average {min(x['load_start'] for x in hosts):.2f} to "
                  f"{max(x['load_end'] for x in hosts):.2f}; frame table and M2P "
                  f"{sum(x['huge_bytes'] for x in hosts) * 100 // max(1, sum(x['tables_bytes'] for x in hosts))}% "
                  "in huge pages" + _phys_text(hosts) + ".", ""]
    return lines + targets_section(results) + xen_section(results)


def _phys_text(hosts):
    """Where the host put the tables, from the runner's pagemap reading (root only)."""
    known = [h for h in hosts if h.get("phys_known_bytes")]
    if not known:
        return ""
    runs = [h["phys_runs"] for h in known]
    return (f", in {min(runs)} to {max(runs)} physically contiguous runs a size (longest "
            f"{max(h['phys_longest_run_bytes'] for h in known) >> 20} MiB)")


def _label(results):
    if results.emulated:
        return "TCG, EMULATED"
    return "hosted" if "host" in results.accels else "/".join(a.upper() for a in results.accels)


def beside_text(a, b):
    """Two results folders, one line per size and strategy: ns/page in each,
    and each run's own ratios (page/chunk, x floor). Medians are not
    compared across accelerators: each column is read against its own."""
    lines = [f"A: {a.folder} ({_label(a)})", f"B: {b.folder} ({_label(b)})"]
    if a.emulated or b.emulated:
        lines.append(f"!! {TCG_LABEL}: read each side's ratios, not one side's times against the other's")
    if "host" in a.accels + b.accels:
        lines.append(f"hosted means {MEANS}")
    lines.append("")
    head = ["RAM", "strategy", "A ns/page", "A vs page", "A x floor", "B ns/page", "B vs page", "B x floor"]
    rows = []
    a_by = {r.nbytes: SizeStats(r) for r in a.sizes}
    b_by = {r.nbytes: SizeStats(r) for r in b.sizes}
    for nbytes in sorted(set(a_by) & set(b_by)):
        sa, sb = a_by[nbytes], b_by[nbytes]
        for s in [x for x in sa.strategies if x in sb.strategies]:
            row = [gib_text(nbytes), s]
            for ss in (sa, sb):
                st = ss.get(s)
                row += [f"{st.per_page():.3f}" if st else "",
                        f"{ss.speedup(s):.2f}" if s != FLOOR and ss.speedup(s) is not None else "",
                        f"{ss.x_floor(s):.2f}" if ss.x_floor(s) is not None else ""]
            rows.append(row)
    only = sorted(set(a_by) ^ set(b_by))
    lines.append(md_table(head, rows))
    if only:
        lines += ["", "Sizes in one folder only: " + ", ".join(gib_text(n) for n in only)]
    return "\n".join(lines)
