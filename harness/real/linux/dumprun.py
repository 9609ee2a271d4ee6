# SPDX-License-Identifier: MIT
"""`linux-src dump`: the source build with its series booted at each size
for its memory map (harness/real/linux/dumpboot.py): twice as
`init_pages=stock`, which must give the same dump word for word, once as
`init_pages=sweep` and once with no init_pages (the default), which must
give the same but for the words users write in pages with a reference held
(dumpdiff.compare(), user_words); on more than one node sweep once more with a
padded command line, each sweep boot held to each stock one, and also
compared where no allocation touched (dumpdiff.compare_untouched()); each
dump held to itself (dump.check()); every pair's early dumps, printed
before any thread but the boot's own ran, compared word for word; and once
with an init_pages value no kernel knows, which Linux must refuse with its
own message. `--layouts` adds LAYOUTS. `linux-src compare A B`: two
serial logs' dumps compared."""
import json
import os

from harness.common import size_label
from harness.real.linux import dump, dumpboot, dumpdiff

# Each variant's command line, and the default's: no init_pages, padded to
# the same length with a parameter no code reads (Linux hands it to init).
VARIANTS = (("stock", "init_pages=stock"), ("stock-again", "init_pages=stock"), ("sweep", "init_pages=sweep"),
            ("default", "pad_param=xxxxxx"))
# On more than one node the boot's allocations land by its timing, which a
# longer command line shifts (stock and default then differ): sweep is also
# booted with a padded line, and each sweep boot is held to each stock one.
PADDED = ("sweep-padded", "init_pages=sweep pad_param=" + "x" * 32)
STOCKS, SWEEPS = ("stock", "default"), ("sweep", "sweep-padded")
UNKNOWN = "init_pages=bogus"
# The layouts of `dump --layouts`: (name, RAM, nodes (a count or each
# node's MiB), parameters every variant's boot adds). Reserved ranges
# (memmap=nn$ss) in DMA32, inside the deferred zone's first section and
# across its end; and nodes of unequal size, one of them holding a hole.
LAYOUTS = (("1G-reserved", 1 << 30, 1, "memmap=64M$0x10000000 memmap=3M$0x20100000"),
           ("4G-reserved", 4 << 30, 1, "memmap=3M$0x100100000 memmap=5M$0x108001000 memmap=64M$0x40000000"),
           ("1G+3G", 4 << 30, [1024, 3072], ""),
           ("3G+1G-reserved", 4 << 30, [3072, 1024], "memmap=7M$0x100300000"))


def node_count(nodes):
    return nodes if isinstance(nodes, int) else len(nodes)


def pairs(nodes):
    """The (a, b) variant pairs a size's dumps are compared in."""
    if node_count(nodes) == 1:
        return [("stock", "stock-again"), ("stock", "sweep"), ("stock", "default")]
    return [("stock", "stock-again"), ("stock", "default"), ("sweep", "sweep-padded")] + \
        [(a, b) for b in SWEEPS for a in STOCKS]


def summary(d):
    """A dump's figures, for its record."""
    return [{"node": z.nid, "zone": z.name, "start": z.start, "spanned": z.spanned, "present": z.present,
             "managed": z.managed, "nr_free_pages": z.free_pages, "holes": z.holes,
             "digest": f"{z.digest:#x}", "runs": len(z.runs), "pageblock_runs": len(z.blocks),
             "free_blocks": sum(len(p) for p in z.lists.values()),
             "nr_free": [z.nr_free.get(o, 0) for o in range(d.header["orders"])]} for z in d.zones]


