# SPDX-License-Identifier: MIT
"""report.md of `python3 -m harness linux-src`, from a results folder's
linux-src.jsonl: each phase of the source build beside Debian's 6.12
binary of a `binaries` folder, at the same size, by the one rule of
harness/real/binaries/report.linux_per_page(); then the options the
configuration kept from Debian's and how each came out.

linux-src.jsonl: a `linux-src` header, the `build` record (build.json),
per size and node count three `phase` records or an `error` record, and
an `end` record."""
import os

from harness import ROOT
from harness.common import GIB, BenchError, read_jsonl
from harness.real.binaries.report import LABEL, LINUX_PHASES, linux_per_page, read_records
from harness.real.linux.host import run as hostrun
from harness.results.names import kept_folder

RECORDS = "linux-src.jsonl"
HOST_RECORDS = "host-time.jsonl"     # the same sizes timed on this CPU (harness/real/linux/host/run.py)
MODEL = "linux612"              # bootheap's model of Debian's 6.12 (`binaries`)
TOLERANCE = 0.10
DEBIAN_BINARY = "linux-6.12"
# The `binaries` folder with Debian's figures, relative to the tree (a
# record naming the folder it had before, peers-linux, finds this one).
DEBIAN = os.path.join("docs", "results", "binaries-linux")


def debian_phases(folder):
    """({(mem_bytes, phase): record}, header) of Debian's 6.12 binary in a
    `binaries` folder's records (one node)."""
    recs = read_records(folder)
    out = {(r["mem_bytes"], r["phase"]): r for r in recs
           if r.get("type") == "binary" and r.get("binary") == DEBIAN_BINARY and r.get("pages")}
    return out, recs[0]


def model_phases(folder):
    """{(mem_bytes, phase): instructions a page} of bootheap's `linux612`
    model (one node) in a `binaries` folder, by the same rule."""
    return {(r["mem_bytes"], phase): v for r in read_records(folder)
            if r.get("type") == "linux_model" and r.get("strategy") == MODEL
            for phase, v in r.get("per_page", {}).items()}


def comparison(ours, theirs):
    """[(mem, nodes, phase, ours per page, record, Debian's per page or None,
    within)] of the source build's phase records against Debian's."""
    rows = []
    for r in ours:
        mine = linux_per_page(r)
        d = theirs.get((r["mem_bytes"], r["phase"])) if r["nodes"] == 1 else None
        real = linux_per_page(d) if d else None
        within = None if real is None else abs(mine / real - 1) <= TOLERANCE
        phase = r["phase"] + (f" ({r['variant']})" if r.get("variant") else "")
        rows.append((r["mem_bytes"], r["nodes"], phase, mine, r, real, within))
    return rows


def totals(ours):
    """{(mem, nodes, init_pages variant or ""): (instructions of all three
    phases, pages handed over)}."""
    out = {}
    for r in ours:
        key = (r["mem_bytes"], r["nodes"], r.get("variant", ""))
        n, _ = out.get(key, (0, r["pages_total"]))
        out[key] = (n + r["instructions"], r["pages_total"])
    return out


def profile_tables(recs, ours, theirs):
    """Each profiled phase, function by function, the source build beside
    Debian's binary: calls and instructions a page of the phase's pages."""
    profs = {}
    for r in recs:
        if r["type"] == "profile":
            side = r.get("side", "source") + (f" ({r['variant']})" if r.get("variant") else "")
            profs.setdefault((r["phase"], r["mem_bytes"]), {})[side] = r
    out = []
    for (phase, mem), sides in profs.items():
        d = theirs.get((mem, phase))
        pages = {}
        for side, p in sides.items():
            mine = (r["pages"] for r in ours
                    if (r["mem_bytes"], r["nodes"], r["phase"], r.get("variant", "")) ==
                    (mem, 1, phase, p.get("variant", "")))
            pages[side] = (d["pages"] if d else None) if side == "debian" else next(mine, None)
        out += ["", f"### {phase} at {mem // GIB} GiB, function by function", "",
                "Every instruction from the entry of the phase's function to its return given to the function "
                "it ran in (harness/real/binaries/linux_profile.py), over the phase's pages: "
                + ", ".join(f"{side} {p['total']:,} instructions" + (f" / {pages[side]:,} pages" if pages[side] else "")
                            for side, p in sides.items()) + ".", "",
                "| function | " + " | ".join(f"{s}: calls | {s}: a page" for s in sides) + " |",
                "|---|" + "---|---|" * len(sides)]
        names = sorted({n for p in sides.values() for n in p["exclusive"]},
                       key=lambda n: -max(p["exclusive"].get(n, 0) for p in sides.values()))
        for n in names:
            cells = []
            for side, p in sides.items():
                x = p["exclusive"].get(n)
                cells += ["-", "-"] if x is None else \
                    [f"{p['calls'].get(n, 0):,}", f"{x / pages[side]:.2f}" if pages[side] else f"{x:,}"]
            out.append(f"| `{n}` | " + " | ".join(cells) + " |")
    return out


