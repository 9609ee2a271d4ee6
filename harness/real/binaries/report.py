# SPDX-License-Identifier: MIT
"""The side-by-side report of `python3 -m harness binaries`: report.md and
plot.png from a results folder's binaries.jsonl. Every figure is a count of
guest instructions under QEMU's -icount: neither TCG time nor hardware time.

binaries.jsonl is the records file: a `binaries` header (how it ran, the
packages), then per size one `binary` record per real binary and phase, one `model`
record per bootheap strategy and cost set, one `linux_model` record per
Linux model (its phases a page, harness/real/binaries/icount.py), an `error` record
for a boot that failed, and an `end` record. linux_phases() reads a Linux's
phases back. A folder kept from before the records were named for the
binaries (peers.jsonl, `peers`, `peer` naming it in `peer`) reads the same
(read_records(), harness/results/names.py)."""
import io
import os

from harness.common import GIB, BenchError, read_jsonl
from harness.real.bracket.profile import fmt as _f, profile_table
from harness.results.names import BINARIES_FILES, binaries_record
from harness.report.plot import per_page_script, write_report

RECORDS = BINARIES_FILES[0]
LABEL = ("EXACT GUEST INSTRUCTION COUNTS (QEMU TCG, -icount shift=0): neither TCG time "
         "nor hardware time")
LINUX_PHASES = ("memmap", "memblock_free_all", "deferred")
LINUX_BINARIES = ("linux-6.1", "linux-6.12")
# The model each real binary is set beside.
PAIRS = (("xen-4.14", "page"), ("xen-4.17", "chunk"))
REAL_OF_MODEL = {"linux_deferred": "linux-6.1", "linux612": "linux-6.12"}
TOLERANCE = 0.05
LINUX_TOLERANCE = 0.10


def linux_per_page(r):
    """A real Linux phase's instructions a page, by the one rule every table
    and `peers-icount` use: memmap and the deferred init over their own
    pages; memblock_free_all() less its reserved-page init
    (reserve_bootmem_region(), which grows with the memory map it
    reserves), over the pages it freed."""
    n = r["instructions"]
    if r["phase"] == "memblock_free_all":
        n -= r["bracket"]["parts"].get("reserve_bootmem_region", {}).get("instructions", 0)
    return n / r["pages"]


def records_path(folder):
    """The records file of a `binaries` folder: binaries.jsonl, or the
    peers.jsonl of a folder kept from before (binaries.jsonl where neither is)."""
    for name in BINARIES_FILES:
        if os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return os.path.join(folder, RECORDS)


def read_records(path, header=True):
    """`binaries`' records, from a results folder or its records file, under
    today's names -> [record], the header first; raises BenchError where
    there are none (or, with header, no header first)."""
    path = records_path(path) if os.path.isdir(path) else path
    recs = [binaries_record(r) for r in read_jsonl(path)] if os.path.isfile(path) else []
    if not recs or (header and recs[0].get("type") != "binaries"):
        raise BenchError(f"{path}: no records of `binaries` (run `python3 -m harness binaries` first)")
    return recs


class Binaries:
    """A results folder's records of `binaries`, indexed."""

    def __init__(self, folder):
        recs = read_records(folder)
        self.folder, self.header = folder, recs[0]
        self.end = next((r for r in recs if r["type"] == "end"), None)
        self.real = {(r["binary"], r["mem_bytes"], r["phase"]): r for r in recs if r["type"] == "binary"}
        self.model = {(r["xen_costs"], r["strategy"], r["mem_bytes"]): r
                      for r in recs if r["type"] == "model"}
        self.errors = [r for r in recs if r["type"] == "error"]
        self.profiles = [r for r in recs if r["type"] == "profile"]
        self.linux_models = {(r["strategy"], r["mem_bytes"]): r["per_page"]
                             for r in recs if r["type"] == "linux_model"}
        self.sizes = sorted({r["mem_bytes"] for r in recs if "mem_bytes" in r})

    def per_page(self, key, model=False):
        r = (self.model if model else self.real).get(key)
        return r["instructions"] / r["pages"] if r and r["pages"] else None


def linux_phases(folder, binary="linux-6.1"):
    """{mem_bytes: {phase: record}} of one Linux's three phases: instructions,
    the phase's own pages (struct pages its memmap init wrote; pages
    memblock_free_all() freed; pages the deferred init wrote and freed),
    pages_total (pages handed to the buddy allocator at boot) and
    instr_per_page (instructions over the phase's own pages)."""
    p = Binaries(folder)
    out = {}
    for (name, mem, phase), r in p.real.items():
        if name == binary:
            out.setdefault(mem, {})[phase] = dict(r, instr_per_page=r["instructions"] / r["pages"])
    return out