def dump_records(build, mem, out, nodes=1, say=print, extra="", label=None):
    """The dumps at one size (nodes: a count, or each node's MiB; extra:
    parameters every boot adds; label: the layout's name) -> records: one `dump` a variant (its
    problems, [] when it holds together), one `dump_compare` (the first
    difference, or None), one `refusal` (what Linux said of UNKNOWN)."""
    records, dumps, early = [], {}, {}
    base = {"mem_bytes": mem, "nodes": nodes, "key": build.info["key"]}
    if label:
        base.update(layout=label, params=extra)
    tag = label or f"{size_label(mem)}-{nodes}n"
    for name, params in VARIANTS + ((PADDED,) if node_count(nodes) > 1 else ()):
        params = f"{params} {extra}".strip()
        log = os.path.join(out, f"serial-dump-{name}-{tag}.log")
        say(f"linux-src: dump at {label or size_label(mem)} ({name}: {params})")
        try:
            d, text = dumpboot.boot(build.files(), mem, log, params, nodes)
        except dumpboot.DumpBootError as e:
            records.append(dict(base, type="error", message=f"the dump as {name}: {e}"))
            continue
        dumps[name] = d
        try:
            early[name] = dump.parse(text, early=True)
            early_problems = dump.check(early[name])
        except dump.DumpError as e:
            early_problems = [f"the early dump: {e}"]
        records.append(dict(base, type="dump", variant=name, params=params,
                            problems=dump.check(d) + early_problems, totalram=d.totalram,
                            nr_free_pages=d.free_pages, zones=summary(d),
                            early_zones=summary(early[name]) if name in early else None,
                            log=os.path.basename(log)))
    lines = {name: f"{params} {extra}" for name, params in VARIANTS + (PADDED,)}
    for na, nb in pairs(nodes):
        if na in dumps and nb in dumps:
            a, b = dumps[na], dumps[nb]
            exact, loose = dumpdiff.compare(a, b, (na, nb)), dumpdiff.compare(a, b, (na, nb), user_words=False)
            same_line = lines[na] == lines[nb]
            r = dict(base, type="dump_compare", a=na, b=nb, exact=exact, user_words_left_out=loose,
                     user_pages=dumpdiff.user_differences(a, b), difference=exact if same_line else loose)
            if na in early and nb in early:
                r["early_difference"] = dumpdiff.compare(early[na], early[nb], (na, nb))
            if node_count(nodes) > 1:
                r["untouched"], r["touched_pages"] = dumpdiff.compare_untouched(a, b, (na, nb))
            records.append(r)
    log = os.path.join(out, f"serial-dump-unknown-{tag}.log")
    say(f"linux-src: {UNKNOWN} at {label or size_label(mem)}")
    try:
        dumpboot.boot(build.files(), mem, log, f"{UNKNOWN} {extra}".strip(), nodes)
        said = None
    except dumpboot.DumpBootError as e:
        with open(log, errors="replace") as f:
            said = dumpboot.refused(f.read())
        if not said:
            records.append(dict(base, type="error", message=f"{UNKNOWN}: {e}"))
            return records
    records.append(dict(base, type="refusal", params=UNKNOWN, refused=said or [],
                        message=f"Malformed early option '{said[0]}'" if said else None))
    return records


def judge(records):
    """One size's dump_compare records, judged in place. Two boots of one
    variant whose command lines differ only in length (stock and default,
    sweep and sweep-padded) that differ say the boot is not a function of
    the kernel alone at this size: its allocations land by its timing.
    Where the records hold a comparison of what no allocation touched
    (more than one node, dumpdiff.compare_untouched()), that comparison then
    counts in place of the whole one. Else a sweep boot the same as a stock
    one stands as the comparison, and every other difference is said, not
    counted; so is every difference when no sweep boot is the same as a
    stock one, which proves nothing either way there. Without that sign of
    timing each difference counts. Two boots of one command line (stock,
    stock-again) must agree, and so must every pair's early dumps, printed
    before any thread but the boot's own has run."""
    compares = [r for r in records if r["type"] == "dump_compare"]
    agree = next((r for r in compares if r["a"] in STOCKS and r["b"] in SWEEPS
                  and not r["difference"]), None)
    timing = [r for r in compares if (r["a"], r["b"]) in (("stock", "default"), ("sweep", "sweep-padded"))
              and r["difference"]]
    if not timing:
        return
    why = (f"{timing[0]['a']} and {timing[0]['b']} differ: the boot's allocations land by timing here" +
           (f"; {agree['a']} and {agree['b']} are the same" if agree
            else "; no sweep boot is the same as a stock one"))
    for r in compares:
        if r["b"] == "stock-again":
            continue
        if "untouched" in r:
            r["timing"], r["difference"] = why.split(";")[0], r["untouched"]
        elif r is not agree:
            r["not_judged"] = why


