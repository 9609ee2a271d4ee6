# SPDX-License-Identifier: MIT
"""`ablation` (`make bench-ablation`): the page/chunk ratio under each model
of Xen's per-call costs (xen_costs=, docs/fidelity-xen.md): all of them, each alone
removed, and none. Times the hosted runner by the thread's CPU time, sets
interleaved round by round, and counts it exactly under callgrind; writes
ablation.jsonl and ablation.md into a results folder, whose report then
shows them."""
import json
import os
import time

from harness.counts import callgrind as counts
from harness.hosted import runner as hosted
from harness.common import BenchError, gib_text, md_table, parse_sizes, read_jsonl, say, size_label
from harness.results.names import kernel_record
from harness.results.records import new_folder, parse_serial
from harness.results.stats import median
from harness.results.xen import xen_row

# mm/xen_costs.c's names, in its order (tests/tools check the two agree).
COSTS = ("lfence", "mfn_valid", "lock", "m2p", "node_heap", "heap_ptrs", "pdx", "memnode", "zone",
         "scrub_check")
SETS = ("all",) + tuple("-" + c for c in COSTS) + ("none",)
STRATEGIES = ("page", "chunk")
FILE = "ablation.jsonl"
DEFAULT_SIZES = "8G,90G"
DEFAULT_RUNS = 5
DEFAULT_COUNTS = "8G 90G=all;none"


def set_name(costs):
    """A set as a file name: all, none, without-lfence."""
    return costs.replace("-", "without-")


def kernel_args(costs, runs=1):
    return [f"runs={runs}", "strategies=" + ",".join(STRATEGIES), f"xen_costs={costs}"]


def parse_counts_spec(text):
    """'8G 90G=all;none' -> [(bytes, sets)]: every set at 8 GiB, two at 90."""
    out = []
    for item in text.split():
        size, _, sets = item.partition("=")
        chosen = tuple(sets.split(";")) if sets else SETS
        unknown = [s for s in chosen if s not in SETS]
        if unknown:
            raise BenchError(f"--counts {item}: {', '.join(unknown)} is not one of {' '.join(SETS)}")
        out.append((parse_sizes(size)[0], chosen))
    return out


def one_run(nbytes, costs, folder, rnd, timeout):
    """One hosted run of page and chunk under costs -> its time records."""
    os.makedirs(os.path.join(folder, "ablation-logs"), exist_ok=True)
    log = os.path.join(folder, "ablation-logs", f"{size_label(nbytes)}-{set_name(costs)}-{rnd}.log")
    res = hosted.run(nbytes, " ".join(kernel_args(costs)), log, timeout)
    if res.status != "ok":
        raise BenchError(f"{gib_text(nbytes)} xen_costs={costs}: the hosted runner ended {res.status}; "
                         f"see {log}")
    recs, _ = parse_serial(res.log)
    bench = next(r for r in recs if r.get("type") == "bench")
    if bench.get("xen_costs") != costs:
        raise BenchError(f"{log}: the runner ran xen_costs={bench.get('xen_costs')}, not {costs}")
    if len({r["digest"] for r in recs if r.get("type") == "audit"}) != 1:
        raise BenchError(f"{log}: page and chunk built different heaps")
    tsc = {r["strategy"]: r["ns"] for r in recs if r.get("type") == "result" and r.get("phase") == "init"}
    return [{"type": "ablation_time", "size_bytes": nbytes, "costs": costs, "round": rnd,
             "strategy": r["strategy"], "pages": bench["pages"], "cpu_ns": r["ns"],
             "tsc_ns": tsc.get(r["strategy"])}
            for r in recs if r.get("type") == "cpu_time" and r.get("phase") == "init"
            and r.get("strategy") in STRATEGIES]


def count_runs(nbytes, sets, folder):
    """Each set's page and chunk counts at one size -> their counts records."""
    rows = []
    for costs in sets:
        t0 = time.monotonic()
        sub = os.path.join(folder, "ablation-counts", set_name(costs))
        got = counts.count_size(nbytes, sub, kernel_args=kernel_args(costs))
        for r in got:
            if r["phase"] == "init" and r["strategy"] in STRATEGIES:
                rows.append({"type": "ablation_counts", "size_bytes": nbytes, "costs": costs,
                             "strategy": r["strategy"], "pages": r["pages"], "cache": r["cache"],
                             "per_page": r["per_page"]})
        say(f"ablation: counted {gib_text(nbytes)} xen_costs={costs} in {time.monotonic() - t0:.0f} s")
    return rows


