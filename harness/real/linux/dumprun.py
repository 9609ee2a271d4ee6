# SPDX-License-Identifier: MIT
"""`linux-src dump`: the source build with its series booted at each size,
node count and vCPU count for its memory map (harness/real/linux/dumpboot.py:
guest RAM on a pattern, -icount), built as a dump build (DUMP_FLIPS): twice
as `init_pages=stock`, which must give the same dump word for word; as
`init_pages=sweep`; with no init_pages (the default) and with a longer
command line, stock and sweep. Each dump held to itself and its counters
(dump.check()); every pair's early dumps, printed before any thread but
the boot's own ran, compared word for word; every late pair compared
word for word, and where a pair differs, judge() holds it to what two stock
boots whose command lines differ show (REFERENCES): the pages in use whose
users' words differ (dumpdiff.user_word_pages()), or the pages either
boot's allocations touched (dumpdiff.compare_untouched()), each counted,
bounded and reported. Once with an init_pages value no kernel knows, which
Linux must refuse with its own message. `--layouts` adds LAYOUTS, `--gates`
GATES. `linux-src compare A B`: two serial logs' dumps compared."""
import json
import os

from harness.common import size_label
from harness.real.linux import dump, dumpboot, dumpdiff

# Each variant's command line. Those of stock, stock-again, sweep and the
# default (no init_pages, padded with a parameter no code reads, which
# Linux hands to init) are of one length; the padded ones are longer,
# which moves the boot's timing.
PAD = " pad_param=" + "x" * 32
VARIANTS = (("stock", "init_pages=stock"), ("stock-again", "init_pages=stock"), ("sweep", "init_pages=sweep"),
            ("default", "pad_param=xxxxxx"), ("stock-padded", "init_pages=stock" + PAD),
            ("sweep-padded", "init_pages=sweep" + PAD), ("stock-slow", "init_pages=stock"),
            ("sweep-slow", "init_pages=sweep"))
# Variants booted under another -icount: each instruction two virtual ns,
# so that every timer comes after half the instructions it does at one:
# the boot's timing moved as a whole, as sweep's fewer instructions move
# it, where the padding moves it a little. stock-slow moves stock's late
# dump later; sweep-slow moves sweep's, which comes earlier than stock's
# as its deferred init ends sooner, back to about stock's time.
ICOUNTS = {"stock-slow": "shift=1,sleep=off", "sweep-slow": "shift=1,sleep=off"}
STOCKS, SWEEPS = ("stock", "default", "stock-padded", "stock-slow"), ("sweep", "sweep-padded", "sweep-slow")
# Two stock boots whose command lines differ, in text and in length, or
# whose timing differs: what they differ in (the random pool the line
# seeds; the timing) bounds what a stock and a sweep boot may.
REFERENCES = (("stock", "default"), ("stock", "stock-padded"), ("stock", "stock-slow"))
# The timing witness: where it is the same word for word, what a sweep
# pair differs in beyond REFERENCES' bound is where the boot's timing put
# the late dump, not what the series wrote (judge()).
WITNESS = ("stock", "sweep-slow")
PAIRS = (("stock", "stock-again"),) + REFERENCES + (("stock", "sweep"), ("default", "sweep"),
                                                    ("stock", "sweep-padded"), ("sweep", "sweep-padded"),
                                                    ("stock-padded", "sweep-padded"), WITNESS)
# The line's length can move the layout: the kernel keeps copies of its
# command line in memblock, and a longer line may take one page more of a
# node (7.1, 1 GiB on two nodes). Where the two stock boots of the two
# lengths (LENGTH_REFERENCE) differ early or outside what their boots
# touched, the pairs across the lengths are not compared, and the padded
# boots are held to each other ("stock-padded", "sweep-padded") alone.
PADDED = ("stock-padded", "sweep-padded")
LENGTH_REFERENCE = ("stock", "stock-padded")
# A sweep pair may touch at most this many times the pages a reference pair touched.
TOUCHED_FACTOR = 2
UNKNOWN = "init_pages=bogus"
# The dump build: the derived config with SLAB_FREELIST_RANDOM off, which
# orders each slab's free objects from the random pool that the command
# line's text seeds, so that boots whose lines differ in a word would differ
# in every slab's words. Nothing of the memory init tests it.
DUMP_FLIPS = {"SLAB_FREELIST_RANDOM": "n"}
# The layouts of `dump --layouts`: (name, RAM, nodes (a count or each
# node's MiB), parameters every variant's boot adds). Reserved ranges
# (memmap=nn$ss) in DMA32, inside the deferred zone's first section and
# across its end; and nodes of unequal size, one of them holding a hole.
LAYOUTS = (("1G-reserved", 1 << 30, 1, "memmap=64M$0x10000000 memmap=3M$0x20100000"),
           ("4G-reserved", 4 << 30, 1, "memmap=3M$0x100100000 memmap=5M$0x108001000 memmap=64M$0x40000000"),
           ("1G+3G", 4 << 30, [1024, 3072], ""),
           ("3G+1G-reserved", 4 << 30, [3072, 1024], "memmap=7M$0x100300000"))
