# SPDX-License-Identifier: MIT
"""`linux-src configs`: each patch of the series, applied one after the
other to one unpacked tree, compiled with and without each option that
changes the memory-init path. The .config of the cached source build
(harness/real/linux/source.py) is the base; each option is flipped from
its value there by scripts/config, `make olddefconfig` settles what it
pulls with it, and the C files the series touches are compiled to their
objects (the headers it touches are compiled through them). A flip that
olddefconfig undoes is recorded as such, not as a build. Each
configuration keeps its own object folder, so the next patch recompiles
only what it changed."""
import json
import os
import shutil
import time

from harness.common import BenchError, read_jsonl
from harness.real.linux import config as kconfig
from harness.real.linux import source
from harness.real.source import build as srcbuild, package

# The options of the memory-init path (the memory model, the node and
# zone layout, deferral, hotplug, the init-on-alloc and init-on-free
# defaults, page poisoning, the return thunk, and the debug options the
# sweep steps aside for), one configuration each, and all three of the
# layout's options off together.
OPTIONS = ("DEFERRED_STRUCT_PAGE_INIT", "NUMA", "MEMORY_HOTPLUG", "SPARSEMEM_VMEMMAP", "ZONE_DMA",
           "INIT_ON_ALLOC_DEFAULT_ON", "INIT_ON_FREE_DEFAULT_ON", "PAGE_POISONING", "MITIGATION_RETHUNK",
           "DEBUG_VM", "PAGE_OWNER")
TOGETHER = ("DEFERRED_STRUCT_PAGE_INIT", "NUMA", "MEMORY_HOTPLUG")
RECORDS = "configs.jsonl"


def touched(patches):
    """The files the patches change, in order -> (C files, other files)."""
    files = package.touched(patches)
    return [f for f in files if f.endswith(".c")], [f for f in files if not f.endswith(".c")]


def variants(base):
    """The configurations: (name, {symbol: value}), each option flipped
    from its value in the base .config (a dict of symbol -> value)."""
    out = [("as built", {})]
    for sym in OPTIONS:
        on = base.get(sym) not in (None, "n")
        out.append((f"{'without' if on else 'with'} {sym}", {sym: "n" if on else "y"}))
    off = {s: "n" for s in TOGETHER if base.get(s) not in (None, "n")}
    if len(off) > 1:
        out.append((f"without {', '.join(off)}", off))
    return out


def compile_objects(tree, obj, cfiles, log, jobs):
    """The objects of cfiles in obj -> (None or the failure, warnings)."""
    start = os.path.getsize(log) if os.path.exists(log) else 0
    try:
        srcbuild.make(tree, [f"O={obj}", f"-j{jobs}"] + [c[:-2] + ".o" for c in cfiles], log,
                    "the build of " + ", ".join(cfiles), shown="linux")
        failed = None
    except source.SourceError as e:
        failed = str(e)
    with open(log, errors="replace") as f:
        f.seek(start)
        warned = [line.rstrip() for line in f if ": warning: " in line]
    return failed, warned