def one_line(recs):
    """A progress line for the records of one boot."""
    if recs[0]["type"] == "linux_model":
        return "; ".join(f"{r['strategy']} " + ", ".join(f"{k} {v:.2f}" for k, v in r["per_page"].items())
                         for r in recs) + " instructions a page"
    if recs[0]["type"] == "model":
        return ", ".join(f"{r['strategy']} {r['instructions'] / r['pages']:.2f}" for r in recs) + \
            " instructions a page"
    return ", ".join(f"{r['phase']} {r['instructions']:,} instructions over {r['pages']:,} pages"
                     for r in recs)


def _pct(model, real):
    return "-" if model is None or real is None else f"{(model - real) / real * 100:+.1f}%"


def _ratio(a, b):
    return "-" if a is None or not b else f"{a / b:.2f}x"


def _xen_table(p, w):
    w("| RAM | pages: Xen 4.14 / 4.17 / bootheap | Xen 4.14 | page | page vs 4.14 | Xen 4.17 | "
      "chunk | chunk vs 4.17 | Xen 4.14 / 4.17 | page / chunk | same, xen_costs=none |\n")
    w("|---|---|---|---|---|---|---|---|---|---|---|\n")
    for mem in p.sizes:
        x14 = p.per_page(("xen-4.14", mem, "end_boot_allocator"))
        x17 = p.per_page(("xen-4.17", mem, "end_boot_allocator"))
        page, chunk = (p.per_page(("all", s, mem), True) for s in ("page", "chunk"))
        npage, nchunk = (p.per_page(("none", s, mem), True) for s in ("page", "chunk"))
        pages = [p.real.get((n, mem, "end_boot_allocator"), {}).get("pages") for n in ("xen-4.14", "xen-4.17")]
        pages.append(p.model.get(("all", "page", mem), {}).get("pages"))
        w(f"| {mem / GIB:g} GiB | {' / '.join('-' if x is None else f'{x:,}' for x in pages)} | "
          f"{_f(x14)} | {_f(page)} | {_pct(page, x14)} | {_f(x17)} | {_f(chunk)} | "
          f"{_pct(chunk, x17)} | {_ratio(x14, x17)} | {_ratio(page, chunk)} | {_ratio(npage, nchunk)} |\n")


def _model_table(p, w):
    names = ("page", "chunk", "sweep", "lazy", "floor")
    w("| RAM | xen_costs | " + " | ".join(names) + " |\n|---|---|" + "---|" * len(names) + "\n")
    for mem in p.sizes:
        for costs in ("all", "none"):
            if any((costs, s, mem) in p.model for s in names):
                w(f"| {mem / GIB:g} GiB | {costs} | " +
                  " | ".join(_f(p.per_page((costs, s, mem), True), 3) for s in names) + " |\n")


def _linux_table(p, w, binary="linux-6.1"):
    w("| RAM | memmap: instructions / struct pages = a page | memblock_free_all: instructions / "
      "pages freed = a page | deferred: instructions / pages = a page | all three / pages handed "
      "over |\n|---|---|---|---|---|\n")
    for mem in p.sizes:
        ph = {x: p.real.get((binary, mem, x)) for x in LINUX_PHASES}
        if not all(ph.values()):
            continue
        cells = []
        for x in LINUX_PHASES:
            r = ph[x]
            part = r["bracket"]["parts"].get("reserve_bootmem_region", {}).get("instructions")
            cell = f"{r['instructions']:,} / {r['pages']:,} = {r['instructions'] / r['pages']:.2f}"
            if part is not None:
                cell += f" ({(r['instructions'] - part) / r['pages']:.2f} less the {part:,} of reserved-page init)"
            cells.append(cell)
        total = sum(r["instructions"] for r in ph.values())
        handed = ph["memblock_free_all"]["pages_total"]
        w(f"| {mem / GIB:g} GiB | " + " | ".join(cells) + f" | {total / handed:.2f} |\n")