def run(b, out, sizes, node_counts, layouts=False, say=print):
    """`linux-src dump`: the dumps of build `b` at each size and node count,
    and each of LAYOUTS too with `layouts`, into out/dumps.jsonl -> 0 when
    every dump holds together, the variants are the same (judge()) and the
    unknown value was refused; else 1, each failure said."""
    bad = 0
    with open(os.path.join(out, "dumps.jsonl"), "w") as f:
        f.write(json.dumps(dict(b.info, type="build")) + "\n")
        cases = [(m, n, "", None) for n in node_counts for m in sizes]
        cases += [(mem, nodes, extra, name) for name, mem, nodes, extra in LAYOUTS] if layouts else []
        for mem, nodes, extra, label in cases:
            records = dump_records(b, mem, out, nodes, say=say, **({"extra": extra, "label": label} if label else {}))
            judge(records)
            for r in records:
                f.write(json.dumps(r) + "\n")
                f.flush()
                what = {"dump": lambda: f"{r['variant']}: " + ("; ".join(r["problems"]) or "holds together"),
                        "dump_compare": lambda: f"{r['a']} and {r['b']}: " + (r["difference"] or (
                            f"the same outside the {r['touched_pages']} pages either boot's allocations "
                            f"touched ({r['timing']})" if r.get("timing") else
                            "the same" + (f" but for the user words of {r['user_pages']} pages in use"
                                          if r["exact"] else " word for word"))) +
                        (f"; the early dumps differ: {r['early_difference']}" if r.get("early_difference")
                         else "; the early dumps the same word for word" if "early_difference" in r else ""),
                        "refusal": lambda: f"{r['params']}: " + (r["message"] or "not refused"),
                        "error": lambda: r["message"]}[r["type"]]()
                bad += r["type"] == "error" or bool(r.get("problems")) or \
                    bool(r.get("difference") and not r.get("not_judged")) or bool(r.get("early_difference")) or \
                    (r["type"] == "refusal" and not r["refused"])
                where = label or f"{size_label(mem)}, {nodes} node{'s' if nodes > 1 else ''}"
                say(f"linux-src: {where}: {what}"
                    + (f" (not judged: {r['not_judged']})" if r.get("not_judged") and r.get("difference") else ""))
    say(f"linux-src: {out}/dumps.jsonl")
    return 1 if bad else 0


def compare_logs(a, b, say=print):
    """`linux-src compare A B` -> 0 when both dumps hold together and are the same,
    and so are their early dumps where both logs have one; 1 when they
    differ or one does not hold (each said), 2 when a log has no dump that
    can be read."""
    dumps, texts = [], []
    for path in (a, b):
        try:
            with open(path, errors="replace") as f:
                texts.append(f.read())
            dumps.append(dump.parse(texts[-1]))
        except (OSError, dump.DumpError) as e:
            say(f"linux-src: {path}: {e}")
            return 2
    status = 0
    for path, d in zip((a, b), dumps):
        for problem in dump.check(d):
            say(f"linux-src: {path}: {problem}")
            status = 1
    names = (os.path.basename(a), os.path.basename(b))
    if all(dump.EARLY in t for t in texts):
        try:
            early = [dump.parse(t, early=True) for t in texts]
        except dump.DumpError as e:
            say(f"linux-src: the early dumps: {e}")
            return 2
        for path, d in zip((a, b), early):
            for problem in dump.check(d):
                say(f"linux-src: {path}: the early dump: {problem}")
                status = 1
        diff = dumpdiff.compare(*early, names)
        say(f"linux-src: the early dumps differ: {diff}" if diff else "linux-src: the early dumps are the same")
        status = 1 if diff else status
    diff = dumpdiff.compare(*dumps, names)
    if diff:
        say(f"linux-src: the dumps differ: {diff}")
        return 1
    say(f"linux-src: the dumps are the same ({sum(len(z.runs) for z in dumps[0].zones)} runs, "
        f"{sum(len(p) for z in dumps[0].zones for p in z.lists.values())} free blocks)")
    return status