def _hand_and_series(cfg):
    """The derivation's options kept by hand, its boot values, and what the
    series adds to and takes from the symbols the sources test, in words."""
    out = ""
    if cfg.get("by_hand"):
        out += " Kept at Debian's value by hand: " + "; ".join(f"`{s}` ({why})" for s, why in cfg["by_hand"].items()) + "."
    if cfg.get("boot_values"):
        out += " Set for the boots: " + ", ".join(f"`{s}={v}`" for s, v in cfg["boot_values"].items()) + "."
    series = cfg.get("series")
    if series:
        out += (" The series adds to what the sources test: " + (", ".join(
            f"`{s}` ({', '.join(w[:2])})" for s, w in series["added"].items()) or "nothing") + "; and takes away: "
            + (", ".join(f"`{s}`" for s in series["dropped"]) or "nothing") + ".")
    return out


def _value(v):
    return "not set" if v is None else f"`{v}`"


def render(recs, debian_folder):
    head = next((r for r in recs if r["type"] == "linux-src"), None)
    b = next((r for r in recs if r["type"] == "build"), None)
    if head is None or b is None:
        raise BenchError("linux-src.jsonl has no header or build record")
    ours = [r for r in recs if r["type"] == "phase"]
    errors = [r for r in recs if r["type"] == "error"]
    end = next((r for r in recs if r["type"] == "end"), {})
    theirs, dhead = debian_phases(debian_folder)
    pkg = dhead.get("packages", {}).get(DEBIAN_BINARY, {})
    flipped = b["config"].get("flipped")
    if flipped:                     # another configuration than Debian's: nothing to set beside it
        theirs = {}
    out = [f"# Linux {b.get('release', '6.12')} from Debian's source beside Debian's 6.12 binary", "",
           f"**{LABEL}.**", "",
           f"Source: Debian's `linux` {b['source_version']} ({b['suite']}), {len(b['patches'])} patches of "
           f"this project; build key `{b['key']}`; built in {b['build_s']:.0f} s with "
           f"`{b['toolchain']['gcc']}` ({len(b['warnings'])} compiler warnings). Debian's binary: "
           f"`{pkg.get('package', '?')}` {pkg.get('version', '?')}, from `python3 -m harness binaries` in "
           f"`{os.path.relpath(debian_folder, ROOT)}` ({dhead.get('qemu', '?')}).", ""]
    borrowed = b["config"].get("debian_config") or {}
    if borrowed.get("release", b.get("release")) != b.get("release"):
        out += [f"**Debian's config of another release:** {borrowed.get('source', '')}.", ""]
    if flipped:
        also = ", ".join(f"`{k}` to {_value(v)}" for k, v in flipped["also_changed"].items())
        out += ["**Built with " + ", ".join(f"`{k}={v}`" for k, v in flipped["flips"].items()) + "** (`--no-defer`), "
                f"olddefconfig changing {also or 'nothing else'}: not Debian's configuration, so neither "
                "Debian's binary nor the model is set beside it.", ""]
    out += [
           f"Both boot by their PVH note under qboot, q35, 1 vCPU, `-icount {head['icount']}`, one boot "
           "recorded and replayed with gdbstub breakpoints at the brackets of `python3 -m harness binaries` "
           "(harness/real/bracket/boot.py): memmap init (`memmap_init_range()` within `free_area_init()`), "
           "`memblock_free_all()` and the deferred init (`deferred_init_memmap()`), each less its "
           "`printk()` calls" + (", the deferred init on each node's thread, its own stack, less the "
                                 "scheduler and interrupts (harness/qemu/brackets.py)"
                                 if any(n > 1 for n in head.get("nodes", [1])) else "")
           + f". Run {head['date']}, {end.get('wall_s', 0):.0f} s in all "
           f"({end.get('building_s', 0):.0f} s of it building or finding the build).", "",
           "## Instructions a page, each phase", "",
           "Memmap and the deferred init over their own pages, `memblock_free_all()` less its "
           "reserved-page init (`reserve_bootmem_region()`) over the pages it freed: the rule of "
           "the tables of `python3 -m harness binaries`.", "",
           "| RAM | nodes | phase | source build: instructions / pages = a page | Debian's binary | "
           f"source / Debian | the `{MODEL}` model |", "|---|---|---|---|---|---|---|"]
    rows = comparison(ours, theirs)
    models = {} if flipped else model_phases(debian_folder)
    for mem, nodes, phase, mine, r, real, within in rows:
        vs = "-" if real is None else f"{(mine / real - 1) * 100:+.1f}%" + ("" if within else " (outside 10%)")
        model = models.get((mem, r["phase"])) if nodes == 1 else None
        out.append(f"| {mem // GIB} GiB | {nodes} | {phase} | {r['instructions']:,} / {r['pages']:,} = "
                   f"{mine:.2f} | {'-' if real is None else f'{real:.2f}'} | {vs} | "
                   f"{'-' if model is None else f'{model:.2f}'} |")
    out += ["", f"| RAM | nodes | {'both' if flipped else 'all three'} phases / pages handed over | Debian's binary |",
            "|---|---|---|---|"]
    for (mem, nodes, variant), (n, pages) in sorted(totals(ours).items()):
        d = [theirs.get((mem, p)) for p in LINUX_PHASES] if nodes == 1 else [None]
        dt = f"{sum(x['instructions'] for x in d) / d[0]['pages_total']:.2f}" if all(d) else "-"
        out.append(f"| {mem // GIB} GiB | {nodes}{f' ({variant})' if variant else ''} | {n:,} / {pages:,} = "
                   f"{n / pages:.2f} | {dt} |")
    outside = [x for x in rows if x[6] is False]
    if outside:
        out += ["", "### Outside 10 %", ""]
        out += [f"- {m // GIB} GiB, {ph}: {mine:.2f} against {real:.2f} instructions a page "
                f"({(mine / real - 1) * 100:+.1f}%)" for m, _, ph, mine, _, real, _ in outside]
    out += profile_tables(recs, ours, theirs)
    for e in errors:
        out += ["", f"**No bracket at {e['mem_bytes'] // GIB} GiB, {e['nodes']} node(s):** "
                + e["message"].splitlines()[0]]
    cfg = b["config"]
    opts = cfg["options"]
    same = [o for o in opts if "depends_on" not in o]
    out += ["", "## The configuration", "",
            "`tinyconfig`, then " + ", ".join(f"`{s}`" for s in cfg["base"]) + " (the boot), then every "
            "CONFIG_ symbol that the memory-init sources test (`#if`, `#ifdef`, `IS_ENABLED()`) or the "
            "code generation tests (the Makefiles' conditionals and flag lines), at the value of Debian's "
            "amd64 config (its fragments resolved by `make olddefconfig`), where Debian sets it or where "
            "tinyconfig would differ; then, round by round, what those need (harness/real/linux/config.py). "
            f"Sources read: {', '.join(f'`{s}`' for s in cfg['sources'])}.", "",
            f"{len(opts)} options kept, {len(same)} as Debian has them. Added for what they need: "
            + (", ".join(f"`{s}`" for s in cfg["needs"]) or "nothing") + ". Left as tinyconfig has them: "
            + "; ".join(f"`{s}` ({why})" for s, why in cfg["excluded"].items()) + "."
            + _hand_and_series(cfg), "",
            "| option | Debian | this build | tested in |", "|---|---|---|---|"]
    for o in opts:
        mark = "" if "depends_on" not in o else " **differs**"
        out.append(f"| `{o['symbol']}` | {_value(o['debian'])} | {_value(o['built'])}{mark} | "
                   f"{', '.join(o['tested_in'][:3])} |")
    binary = next((r for r in recs if r["type"] == "binary_config"), None)
    if binary:
        off = [o for o in opts if (binary["values"].get(o["symbol"]) or None) != (o["debian"] or None)]
        out += ["", f"Debian's binary's own config (`{pkg.get('package', '?')}` {pkg.get('version', '?')}) has "
                f"{len(opts) - len(off)} of the {len(opts)} kept options at the value derived from the "
                "source package's fragments" + (": all of them." if not off else ", all but " + ", ".join(
                    f"`{o['symbol']}` ({_value(binary['values'].get(o['symbol']))} there)" for o in off) + ".")]
    differ = [o for o in opts if "depends_on" in o]
    if differ:
        out += ["", "Where this build differs from Debian, the option's Kconfig conditions (kconfig "
                "did not take Debian's value under them; an option with none is only selected by others):", ""]
        out += [f"- `{o['symbol']}`: {o['depends_on'] or 'no prompt: selected by other options'}" for o in differ]
    return "\n".join(out) + "\n"


def write(folder, debian_folder=None):
    """report.md of a linux-src results folder -> 0."""
    recs = read_jsonl(os.path.join(folder, RECORDS))
    if not recs:
        raise BenchError(f"{folder}: no {RECORDS} (run `python3 -m harness linux-src` first)")
    head = next((r for r in recs if r["type"] == "linux-src"), {})
    debian_folder = debian_folder or os.path.join(ROOT, kept_folder(head.get("debian", DEBIAN)))
    text = render(recs, debian_folder)
    host = read_jsonl(os.path.join(folder, HOST_RECORDS)) if os.path.isfile(os.path.join(folder, HOST_RECORDS)) \
        else []
    if host:
        text += "\n" + hostrun.section(host) + "\n"
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write(text)
    return 0
