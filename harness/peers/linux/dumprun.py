# SPDX-License-Identifier: MIT
"""`linux-src --dump`: the source build with its series booted at each size
for its memory map (harness/peers/linux/dumpboot.py): twice as
`init_pages=stock`, which must give the same dump word for word, once as
`init_pages=sweep` and once with no init_pages (the default), which must
give the same but for the words users write in pages with a reference held
(dump.compare(), user_words); on more than one node sweep once more with a
padded command line, each sweep boot held to each stock one; each dump
held to itself (dump.check()); and once with an init_pages value no kernel
knows, which Linux must refuse with its own message. `linux-src --compare
A B`: two serial logs' dumps compared."""
import os

from harness.common import size_label
from harness.peers.linux import dump, dumpboot

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


def pairs(nodes):
    """The (a, b) variant pairs a size's dumps are compared in."""
    if nodes == 1:
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


def dump_records(build, mem, out, nodes=1, say=print):
    """The dumps at one size -> records: one `dump` a variant (its
    problems, [] when it holds together), one `dump_compare` (the first
    difference, or None), one `refusal` (what Linux said of UNKNOWN)."""
    records, dumps = [], {}
    base = {"mem_bytes": mem, "nodes": nodes, "key": build.info["key"]}
    for name, params in VARIANTS + ((PADDED,) if nodes > 1 else ()):
        log = os.path.join(out, f"serial-dump-{name}-{size_label(mem)}-{nodes}n.log")
        say(f"linux-src: dump at {size_label(mem)} ({name}: {params})")
        try:
            d, _ = dumpboot.boot(build.files(), mem, log, params, nodes)
        except dumpboot.DumpBootError as e:
            records.append(dict(base, type="error", message=f"the dump as {name}: {e}"))
            continue
        dumps[name] = d
        records.append(dict(base, type="dump", variant=name, params=params, problems=dump.check(d),
                            totalram=d.totalram, nr_free_pages=d.free_pages, zones=summary(d),
                            log=os.path.basename(log)))
    lines = dict(VARIANTS + (PADDED,))
    for na, nb in pairs(nodes):
        if na in dumps and nb in dumps:
            a, b = dumps[na], dumps[nb]
            exact, loose = dump.compare(a, b, (na, nb)), dump.compare(a, b, (na, nb), user_words=False)
            same_line = lines[na] == lines[nb]
            records.append(dict(base, type="dump_compare", a=na, b=nb, exact=exact, user_words_left_out=loose,
                                user_pages=dump.user_differences(a, b),
                                difference=exact if same_line else loose))
    log = os.path.join(out, f"serial-dump-unknown-{size_label(mem)}-{nodes}n.log")
    say(f"linux-src: {UNKNOWN} at {size_label(mem)}")
    try:
        dumpboot.boot(build.files(), mem, log, UNKNOWN, nodes)
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


def compare_logs(a, b, say=print):
    """`--compare A B` -> 0 when both dumps hold together and are the same,
    1 when they differ or one does not hold (each said), 2 when a log has
    no dump that can be read."""
    dumps = []
    for path in (a, b):
        try:
            with open(path, errors="replace") as f:
                dumps.append(dump.parse(f.read()))
        except (OSError, dump.DumpError) as e:
            say(f"linux-src: {path}: {e}")
            return 2
    status = 0
    for path, d in zip((a, b), dumps):
        for problem in dump.check(d):
            say(f"linux-src: {path}: {problem}")
            status = 1
    diff = dump.compare(*dumps, (os.path.basename(a), os.path.basename(b)))
    if diff:
        say(f"linux-src: the dumps differ: {diff}")
        return 1
    say(f"linux-src: the dumps are the same ({sum(len(z.runs) for z in dumps[0].zones)} runs, "
        f"{sum(len(p) for z in dumps[0].zones for p in z.lists.values())} free blocks)")
    return status
