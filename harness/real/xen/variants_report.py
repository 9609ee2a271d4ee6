# SPDX-License-Identifier: MIT
"""The report of `python3 -m harness xen-src` (harness/real/xen/variants.py):
report.md and plot.png of a results folder, from its variants.jsonl alone.

Every figure is an exact count of guest instructions under -icount (one
instruction a virtual ns): neither time on real hardware nor TCG time."""
import io
import os

from harness.common import GIB, BenchError, md_table, read_jsonl
from harness.real.bracket.profile import profile_table
from harness.real.xen.host import timing as hosttime
from harness.real.xen.smp import recorded
from harness.results.names import kernel_record
from harness.report.plot import per_page_script, write_report

RECORDS = "variants.jsonl"
LABEL = ("EXACT GUEST INSTRUCTION COUNTS (QEMU TCG, -icount shift=0): neither time on real hardware "
         "nor TCG time")
# The variants of init_heap_pages() the series adds (`heap-init=`), in the
# order of the story; bootheap's model of each is its strategy of the same
# name (mm/strategies/; records kept from before they agreed read under
# today's names, harness/results/names.py).
VARIANTS = ("page", "chunk-72b02bc", "chunk", "sweep")
# The release built without the series, booted as Debian boots it.
UNPATCHED = "unpatched"
# Where a model's count is held to its variant's (the target).
TOLERANCE = 0.05
SWEEP_TARGET = 10.0             # instructions a page, from 4 GiB up
RUN_TARGET_S = 15 * 60


class Variants:
    """A folder's records, indexed: per_page(release, variant, mem, nodes)
    and model(strategy, mem, nodes) are instructions a page or None."""

    def __init__(self, folder):
        self.folder = folder
        path = os.path.join(folder, RECORDS)
        if not os.path.isfile(path):
            raise BenchError(f"{folder} has no {RECORDS}: not a results folder of `xen-src`")
        self.recs = [kernel_record(r) for r in read_jsonl(path)]
        self.head = next((r for r in self.recs if r["type"] == "xen-src"), {})
        self.of = {}
        for r in self.recs:
            self.of.setdefault(r["type"], []).append(r)
        self.sizes = sorted({r["mem_bytes"] for r in self.get("variant") + self.get("model")})
        self.releases = sorted({r["release"] for r in self.get("variant")})
        self.topologies = sorted({len(r["nodes"]) for r in self.get("variant")})

    def get(self, kind):
        return self.of.get(kind, [])

    def per_page(self, release, variant, mem, nodes):
        for r in self.get("variant"):
            if (r["release"], r["variant"], r["mem_bytes"], len(r["nodes"])) == (release, variant, mem, nodes):
                return r["instructions"] / r["pages"]
        return None

    def model(self, strategy, mem, nodes):
        for r in self.get("model"):
            if (r["strategy"], r["mem_bytes"], len(r["nodes"])) == (strategy, mem, nodes) and r["pages"]:
                return r["instructions"] / r["pages"]
        return None


def _f(x, digits=2):
    return "" if x is None else f"{x:.{digits}f}"


def _ratio(a, b):
    return f"{a / b:.2f}x" if a and b else ""


def _where(mem, nodes):
    return f"{mem / GIB:g} GiB" + ("" if nodes == 1 else f", {nodes} nodes")


def variants_table(v, release, nodes):
    plain = any(r["variant"] == UNPATCHED and r["release"] == release for r in v.get("variant"))
    rows = []
    for mem in v.sizes:
        x = {name: v.per_page(release, name, mem, nodes) for name in VARIANTS + (UNPATCHED,)}
        if not any(x.values()):
            continue
        rows.append([f"{mem / GIB:g} GiB"] + [_f(x[n]) for n in VARIANTS] +
                    ([_f(x[UNPATCHED])] if plain else []) +
                    [_ratio(x["page"], x["chunk"]), _ratio(x["page"], x["chunk-72b02bc"]),
                     _ratio(x["chunk"], x["sweep"])])
    return md_table(["RAM"] + list(VARIANTS) + (["chunk, without the series"] if plain else []) +
                    ["page/chunk", "page/chunk-72b02bc", "chunk/sweep"], rows)


def models_table(v, release, nodes):
    rows = []
    for mem in v.sizes:
        for name in VARIANTS:
            real, model = v.per_page(release, name, mem, nodes), v.model(name, mem, nodes)
            if real is None or model is None:
                continue
            rows.append([f"{mem / GIB:g} GiB", name, _f(real), _f(model), f"{(model - real) / real * 100:+.1f} %"])
    return md_table(["RAM", "variant", "Xen", "model", "model against Xen"], rows)