# `dump --gates`: each runtime gate of the series turned on, every variant
# booted with it (the kernel's own parameters; CONFIG_PAGE_POISONING is y).
GATES = (("1G-init_on_free", 1 << 30, 1, "init_on_free=1"), ("1G-page_poison", 1 << 30, 1, "page_poison=1"))


def same_boot(a, b):
    """Whether two variants boot alike: one command line, one -icount."""
    lines = dict(VARIANTS)
    return (lines[a], ICOUNTS.get(a)) == (lines[b], ICOUNTS.get(b))


def node_count(nodes):
    return nodes if isinstance(nodes, int) else len(nodes)


def summary(d):
    """A dump's figures, for its record."""
    return [{"node": z.nid, "zone": z.name, "start": z.start, "spanned": z.spanned, "present": z.present,
             "managed": z.managed, "nr_free_pages": z.free_pages, "pcp": z.pcp, "nr_free_cma": z.free_cma,
             "highatomic": z.highatomic, "nr_unaccepted": z.unaccepted, "holes": z.holes,
             "digest": f"{z.digest:#x}", "runs": len(z.runs), "pageblock_runs": len(z.blocks),
             "free_blocks": sum(len(p) for p in z.lists.values()),
             "nr_free": [z.nr_free.get(o, 0) for o in range(d.header["orders"])]} for z in d.zones]


def compare_record(a, b, names, same_line, early=None):
    """Two late dumps (and their early ones, when given) -> a dump_compare
    record, not yet judged: the exact comparison, and where it differs the
    pages in use that differ in their users' words and what is left when
    those are excused, and the comparison where no allocation touched."""
    exact = dumpdiff.compare(a, b, names)
    r = {"type": "dump_compare", "a": names[0], "b": names[1], "same_line": same_line, "exact": exact,
         "excused_pages": 0, "excused_difference": exact}
    if exact:
        excused = dumpdiff.user_word_pages(a, b)
        r["excused_pages"], r["excused_difference"] = len(excused), dumpdiff.compare(a, b, names, excused)
        r["untouched"], r["touched_pages"] = dumpdiff.compare_untouched(a, b, names, order=False)
        r["moved_entries"] = dumpdiff.moved_entries(a, b)
    if early:
        r["early_difference"] = dumpdiff.compare(*early, names)
    return r