def _brackets(p, w):
    """What each bracket holds beyond the hand-over, with the measured size of
    what was subtracted, and the kernels' own log-line brackets beside."""
    w("| binary, phase | RAM | bracket (exact) | subtracted from it | log-line bracket | log - exact |\n"
      "|---|---|---|---|---|---|\n")
    for (binary, mem, phase), r in sorted(p.real.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        sub = ", ".join(f"{k} {v['calls']}x {v['instructions']:,}"
                        for k, v in r["bracket"]["excluded"].items()) or "nothing"
        log, diff = "-", "-"
        facts = r.get("log_facts", {})
        if binary.startswith("xen") and facts.get("log_bracket") is not None:
            log = f"{facts['log_bracket']:,} (TSC, hex stamps)"
            diff = f"{facts['log_bracket'] - r['instructions']:+,}"
        elif phase == "memblock_free_all" and "memblock_log_us" in facts:
            log = f"{facts['memblock_log_us']:,} us"
            diff = f"{facts['memblock_log_us'] * 1000 - r['instructions']:+,} (1 us = 1000)"
        elif phase == "deferred" and facts.get("deferred_ms"):
            ms = sum(facts["deferred_ms"].values())
            log = f"{ms} ms (jiffies)"
            diff = f"{ms * 1000000 - r['instructions']:+,}"
        w(f"| {binary} {phase} | {mem / GIB:g} GiB | {r['instructions']:,} | {sub} | {log} | {diff} |\n")


def _linux_models_table(p, w):
    """Each Linux model beside its kernel, phase by phase, by the one rule."""
    w("| RAM | kernel | phase | real | model | model vs real |\n|---|---|---|---|---|---|\n")
    for mem in p.sizes:
        for strategy, binary in REAL_OF_MODEL.items():
            ours = p.linux_models.get((strategy, mem))
            for phase in LINUX_PHASES:
                r = p.real.get((binary, mem, phase))
                if not ours or not r or phase not in ours:
                    continue
                real = linux_per_page(r)
                off = abs(ours[phase] / real - 1) > LINUX_TOLERANCE
                w(f"| {mem / GIB:g} GiB | {binary.split('-')[1]} (`{strategy}`) | {phase} | {real:.2f} | "
                  f"{ours[phase]:.2f} | {_pct(ours[phase], real)}{' (outside 10%)' if off else ''} |\n")


def _differences(p):
    out = []
    for real, model in PAIRS:
        for mem in p.sizes:
            x = p.per_page((real, mem, "end_boot_allocator"))
            m = p.per_page(("all", model, mem), True)
            if x and m and abs(m - x) / x > TOLERANCE:
                out.append(f"- {model} against {real} at {mem / GIB:g} GiB: {m:.2f} against {x:.2f} "
                           f"instructions a page ({_pct(m, x)}); docs/fidelity.md, \"The real binaries\", "
                           "names why.")
    return out


def _xen_sections(p, w):
    """Xen beside page and chunk, and the breakdown."""
    w("## Instructions a page handed over: Xen beside page and chunk\n\n")
    _xen_table(p, w)
    w("\nXen: `end_boot_allocator()`, entry to return, less its `printk()` calls; pages are Xen's "
      "`total_avail_pages` at its return. bootheap: its `end_boot_allocator()` between two TSC "
      "reads, `xen_costs=all` unless said.\n\n")
    diffs = _differences(p)
    w("### More than 5% apart\n\n" + ("\n".join(diffs) if diffs else "None.") + "\n\n")
    if p.profiles:
        w("### Where the instructions go, function by function\n\n")
        w("Each function's own instructions (its callees' not included) a page handed over, "
          "counted by breakpoints at every entry and return of the functions named, in a "
          "window of the first region large enough; an inline function's are its caller's.\n\n")
        for prof in p.profiles:
            profile_table(prof, w)
    if p.model:
        w("## bootheap's strategies, instructions a page\n\n")
        _model_table(p, w)


def report_text(p):
    h = p.header
    out = io.StringIO()
    w = out.write
    w("# bootheap beside the real binaries\n\n")
    w(f"**{LABEL}.** One is counted for each guest instruction QEMU executes, each pass of a "
      "rep-prefixed string instruction counting as one.\n\n")
    w(f"QEMU: {h['qemu']}, machine {h['machine']}, {h['cpus']} vCPU, `-icount {h['icount']}`; "
      f"run {h['date']}, host load average {h['load_start']:.1f} at the start")
    if p.end:
        w(f" and {p.end['load_end']:.1f} at the end, {p.end['wall_s']:.0f} s in all")
    w(" (wall times do not enter any figure).\n\n")
    for name, pk in h["packages"].items():
        w(f"- {name}: Debian's `{pk['package']}` {pk['version']}\n")
    xen = any(k[0].startswith("xen") for k in p.real) or bool(p.model)
    if xen:
        w("- bootheap: this tree's build/bootheap.elf, `runs=1 icount`, xen_costs=all and none\n")
    if p.linux_models:
        w("- bootheap's Linux models: this tree's build/bootheap.elf, `runs=1 cpus=1 icount`\n")
    w("\n")
    w("Xen boots by `-kernel` under SeaBIOS (its Debian build has only a multiboot entry), Linux "
      "and bootheap by their PVH notes under qboot, with the same memory. The real binaries' "
      "brackets are taken by gdbstub breakpoints at their functions' entries and returns, in a "
      "replay of a recorded boot (`rr=record`, then `rr=replay`), so no stop moves the guest's "
      "clock; bootheap's are its own TSC windows, which under `-icount` count instructions "
      "(a breakpoint bracket of the same call gives 11 fewer: the two TSC reads).\n\n")
    if xen:
        _xen_sections(p, w)
    for binary in LINUX_BINARIES:
        if any(k[0] == binary for k in p.real):
            w(f"\n## Linux {binary.split('-')[1]}: its three phases\n\n")
            _linux_table(p, w, binary)
    w("\nmemmap: from the first `memmap_init_range()` to the return of `free_area_init()` (the "
      "struct pages of every zone up to the deferral point, and the holes); memblock_free_all: "
      "the call, which also initialises the reserved ranges' struct pages "
      "(`reserve_bootmem_region()`, which grows with the memory map it reserves); deferred: `deferred_init_memmap()`, less "
      "interrupts, the scheduler and printing. Records: `linux_phases()` in "
      "harness/real/binaries/report.py reads them back from binaries.jsonl.\n\n")
    if p.linux_models:
        w("## The Linux models beside the real kernels\n\n")
        w("Instructions a page, each phase by one rule: memmap and the deferred init over their own "
          "pages, `memblock_free_all()` less its reserved-page init (`reserve_bootmem_region()`). "
          "The models: bootheap's `linux_deferred` (6.1) and `linux612` (6.12), `runs=1 "
          "cpus=1 icount`, over the pages of their own phases (`peers-icount`).\n\n")
        _linux_models_table(p, w)
        w("\n")
    w("## The brackets, what they hold, and the kernels' own lines\n\n")
    _brackets(p, w)
    w("\nA subtracted call is measured from its entry to its return (an interrupt: to the "
      "interrupted instruction), so the bracket is exact: nothing else runs in it. The log-line "
      "brackets are the kernels' own time stamps, which under `-icount` count instructions "
      "too: Xen's raw TSC stamps from its NUMA line to 'Domain heap initialised' hold also the "
      "end of `numa_initmem_init()` and the printing of both lines. Linux prints microseconds "
      "and, for its deferred init, whole jiffies (4 ms); its 'mem auto-init' to the next line "
      "after `mem_init()` ('Memory:' in 6.1, 'SLUB:' in 6.12, which prints 'Memory:' after its "
      "deferred init) holds all of `mem_init()`, which above 4 GiB also sets up the swiotlb "
      "bounce buffer (`pci_iommu_alloc()`), not part of the hand-over.\n")
    if p.errors:
        w("\n## Boots that failed\n\n")
        for e in p.errors:
            first = e["message"].splitlines()[0]
            w(f"- {e['what']} at {e['mem_bytes'] / GIB:g} GiB: {first}\n")
    w("\n![instructions a page](plot.png)\n")
    return out.getvalue()


def plot_script(p, terminal):
    series = [("Xen 4.14 (real)", lambda m: p.per_page(("xen-4.14", m, "end_boot_allocator")), "pt 5 lw 2 lc rgb '#c00000'"),
              ("page, xen_costs=all", lambda m: p.per_page(("all", "page", m), True), "pt 4 dt 2 lc rgb '#c00000'"),
              ("page, xen_costs=none", lambda m: p.per_page(("none", "page", m), True), "pt 1 dt 3 lc rgb '#e08080'"),
              ("Xen 4.17 (real)", lambda m: p.per_page(("xen-4.17", m, "end_boot_allocator")), "pt 7 lw 2 lc rgb '#0050c0'"),
              ("chunk, xen_costs=all", lambda m: p.per_page(("all", "chunk", m), True), "pt 6 dt 2 lc rgb '#0050c0'"),
              ("chunk, xen_costs=none", lambda m: p.per_page(("none", "chunk", m), True), "pt 2 dt 3 lc rgb '#80a0e0'"),
              ("sweep", lambda m: p.per_page(("all", "sweep", m), True), "pt 3 dt 4 lc rgb '#808000'"),
              ("floor", lambda m: p.per_page(("all", "floor", m), True), "pt 0 dt 5 lc rgb 'black'")]
    for binary, pt in zip(LINUX_BINARIES, (9, 11)):
        for ph, colour in zip(LINUX_PHASES, ("#208020", "#60a060", "#004000")):
            series.append((f"Linux {binary.split('-')[1]} {ph} (real)",
                           lambda m, ph=ph, binary=binary: p.per_page((binary, m, ph)),
                           f"pt {pt} lw 2 lc rgb '{colour}'"))
    return per_page_script('Boot memory to the buddy heap: instructions a page handed over' + chr(10) + LABEL,
                           series, p.sizes, terminal, p.folder)


def write(folder):
    """Rewrites report.md and plot.png of a `binaries` results folder -> 0."""
    p = Binaries(folder)
    return write_report(folder, report_text(p), lambda terminal: plot_script(p, terminal))