def _merges(by_variant):
    """One count when every variant has it, else each variant's."""
    if not by_variant:
        return ""
    counts = set(by_variant.values())
    return str(counts.pop()) if len(counts) == 1 else ", ".join(f"{v} {n}" for v, n in sorted(by_variant.items()))


def digests_table(v):
    # Runs made before the merges were counted have no such column.
    counted = any("merges" in r for r in v.get("digests"))
    rows = []
    for r in v.get("digests"):
        oracle = [x for x in v.get("variant") if (x["release"], x["mem_bytes"], x["nodes"]) ==
                  (r["release"], r["mem_bytes"], r["nodes"])]
        rows.append([r["release"], _where(r["mem_bytes"], len(r["nodes"])), ", ".join(r["variants"]),
                     "equal" if not r["problems"] else "**DIFFER**",
                     "canonical" if all(not x["problems"] for x in oracle) else "**NOT CANONICAL**",
                     "/".join(r["digest"] or ["", ""])] + ([_merges(r.get("merges"))] if counted else []))
    return md_table(["Xen", "guest", "variants", "digests", "against the oracle", "block / page digest"] +
                    (["merged across a region's edge"] if counted else []), rows)


def notes_list(recs):
    """The named cases of digests records (the carve-out rules), one bullet each."""
    return "".join(f"- Xen {r['release']}" + (f" at {_where(r['mem_bytes'], len(r['nodes']))}" if "nodes" in r
                                             else f" ({r['config']})") + f": {n}\n"
                   for r in recs for n in r.get("notes", []))


def dom0_table(v):
    dumped = dumps_after_boot(v)
    rows = []
    for r in v.get("dom0"):
        heap = "" if "merges_after" not in r else \
            ("**PROBLEMS**" if r.get("problems") else "holds") + \
            f" ({len(r['ranges'])} range{'' if len(r['ranges']) == 1 else 's'})"
        rows.append([r["release"], r["config"], r["variant"], f"{r['mem_bytes'] / GIB:g} GiB", r["status"],
                     _f(r["wall_s"], 1), r.get("dom0_memtotal_kib") or ""] +
                    ([heap, r.get("merges_boot", ""), r.get("merges_after", "")] if dumped else []))
    return md_table(["Xen", "build", "heap-init", "guest", "status", "wall s (TCG)", "dom0 MemTotal KiB"] +
                    (["heap dumps", "merged at boot", "merged after boot"] if dumped else []), rows)


def dumps_after_boot(v):
    """Whether the dom0 boots dumped their heap (runs made before they did have no dumps)."""
    return any("merges_after" in r for r in v.get("dom0"))


def after_table(v):
    rows = [[r["release"], r["config"], ", ".join(r["variants"]), f"`{r['stage']}()`",
             "equal" if not r["problems"] else "**DIFFER**", str(len(r["notes"]))] for r in v.get("dom0-digests")]
    return md_table(["Xen", "build", "variants", "after", "heaps at boot and after", "named cases"], rows)


def builds_table(v):
    rows = []
    for b in v.get("build"):
        rows.append([b["release"], b["source_version"], b["config"], str(len(b["patches"])),
                     b["toolchain"].get("gcc", "?"), _f(b["build_s"], 0), str(len(b["warnings"]))])
    return md_table(["Xen", "Debian source", "config", "patches", "compiler", "build s", "warnings"], rows)