def dump_records(build, mem, out, nodes=1, say=print, extra="", label=None, cpus=1):
    """The dumps at one size (nodes: a count, or each node's MiB; extra:
    parameters every boot adds; label: the layout's name) -> records: one
    `dump` a variant (its problems, [] when it holds together), one
    `dump_compare` a pair of PAIRS, judged (judge()), one `refusal` (what
    Linux said of UNKNOWN)."""
    records, dumps, early = [], {}, {}
    base = {"mem_bytes": mem, "nodes": nodes, "cpus": cpus, "key": build.info["key"]}
    if label:
        base.update(layout=label, params=extra)
    tag = label or f"{size_label(mem)}-{nodes}n" + (f"-{cpus}c" if cpus > 1 else "")
    where = label or f"{size_label(mem)}, {dumpboot.nodes_label(nodes, cpus)}"
    for name, params in VARIANTS:
        params = f"{params} {extra}".strip()
        log = os.path.join(out, f"serial-dump-{name}-{tag}.log")
        say(f"linux-src: dump at {where} ({name}: {params})")
        try:
            d, text = dumpboot.boot(build.files(), mem, log, params, nodes, cpus=cpus, icount=ICOUNTS.get(name))
        except dumpboot.DumpBootError as e:
            records.append(dict(base, type="error", message=f"the dump as {name}: {e}"))
            continue
        dumps[name] = d
        try:
            early[name] = dump.parse(text, early=True)
            early_problems = [f"the early dump: {m}" for m in dump.check(early[name])]
        except dump.DumpError as e:
            early_problems = [f"the early dump: {e}"]
        records.append(dict(base, type="dump", variant=name, params=params,
                            problems=dump.check(d) + early_problems, totalram=d.totalram,
                            nr_free_pages=d.free_pages, pgfree=d.events.get("pgfree"), zones=summary(d),
                            early_zones=summary(early[name]) if name in early else None,
                            log=os.path.basename(log)))
    for na, nb in PAIRS:
        if na in dumps and nb in dumps:
            both = (early[na], early[nb]) if na in early and nb in early else None
            records.append(dict(base, **compare_record(dumps[na], dumps[nb], (na, nb), same_boot(na, nb), both)))
    judge(records)
    log = os.path.join(out, f"serial-dump-unknown-{tag}.log")
    say(f"linux-src: {UNKNOWN} at {where}")
    try:
        dumpboot.boot(build.files(), mem, log, f"{UNKNOWN} {extra}".strip(), nodes, cpus=cpus)
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
    """One layout's dump_compare records, judged in place: each gets
    `difference` (None, or why the pair fails) and `allowed` (what was
    excused, counted, and the bound it was held to). Two boots of one
    command line must be the same word for word. Any other pair that
    differs passes only if all it differs in is (a) the words users write
    in pages that both boots hold in use (dumpdiff.user_word_pages()), or
    else (b) what lies in the pages either boot's allocations touched
    (dumpdiff.compare_untouched(), the order of the blocks both list
    counted apart: dumpdiff.moved_entries()); and for a pair with a sweep
    boot, no more such pages than the reference pairs (two stock boots,
    REFERENCES) show: (a) at most the most they excuse, (b) at most
    TOUCHED_FACTOR times the most they touch and move. A reference pair is held to (a) or (b)
    alone; its figures are the bounds, and are reported. A sweep pair over
    (a)'s bound passes where the WITNESS pair is the same word for word:
    sweep booted with its timing moved back leaves stock's map exactly, so
    the pages over the bound are the boot's timing, counted and reported.
    The WITNESS pair itself, a boot under another timing than any other
    sweep boot, is held to (a) or (b) alone, as a reference is, and sets
    no bound: every bound is held by the sweep boots of stock's timing.
    Where LENGTH_REFERENCE shows that the line's length moved the layout
    (its early dumps differ, or it differs outside what its boots
    touched), each pair across the two lengths is left uncompared, said so
    and marked `line_moved`: PADDED's own pair holds the longer line."""
    compares = [r for r in records if r["type"] == "dump_compare"]
    refs = [r for r in compares if (r["a"], r["b"]) in REFERENCES]
    witness = [r for r in compares if (r["a"], r["b"]) == WITNESS]
    timing = bool(witness) and witness[0]["exact"] is None
    excused_bound = max([r["excused_pages"] for r in refs if r["excused_difference"] is None] or [0])
    touched_bound = TOUCHED_FACTOR * max([r["touched_pages"] for r in refs if r.get("touched_pages")] or [0])
    moved_bound = TOUCHED_FACTOR * max([r["moved_entries"] for r in refs if r.get("moved_entries")] or [0])
    for r in compares:
        ref, r["allowed"] = r in refs, None
        alone = " (a reference)" if ref else " (the timing witness)" if r in witness else None
        r["excused_bound"], r["touched_bound"], r["moved_bound"] = (None, None, None) if alone else \
            (excused_bound, touched_bound, moved_bound)
        moved = r.get("moved_entries") or 0
        if r["exact"] is None or r["same_line"]:
            r["difference"] = r["exact"]
        elif r["excused_difference"] is None and (alone or r["excused_pages"] <= excused_bound):
            r["difference"] = None
            r["allowed"] = f"{r['excused_pages']} pages in use differ in the words their users write" + (
                alone or f", at most the {excused_bound} two stock boots show")
        elif r.get("untouched", "") is None and (alone or (r["touched_pages"] <= touched_bound and
                                                           moved <= moved_bound)):
            r["difference"] = None
            r["allowed"] = f"the same outside the {r['touched_pages']} pages either boot's allocations touched" + (
                f", {moved} list entries both list moved" if moved else "") + (
                alone or f", at most the {touched_bound} pages and {moved_bound} entries "
                         f"({TOUCHED_FACTOR} times what two stock boots show)")
        elif r["excused_difference"] is None and timing:
            r["difference"] = None
            r["allowed"] = (f"{r['excused_pages']} pages in use differ in the words their users write, more than "
                            f"the {excused_bound} two stock boots show, and {WITNESS[1]} leaves {WITNESS[0]}'s map "
                            "word for word: the boot's timing")
        elif r["excused_difference"] is None:
            r["difference"] = (f"{r['excused_pages']} pages in use differ in the words their users write, more "
                               f"than the {excused_bound} two stock boots show; {r['exact']}")
        elif r.get("untouched", "") is None and moved > moved_bound:
            r["difference"] = (f"{moved} list entries both boots list moved, more than the {moved_bound} allowed "
                               f"({TOUCHED_FACTOR} times what two stock boots show); {r['exact']}")
        elif r.get("untouched", "") is None:
            r["difference"] = (f"{r['touched_pages']} pages touched, more than the {touched_bound} allowed "
                               f"({TOUCHED_FACTOR} times what two stock boots touch); {r['exact']}")
        else:
            r["difference"] = r.get("untouched") or r["excused_difference"]
    length = next((r for r in compares if (r["a"], r["b"]) == LENGTH_REFERENCE), None)
    moved = length and (length.get("early_difference") or length["difference"])
    for r in compares if moved else ():
        if (r["a"] in PADDED) != (r["b"] in PADDED):
            r["difference"], r["line_moved"] = None, moved
            r["allowed"] = (f"not compared: the line's length moves the layout, as two stock boots show "
                            f"({moved}); {PADDED[0]} and {PADDED[1]} are held to each other")