def run(release, out, say=print, jobs=None):
    """Every patch of the series in turn, each configuration compiled ->
    records (one `config_build` each, one `config_undone` a flip that
    olddefconfig undid)."""
    b = source.build(release, say=say)
    with open(b.folder + "/config") as f:
        base_text = f.read()
    base = kconfig.parse_config(base_text)
    patches = source.patches_of(release)
    cfiles, others = touched(patches)
    version, dsc = source.LINUX.fetch(release, say=say)
    work = os.path.join(source.LINUX.src, "work-configs")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tree, log = os.path.join(work, "src"), os.path.join(out, "configs.log")
    jobs = jobs or os.cpu_count() or 1
    records, t0 = [], time.monotonic()
    try:
        say(f"linux-src: unpacking linux {version} for the configurations")
        package.unpack(dsc, tree)
        chosen, unbuilt = [], set()
        for name, flips in variants(base):
            left = source.settle(tree, os.path.join(work, f"obj-{len(chosen)}"), base_text, flips, log)
            if left:
                records.append({"type": "config_undone", "config": name, "left": left})
                say(f"linux-src: {name}: olddefconfig leaves {', '.join(f'{s}={v}' for s, v in left.items())}")
                unbuilt.add(name)
            chosen.append((name, flips))
        for i, patch in enumerate(patches, 1):
            package.apply_series(tree, [patch])
            for j, (name, flips) in enumerate(chosen):
                if name in unbuilt:
                    continue
                t = time.monotonic()
                failed, warned = compile_objects(tree, os.path.join(work, f"obj-{j}"), cfiles, log, jobs)
                rec = {"type": "config_build", "patches": i, "patch": os.path.basename(patch), "config": name,
                       "flips": flips, "objects": [c[:-2] + ".o" for c in cfiles], "headers": others,
                       "ok": failed is None and not warned, "failed": failed, "warnings": warned,
                       "seconds": round(time.monotonic() - t, 1)}
                records.append(rec)
                say(f"linux-src: patches 1-{i}, {name}: "
                    + ("built, no warning" if rec["ok"] else failed.splitlines()[0] if failed
                       else f"{len(warned)} warning(s): {warned[0]}"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return records + [{"type": "end", "wall_s": round(time.monotonic() - t0, 1), "jobs": jobs,
                       "source_version": version, "key": b.info["key"]}]


def markdown(records, release):
    """The table of a `configs` run: a row a configuration, a column a patch."""
    builds = [r for r in records if r["type"] == "config_build"]
    names = list(dict.fromkeys(r["config"] for r in builds))
    levels = sorted({r["patches"] for r in builds})
    cell = {(r["config"], r["patches"]): r for r in builds}

    def show(r):
        if r is None:
            return "-"
        return "builds" if r["ok"] else "**fails**" if r["failed"] else f"**{len(r['warnings'])} warnings**"
    lines = [f"# Linux {release}: the series built with and without each option", "",
             "Each patch applied in turn to one tree; the objects of the C files the series touches "
             "compiled (harness/real/linux/configs.py), from the cached build's .config with one "
             "option flipped and `make olddefconfig` after it."
             + "".join(f" Linux {r['source_version']}, build key `{r['key']}`; {len(builds)} builds, "
                       f"{r['wall_s']:.0f} s in all with unpacking, make -j{r['jobs']}."
                       for r in records if r["type"] == "end"), "",
             "| configuration | " + " | ".join(f"patches 1-{i}" for i in levels) + " |",
             "|---|" + "---|" * len(levels)]
    for n in names:
        lines.append(f"| {n} | " + " | ".join(show(cell.get((n, i))) for i in levels) + " |")
    for r in records:
        if r["type"] == "config_undone":
            lines.append("")
            lines.append(f"- {r['config']}: not built, `make olddefconfig` leaves "
                         + ", ".join(f"`{s}={v}`" for s, v in r["left"].items()))
    bad = [r for r in builds if not r["ok"]]
    for r in bad:
        lines += ["", f"### patches 1-{r['patches']}, {r['config']}", "", "```",
                  (r["failed"] or "\n".join(r["warnings"]))[-3000:], "```"]
    return "\n".join(lines) + "\n"


def write(records, out, release):
    """configs.jsonl and configs.md into `out` -> 0 when every build passed
    without a warning; else 1 (and 1 when nothing was built)."""
    with open(os.path.join(out, RECORDS), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(out, "configs.md"), "w") as f:
        f.write(markdown(records, release))
    return 0 if records and all(r["ok"] for r in records if r["type"] == "config_build") else 1


def rewrite(folder):
    """configs.md written again from the folder's configs.jsonl (`linux-src
    report FOLDER`) -> 0, whatever the builds said."""
    records = read_jsonl(os.path.join(folder, RECORDS))
    if not records:
        raise BenchError(f"{folder}: no {RECORDS} (run `python3 -m harness linux-src configs` first)")
    end = next((r for r in records if r["type"] == "end"), {})
    with open(os.path.join(folder, "configs.md"), "w") as f:
        f.write(markdown(records, ".".join(end.get("source_version", "?").split(".")[:2])))
    return 0