def targets(v):
    """[(target, met?, the deciding figure)]."""
    out = []
    sweeps = [(v.per_page(rel, "sweep", m, n), rel, m, n) for rel in v.releases for m in v.sizes
              for n in v.topologies if m >= 4 * GIB]
    sweeps = [s for s in sweeps if s[0] is not None]
    if sweeps:
        worst = max(sweeps)
        out.append((f"sweep at most {SWEEP_TARGET:g} instructions a page from 4 GiB up", worst[0] <= SWEEP_TARGET,
                    f"at most {worst[0]:.2f} (Xen {worst[1]}, {_where(worst[2], worst[3])})"))
    gaps = []
    for rel in ("4.17",) if "4.17" in v.releases else v.releases[:1]:
        for m in v.sizes:
            for n in v.topologies:
                for name in VARIANTS:
                    real, model = v.per_page(rel, name, m, n), v.model(name, m, n)
                    if real and model:
                        gaps.append((abs(model - real) / real, name, m, n))
    if gaps:
        worst = max(gaps)
        out.append((f"each model within {TOLERANCE * 100:g} % of its variant", worst[0] <= TOLERANCE,
                    f"worst {worst[0] * 100:.1f} % ({worst[1]}, {_where(worst[2], worst[3])}); docs/fidelity.md "
                    "names the differences function by function"))
    differ = [r for r in v.get("digests") if r["problems"]] + [r for r in v.get("variant") if r["problems"]]
    out.append(("every variant's digest equal and canonical at every size and topology", not differ,
                f"{len(v.get('digests'))} size-topologies, {len(differ)} with a problem"))
    if v.get("dom0"):
        bad = [r for r in v.get("dom0") if r["status"] != "init"]
        out.append(("every dom0 boot reaches init", not bad, f"{len(v.get('dom0')) - len(bad)} of "
                    f"{len(v.get('dom0'))}"))
    if v.get("dom0-digests"):
        differ = [r for r in v.get("dom0-digests") if r["problems"]] + [r for r in v.get("dom0") if r.get("problems")]
        merged = sum(r.get("merges_after", 0) for r in v.get("dom0"))
        out.append(("every dom0 boot's heap, at boot and after its boot modules were freed, one across the "
                    "variants", not differ, f"{len(v.get('dom0-digests'))} builds, {len(differ)} with a problem; "
                    f"{merged} blocks merged across a range's edge after boot, over all the boots"))
    for r in v.get("host-time"):
        worst, memset = (hosttime.worst_over_floor(r["windows"], 8, key) for key in ("ns", "memset_ns"))
        if memset:
            out.append((f"Xen {r['release']}'s own sweep on this CPU at most {hosttime.FLOOR_TARGET:g}x the "
                        "memset() floor of its page_info bytes from 8 GiB up (hosted)",
                        memset[0] <= hosttime.FLOOR_TARGET,
                        f"{memset[0]:.2f}x at {memset[1]} GiB at worst; {worst[0]:.2f}x the faster floor, "
                        "non-temporal stores or memset()"))
        elif worst:
            out.append((f"Xen {r['release']}'s own sweep on this CPU at most {hosttime.FLOOR_TARGET:g}x its "
                        "page_info floor from 8 GiB up (hosted)", worst[0] <= hosttime.FLOOR_TARGET,
                        f"{worst[0]:.2f}x at {worst[1]} GiB at worst"))
    end = next((r for r in v.recs if r["type"] == "end"), None)
    if end:
        building = end.get("building_s", 0.0)
        cached = end["wall_s"] - building
        out.append(("the whole run under 15 minutes (builds cached)", cached <= RUN_TARGET_S,
                    f"{end['wall_s']:.0f} s" + (f", of which {building:.0f} s building: {cached:.0f} s with "
                                                "the builds cached" if building >= 1 else "")))
    return out