def _said(r):
    """A record in words, for the run's output."""
    if r["type"] == "dump":
        return f"{r['variant']}: " + ("; ".join(r["problems"]) or "holds together")
    if r["type"] == "refusal":
        return f"{r['params']}: " + (r["message"] or "not refused")
    if r["type"] == "error":
        return r["message"]
    early = ("" if r.get("line_moved") else "; the early dumps differ: " + r["early_difference"]
             if r.get("early_difference") else "; the early dumps the same word for word"
             if "early_difference" in r else "")
    return f"{r['a']} and {r['b']}: " + (r["difference"] or r["allowed"] or "the same word for word") + early


def failed(r):
    return r["type"] == "error" or bool(r.get("problems")) or bool(r.get("difference")) or \
        (bool(r.get("early_difference")) and not r.get("line_moved")) or \
        (r["type"] == "refusal" and not r["refused"])


def named(names):
    """A comma list of names of LAYOUTS and GATES -> those entries, in the
    list's order; an unknown name raises ValueError naming the choices."""
    known = {e[0]: e for e in LAYOUTS + GATES}
    wanted = [n for n in names.split(",") if n]
    for n in wanted:
        if n not in known:
            raise ValueError(f"no layout or gate {n!r}: choose from {', '.join(known)}")
    if not wanted:
        raise ValueError("an empty list: name a layout or gate of " + ", ".join(known))
    return tuple(known[n] for n in wanted)


def run(b, out, sizes, node_counts, layouts=False, say=print, cpus=(1,), gates=False, only=None):
    """`linux-src dump`: the dumps of build `b` at each size, node count and
    vCPU count, and each of LAYOUTS and GATES too with `layouts` and
    `gates`, into out/dumps.jsonl -> 0 when every dump holds together, every
    pair passes judge() and the unknown value was refused; else 1, each
    failure said. `only` (entries of LAYOUTS and GATES, from named()) boots
    those alone, to replay one."""
    bad = 0
    with open(os.path.join(out, "dumps.jsonl"), "w") as f:
        f.write(json.dumps(dict(b.info, type="build")) + "\n")
        cases = [] if only else [(m, n, c, "", None) for c in cpus for n in node_counts for m in sizes]
        cases += [(mem, nodes, 1, extra, name) for name, mem, nodes, extra in
                  only or (LAYOUTS if layouts else ()) + (GATES if gates else ())]
        for mem, nodes, ncpu, extra, label in cases:
            records = dump_records(b, mem, out, nodes, say=say, **({"extra": extra, "label": label} if label else {}),
                                   **({"cpus": ncpu} if ncpu > 1 else {}))
            for r in records:
                f.write(json.dumps(r) + "\n")
                f.flush()
                bad += failed(r)
                where = label or f"{size_label(mem)}, {dumpboot.nodes_label(nodes, ncpu)}"
                say(f"linux-src: {where}: {_said(r)}")
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