def load(folder):
    """The ablation records of a results folder, under today's strategy names."""
    return [kernel_record(r) for r in read_jsonl(os.path.join(folder, FILE))]


def size_table(rows, nbytes):
    """Markdown for one size: a line per set, time and counts side by side."""
    times, cnt = {}, {}
    for r in rows:
        if r["size_bytes"] != nbytes:
            continue
        if r["type"] == "ablation_time":
            times.setdefault((r["costs"], r["round"]), {})[r["strategy"]] = r["cpu_ns"] / r["pages"]
        elif r["type"] == "ablation_counts":
            cnt[(r["costs"], r["strategy"])] = r["per_page"]
    head = ["costs", "page ns/page", "chunk ns/page", "page/chunk", "page instr/page",
            "chunk instr/page", "instr page/chunk", "page LL misses/page", "chunk LL misses/page"]
    lines = []
    for s in SETS:
        rounds = [v for (c, _), v in sorted(times.items()) if c == s and set(STRATEGIES) <= set(v)]
        row = [f"`{s}`"]
        if rounds:
            row += [f"{median([v['page'] for v in rounds]):.1f}", f"{median([v['chunk'] for v in rounds]):.2f}",
                    f"{median([v['page'] / v['chunk'] for v in rounds]):.1f}x"]
        else:
            row += ["", "", ""]
        p, c = cnt.get((s, "page")), cnt.get((s, "chunk"))
        if p and c:
            row += [f"{p['instructions']:.0f}", f"{c['instructions']:.0f}",
                    f"{p['instructions'] / c['instructions']:.2f}x", f"{p['ll_misses']:.3f}",
                    f"{c['ll_misses']:.3f}"]
        else:
            row += [""] * 5
        lines.append(row)
    return md_table(head, lines)


def section(rows):
    """The ablation as report lines, each size beside Xen's published ratio."""
    if not rows:
        return []
    L = ["## Xen's per-call costs: the ablation (hosted runner)", "",
         "The page/chunk ratio with all of Xen's modelled per-call costs (xen_costs=all), with each "
         "alone removed, and with none (docs/fidelity.md). Times: medians over interleaved rounds of the "
         "thread's CPU time in the hosted runner (" + hosted.MEANS + "); `page/chunk` is the median of "
         "the rounds' ratios. Counts: callgrind, per page handed over (" + counts.CACHE_TEXT + "); "
         "blank where a set was not counted.", ""]
    for nbytes in sorted({r["size_bytes"] for r in rows}):
        rounds = {r["round"] for r in rows if r["size_bytes"] == nbytes and r["type"] == "ablation_time"}
        xen = xen_row(nbytes)
        note = (f"; Xen's published ratio (nested KVM on c5.metal, non-debug): {xen[3] / xen[4]:.1f}x"
                if xen else "")
        timed = f"{len(rounds)} rounds" if rounds else "counted only"
        L += [f"### {gib_text(nbytes)} ({timed}{note})", "", size_table(rows, nbytes), ""]
    return L


def save(folder, rows):
    """Writes the rows so far: a run stopped half way keeps what it measured."""
    with open(os.path.join(folder, FILE), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def cmd_ablation(args):
    out = args.out or new_folder(None, "ablation-")
    os.makedirs(out, exist_ok=True)
    sizes = parse_sizes(args.sizes)
    spec = parse_counts_spec(args.counts) if args.counts else []
    if args.runs < 1 and not spec:
        raise BenchError("nothing to do: --runs 0 and no --counts")
    timed = sizes if args.runs >= 1 else []
    counted = [n for n, _ in spec]
    # Keep what this run does not measure again.
    rows = [r for r in load(out) if r["size_bytes"] not in
            (timed if r["type"] == "ablation_time" else counted)]
    say(f"ablation: {len(SETS)} sets x {args.runs} rounds at {', '.join(map(gib_text, sizes))}, "
        f"into {out}")
    for rnd in range(args.runs):
        for nbytes in timed:
            for costs in SETS:
                rows += one_run(nbytes, costs, out, rnd, args.timeout)
        save(out, rows)
        say(f"ablation: round {rnd + 1} of {args.runs} done")
    for nbytes, sets in spec:
        rows += count_runs(nbytes, sets, out)
        save(out, rows)
    text = "\n".join(section(rows))
    with open(os.path.join(out, "ablation.md"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    say(text)
    say(f"ablation: written to {out}")
    return 0