def report_text(v):
    out = io.StringIO()
    w = out.write
    h = v.head
    w(f"# Xen's heap hand-over, variant by variant, on one tree\n\n> **{LABEL}.**\n\n")
    w(f"Run {h.get('date', '?')}: QEMU {h.get('icount', '')} on bootheap's q35 machine, one vCPU, "
      f"guests of {', '.join(f'{m / GIB:g}' for m in v.sizes)} GiB, on one node and on two unequal "
      "ones (a third and the rest); each variant boots its own guest with `heap-init=` on the command "
      "line. The bracket is `end_boot_allocator()` from entry to return, less its printk, the same as "
      "`python3 -m harness binaries` takes of Debian's binaries; instructions a page divide it by `total_avail_pages` "
      "read at its return.\n\n")
    w("## The builds\n\n" + builds_table(v) + "\n\nXen builds with `-Werror`: a warning fails the build, "
      "and the warnings column counts what the compiler printed.\n\n")
    for rel in v.releases:
        for n in v.topologies:
            w(f"## Xen {rel}, {'one node' if n == 1 else f'{n} unequal nodes'}: instructions a page\n\n")
            w(variants_table(v, rel, n) + "\n\n")
    w("`page` is 4.16's loop, a page at a time; `chunk-72b02bc` the code the cover letter timed "
      "(72b02bc), one node lookup a range; `chunk` the release as Debian ships it; `sweep` one pass "
      "writing each page_info once, then the chunks. Where the report has it, `chunk, without the "
      "series` is the same source built without the patches and booted as Debian boots it: the "
      "released code as GCC lays it out when `_init_heap_pages()` has one caller.\n\n")
    for rel in v.releases:
        for n in v.topologies:
            if v.get("model"):
                w(f"## bootheap's models beside Xen {rel} ({'one node' if n == 1 else f'{n} nodes'})\n\n")
                w("Each variant beside bootheap's strategy of the same name (mm/strategies/).\n\n")
                w(models_table(v, rel, n) + "\n\n")
    if v.get("profile"):
        w("## Function by function\n\n")
        for prof in v.get("profile"):
            w(f"`heap-init={prof['variant']}`, the source build: ")
            profile_table(prof, w)
        w("Exclusive counts, by breakpoints at every entry and return of the functions named, from "
          "the first free of the first region large enough, over the window of pages freed "
          "(harness/real/bracket/profile.py). `sweep` frees no page on its way: its marking loop is read "
          "from the disassembly (docs/fidelity.md).\n\n")
    w("## One heap\n\n" + digests_table(v) + "\n\nEach variant's heap dump, printed after "
      "`end_boot_allocator()` returns (outside the bracket): every free block with its node, zone, "
      "order and `first_dirty`, every free page's `count_info`, `avail[]`, `total_avail_pages` and the "
      "per-node scrub counts; the canonical heap is harness/results/oracle.py's decomposition of the "
      "boot allocator's regions at the call's entry.\n\n")
    notes = notes_list(v.get("digests"))
    if notes:
        w("Named cases (the heaps differ only where each release's rule puts a node's heap metadata, "
          "harness/real/xen/carveout.py):\n\n" + notes + "\n")
    if v.get("dom0"):
        dumped = dumps_after_boot(v)
        w("## Past the heap: dom0 to its init\n\n" + dom0_table(v) + "\n\nDebian's Linux 6.1 as dom0 "
          "with a busybox initramfs, under TCG (not -icount), Xen's debug build" +
          (" with `heap-dump`" if dumped else "") + ": init prints a line and checks 16 MiB written to "
          "tmpfs, then powers off." +
          (" The heap is dumped after `end_boot_allocator()` and again once the boot modules have gone "
           "to the heap; *merged* counts the blocks with an edge of a boot allocator's region, or of a "
           "range handed over after boot, strictly inside them: blocks that only the merge code "
           "(free_heap_pages()'s, or sweep's sweep_merge()) builds." if dumped else "") + "\n\n")
    if v.get("dom0-digests"):
        w("### The heap after boot, variant against variant\n\n" + after_table(v) + "\n\n`chunk` and "
          "`sweep` are held to one list order entry by entry, with the heads' `need_tlbflush` and "
          "`scrub_state` and the fields digest (the free word, order word, TLB-flush stamp and owner of "
          "every listed page); the other variants to chunk's digests.\n\n")
        notes = notes_list(v.get("dom0-digests"))
        w(("Named cases:\n\n" + notes + "\n") if notes else "")
        for r in v.get("dom0-digests"):
            for p in r["problems"]:
                w(f"- Xen {r['release']} ({r['config']}): {p}\n")
        w("\n" if any(r["problems"] for r in v.get("dom0-digests")) else "")
    w(hosttime.section(v.get("host-time")))
    w(recorded.section(v.get("smp-recorded")))
    w("## Targets\n\n")
    for what, ok, figure in targets(v):
        w(f"- {what}: {'met' if ok else 'MISSED'} ({figure})\n")
    unavailable = v.get("unavailable")
    if unavailable:
        w("\n## Not measured\n\n")
        for u in unavailable:
            lines = u["message"].strip().splitlines()
            w(f"- Xen {u['release']}: apt cannot get its source, so it was left out: {lines[0]}"
              + "".join(f"\n  {x.strip()}" for x in lines[1:4]) + "\n")
    errors = v.get("error")
    if errors:
        w("\n## Failures\n\n")
        for e in errors:
            where = f" at {_where(e['mem_bytes'], len(e['nodes']))}" if e["mem_bytes"] else ""
            lines = e["message"].strip().splitlines()
            w(f"- {e['what']}{where}: {lines[0]}" + "".join(f"\n  {x.strip()}" for x in lines[1:4]) + "\n")
    w("\n![instructions a page](plot.png)\n")
    return out.getvalue()


STYLES = {"page": "#c00000", "chunk-72b02bc": "#e08000", "chunk": "#0050c0", "sweep": "#008000",
          UNPATCHED: "#8000a0"}


def plot_script(v, terminal):
    series = []
    # Each release the records hold (a tree by path is one of its own), a point shape and dash apiece.
    marks = {"4.17": (7, 1), "4.20": (5, 4)}
    others = iter([(9, 2), (11, 5), (13, 3)])
    for rel in v.releases:
        pt, dash = marks.get(rel) or next(others)
        for name in VARIANTS + (UNPATCHED,):
            title = f"Xen {rel} {name}" if name != UNPATCHED else f"Xen {rel} chunk, without the series"
            series.append((title, lambda m, rel=rel, name=name: v.per_page(rel, name, m, 1),
                           f"pt {pt} lw 2 dt {dash} lc rgb '{STYLES[name]}'"))
    for name in VARIANTS:
        series.append((f"bootheap {name}", lambda m, name=name: v.model(name, m, 1),
                       f"pt 1 dt 3 lc rgb '{STYLES[name]}'"))
    return per_page_script('end_boot_allocator(), Xen built from source, one node' + chr(10) + LABEL,
                           series, v.sizes, terminal, v.folder)


def write(folder):
    """Rewrites report.md and plot.png of a xen-src results folder -> 0."""
    v = Variants(folder)
    return write_report(folder, report_text(v), lambda terminal: plot_script(v, terminal))
