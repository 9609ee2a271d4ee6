# SPDX-License-Identifier: MIT
"""Xen's own heap code on the host: the real init_heap_pages() of a patched
tree's xen/common/page_alloc.c and every function and variable of that file
it reaches, compiled into a user-space program with the stand-ins of
hosted/xenheap/xen_stand.h for the rest of Xen (`xen-src heap-test`,
docs/testing-xen-heap.md).

Nothing of Xen is kept in this repository: at build time the tree's
page_alloc.c is preprocessed with the stand-in header forced in and its
own #includes answered by empty files, and the top-level definitions that
init_heap_pages() reaches are cut out of the preprocessed text. A name the
real code needs that the stand-ins lack fails the compile or the link by
name (-Werror=implicit-function-declaration, no weak definitions).

The tree is Debian's Xen source with the release's series applied
(harness/real/xen/source.py), unpacked once into build/xen-src/tree-*, or
any tree given by path."""
import os
import re
import shutil
import subprocess

from harness import ROOT
from harness.real.xen import source
from harness.real.xen.host.cut import items

HOSTED = os.path.join(ROOT, "hosted", "xenheap")
# The tester's own files, beside the side (side.c) built from each tree.
TESTER = [os.path.join(HOSTED, f) for f in ("tester.c", "sequence.c", "layout.c", "churn.c", "compare.c", "stand.c")]
OUT = os.path.join(ROOT, "build", "xenheap")
PAGE_ALLOC = os.path.join("xen", "common", "page_alloc.c")
# Where the tester enters the real code (hand-over, and the allocations of
# its concurrent phase), and the names the stand-ins answer although
# page_alloc.c defines them (they reach into xenheap allocation).
ROOTS = ("init_heap_pages", "alloc_heap_pages")
# A tree with heap-init-smp (patches/xen/staging-parallel/): what the
# tester calls of it besides ROOTS, end_boot_allocator()'s hand-over and
# the one after SMP bring-up, and end_boot_allocator()'s last step.
SMP_ROOTS = ("hand_over_boot_region", "init_deferred_heap", "hand_back_for_early_allocations")
# The measuring series' heap-init= option (not heap-init-smp).
HEAP_INIT = re.compile(r'"heap-init"')
STAND_INS = {"alloc_xenheap_pages"}
# Xen's default MAX_ORDER (xen/include/xen/mm.h; x86 sets 18, which the
# tester's machines reach no more than 20) and two small ones, so that
# small layouts reach chunks of MAX_ORDER and ranges past them.
MAX_ORDERS = (20, 4, 2)
CFLAGS = ["-O1", "-g", "-std=gnu11", "-Wall", "-Wno-unused-function", "-Wno-unused-variable", "-Wno-address",
          "-Werror=implicit-function-declaration", "-Werror=implicit-int", "-Werror=int-conversion",
          "-Werror=incompatible-pointer-types", "-Werror=return-type", "-fno-strict-aliasing"]


class HostHeapError(Exception):
    """A tree the tester cannot be built from, with what went wrong."""


def patched_tree(release, say=print, patches=None):
    """Debian's source of `release` with `patches` (default: its series)
    applied, unpacked once into build/xen-src/tree-<release>-<key>/ ->
    the tree's path (harness/real/source/kernel.py). SourceError when the
    source cannot be had. One process fetches and unpacks at a time (make
    test's hosted stage runs two); another waits and reuses what it made."""
    return source.XEN.patched_tree(release, patches, say)


def check_tree(tree, heap_init=True):
    """The tree's page_alloc.c, or HostHeapError naming what is missing
    (the heap-init= option too, unless `heap_init` is false)."""
    path = os.path.join(tree, PAGE_ALLOC)
    if not os.path.isfile(path):
        raise HostHeapError(f"{tree} is not a Xen tree: it has no {PAGE_ALLOC}")
    with open(path, errors="replace") as f:
        text = f.read()
    for name in ROOTS + ("free_heap_pages", "init_node_heap"):
        if not re.search(rf"\b{name}\s*\(", text):
            raise HostHeapError(f"{path} defines no {name}(): not a page_alloc.c the tester knows")
    if heap_init and not HEAP_INIT.search(text):
        raise HostHeapError(f"{path} has no heap-init= option: the series (patches/xen/) is not applied")
    return path


# Where x86's asm/mm.h is (4.17 on), and how its need_scrub bit reads in
# each count_info layout xen_stand.h knows (XH_PGC_LAYOUT).
ARCH_MM = (os.path.join("xen", "arch", "x86", "include", "asm", "mm.h"),
           os.path.join("xen", "include", "asm-x86", "mm.h"))
PGC_LAYOUTS = {1: r"#define\s+_PGC_need_scrub\s+_PGC_allocated\b", 2: r"#define\s+_PGC_need_scrub\s+PG_shift\(7\)"}


def tree_defines(tree):
    """What xen_stand.h is told of the tree: its count_info layout, and
    whether page_alloc.c keeps node_avail_pages[] (staging), has the
    heap-init= option and hands over after SMP bring-up -> ["X=V", ...].
    HostHeapError names the header whose layout the stand-ins lack."""
    path = next((os.path.join(tree, p) for p in ARCH_MM if os.path.isfile(os.path.join(tree, p))), None)
    if path is None:
        raise HostHeapError(f"{tree} has no x86 asm/mm.h ({' or '.join(ARCH_MM)}): its count_info bits are unknown")
    with open(path, errors="replace") as f:
        header = f.read()
    layout = [k for k, pattern in PGC_LAYOUTS.items() if re.search(pattern, header)]
    if len(layout) != 1:
        raise HostHeapError(f"{path}: _PGC_need_scrub is defined in none of the count_info layouts the "
                            f"stand-ins know (hosted/xenheap/xen_stand.h, XH_PGC_LAYOUT)")
    with open(os.path.join(tree, PAGE_ALLOC), errors="replace") as f:
        text = f.read()
    return ([f"XH_PGC_LAYOUT={layout[0]}"] + (["XH_NODE_AVAIL=1"] if re.search(
        r"^static unsigned long node_avail_pages\[", text, re.M) else []) +
        (["XH_HEAP_INIT=1"] if HEAP_INIT.search(text) else []) +
        (["XH_HEAP_INIT_SMP=1"] if re.search(rf"\b{SMP_ROOTS[1]}\s*\(", text) else []))


# The M2P's interface as the tree's own headers give it (0002 of the
# proposal series adds arch_m2p_ready()): the x86 header first, then the
# common default, as xen/mm.h includes them.
M2P_NAMES = ("arch_m2p_ready", "set_gpfn_from_mfn")
XEN_MM = os.path.join("xen", "include", "xen", "mm.h")
M2P_HEADER = "xh_arch_m2p.h"


def _uncommented(text):
    """C text with its comments blanked, line breaks kept."""
    return re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def header_items(text, names):
    """What a header says of `names`: each #define of one (continuation
    lines and all), each #ifndef block around one, and each declaration or
    definition of one as a function, with those of the functions these
    call that the header declares -> [text], in the header's order."""
    text = _uncommented(text)
    found = {}
    for name in names:
        for m in re.finditer(rf"^[ \t]*#[ \t]*define[ \t]+{name}\b(?:.*\\\n)*.*$", text, re.M):
            found[m.start()] = (m.end(), m.group(0))
        for m in re.finditer(rf"^[ \t]*#[ \t]*ifndef[ \t]+{name}\b.*?^[ \t]*#[ \t]*endif[^\n]*", text, re.M | re.S):
            found[m.start()] = (m.end(), m.group(0))
    todo, done = list(names), set()
    while todo:
        name = todo.pop()
        done.add(name)
        for m in re.finditer(rf"^(?:static[ \t]+inline[ \t]+)?[A-Za-z_][\w \t*]*\b{name}[ \t]*\(", text, re.M):
            end, depth, i = None, 0, m.end()
            while i < len(text) and end is None:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                if (text[i] == ";" and depth == 0) or (text[i] == "}" and depth == 0):
                    end = i + 1
                i += 1
            item = text[m.start():end]
            found[m.start()] = (end, item)
            if "{" in item:
                todo += [n for n in re.findall(r"\b(\w+)[ \t]*\(", item[item.index("{"):])
                         if n not in done and n not in todo]
    spans = sorted(found.items())
    return [item for start, (end, item) in spans
            if not any(s < start and end <= e for s, (e, _) in spans)]


def m2p_header(tree, folder):
    """The tree's own lines of the M2P's interface (M2P_NAMES) from its x86
    asm/mm.h and xen/mm.h, written into folder/M2P_HEADER -> its path."""
    parts = []
    for rel in [p for p in ARCH_MM if os.path.isfile(os.path.join(tree, p))][:1] + [XEN_MM]:
        path = os.path.join(tree, rel)
        if os.path.isfile(path):
            with open(path, errors="replace") as f:
                parts += [f"/* from {rel} */"] + header_items(f.read(), M2P_NAMES)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, M2P_HEADER)
    with open(target, "w") as f:
        f.write("/* Written at build time from the tree's headers: not kept in the repository. */\n"
                + "\n".join(parts) + "\n")
    return target


def extract(tree, max_order, out, defines=(), heap_init=True):
    """The tree's page_alloc.c, preprocessed for MAX_ORDER `max_order` (and
    -D`defines`), cut to what ROOTS reach -> the path of the C file written
    into `out`."""
    path = check_tree(tree, heap_init)
    inc = os.path.join(out, "include")
    shutil.rmtree(inc, ignore_errors=True)
    with open(path, errors="replace") as f:
        for name in re.findall(r"^\s*#\s*include\s*<([^>]+)>", f.read(), re.M):
            os.makedirs(os.path.dirname(os.path.join(inc, name)), exist_ok=True)
            open(os.path.join(inc, name), "w").close()
    m2p = m2p_header(tree, out)
    tree_defs = tree_defines(tree)
    cmd = ["gcc", "-E", f"-DXH_MAX_ORDER={max_order}", *(f"-D{d}" for d in list(defines) + tree_defs),
           "-I", inc, "-I", HOSTED,
           "-include", os.path.join(HOSTED, "xen_stand.h"), "-include", m2p, path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise HostHeapError(f"preprocessing {path} failed:\n{r.stderr.strip()}")
    found = items(r.stdout, path)
    by_name = {}
    for i, (_, _, defined, _) in enumerate(found):
        for n in defined:
            by_name.setdefault(n, []).append(i)
    roots = ROOTS + (SMP_ROOTS if "XH_HEAP_INIT_SMP=1" in tree_defs else ())
    missing = [n for n in roots if n not in by_name]
    if missing:
        raise HostHeapError(f"{path} defines no {', '.join(missing)}")
    keep, todo = set(), list(roots)
    while todo:
        n = todo.pop()
        for i in by_name.get(n, []):
            if i not in keep and not (found[i][2] & STAND_INS):
                keep.add(i)
                todo.extend(found[i][3])
    target = os.path.join(out, f"page_alloc-{max_order}{''.join('-' + d.lower() for d in defines)}.c")
    with open(target, "w") as f:
        f.write(f"/* Cut at build time from {path} (MAX_ORDER {max_order}): not kept in the repository. */\n")
        ahead = _used_before(found, keep)
        for i in sorted(keep):
            for j in ahead.get(i, []):
                f.write(f'# {found[j][0]} "{path}"\n{found[j][1][:found[j][1].index("{")].rstrip()};\n')
            f.write(f'# {found[i][0]} "{path}"\n{found[i][1]}\n')
    return target


def _used_before(found, keep):
    """{item: [functions it uses that are defined further down]}: each gets
    a prototype before its first user, as a header would have given it
    (4.17's alloc_heap_pages() calls scrub_one_page(), defined at the end)."""
    where = {}
    for i in keep:
        text = found[i][1]
        if "{" in text and "(" in text[:text.index("{")] and "=" not in text[:text.index("(")]:
            for n in found[i][2]:
                where.setdefault(n, i)
    ahead = {}
    for name, at in where.items():
        first = min((i for i in keep if i < at and name in found[i][3]), default=None)
        if first is not None:
            ahead.setdefault(first, []).append(at)
    return ahead


def globals_of(cut):
    """The names the cut file defines outside `static` (first_valid_mfn up
    to 4.20, scrub_one_page): a side renames them, so that two trees link."""
    with open(cut) as f:
        text = f.read()
    names = set()
    for _, item, defined, _ in items(text, PAGE_ALLOC):
        head = item.lstrip()
        if defined and not re.match(r"(static|extern|typedef|struct|union|enum)\b", head):
            names |= defined
    return sorted(names)


def build(tree, max_order, out=OUT, stock=None, scrub_debug=False):
    """The tester built against `tree` for MAX_ORDER `max_order` (with
    CONFIG_SCRUB_DEBUG where `scrub_debug`) -> binary path. With `stock`
    (the same Xen unpatched), the stock-against-series build: the stock
    tree's page_alloc.c on one side, `tree`'s (the proposal series applied,
    no heap-init=) on the other, held to be equal."""
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    debug = ["XH_SCRUB_DEBUG"] if scrub_debug else []
    flags = CFLAGS + [f"-DXH_MAX_ORDER={max_order}", "-I", HOSTED, "-pthread"] + [f"-D{d}" for d in debug]
    name = f"{max_order}{'-scrub-debug' if scrub_debug else ''}"
    if stock is None:
        cut = extract(tree, max_order, out, debug)
        binary = os.path.join(out, f"xenheap-test-{name}")
        _gcc(flags + [f"-D{d}" for d in tree_defines(tree)] + [
            f'-DXH_EXTRACT="{cut}"', f'-DXH_ARCH_M2P="{os.path.join(out, M2P_HEADER)}"',
            os.path.join(HOSTED, "side.c"), *TESTER, "-o", binary], tree)
        return binary
    ours, theirs = tree_defines(tree), tree_defines(stock)
    if "XH_HEAP_INIT_SMP=1" in ours:
        out = os.path.join(out, "smp")       # beside the proposal series' own build, not over it
    if [d for d in ours if "HEAP_INIT" not in d] != [d for d in theirs if "HEAP_INIT" not in d]:
        raise HostHeapError(f"{stock} and {tree} are not the same Xen: the stand-ins see {theirs} and {ours}")
    objects = []
    for side, t in enumerate((stock, tree)):
        folder = os.path.join(out, ("stock", "series")[side])
        cut = extract(t, max_order, folder, debug, heap_init=False)
        objects.append(os.path.join(folder, f"side-{name}.o"))
        _gcc(flags + [f"-D{d}" for d in tree_defines(t)] + [f"-D{n}={n}_{side}" for n in globals_of(cut)] + [
            "-DXH_PAIR", f"-DXH_SIDE={side}", f'-DXH_EXTRACT="{cut}"',
            f'-DXH_ARCH_M2P="{os.path.join(folder, M2P_HEADER)}"', "-c", os.path.join(HOSTED, "side.c"),
            "-o", objects[-1]], t)
    binary = os.path.join(out, f"xenheap-stock-test-{name}")
    _gcc(flags + [f"-D{d}" for d in ours] + ["-DXH_PAIR", *TESTER] + objects +
         ["-o", binary], tree)
    return binary


def _gcc(args, tree):
    """gcc `args`; HostHeapError naming the symbols the stand-ins lack."""
    r = subprocess.run(["gcc"] + args, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    if r.returncode != 0:
        said = r.stderr.strip()
        names = sorted(set(re.findall(r"implicit declaration of function '(\w+)'|undefined reference to `(\w+)'"
                                      r"|'(\w+)' undeclared", said)))
        named = ", ".join(next(x for x in n if x) for n in names)
        twice = ", ".join(sorted(set(re.findall(r"multiple definition of `(\w+)'", said))))
        raise HostHeapError(f"the tester does not build against {tree}"
                            f"{': the stand-ins lack ' + named if named else ''}"
                            f"{': both trees define ' + twice if twice else ''}\n{said[-4000:]}")


def run(tree, sequences, seed=1, orders=MAX_ORDERS, page=False, say=print, jobs=2, out=OUT, stock=None,
        scrub_debug=(False, True), threads=0):
    """The tester built against `tree` (and `stock`, see build()) for each
    MAX_ORDER, without and with CONFIG_SCRUB_DEBUG, `sequences` sequences
    split across the builds from `seed` on -> (every build passed,
    [((max_order, scrub_debug), passed, seconds, output)]). threads: the
    boot's hand-over on that many CPUs against one (the tester's
    --threads), 0 for one. HostHeapError when it does not build."""
    import concurrent.futures
    import time
    builds = [(o, d) for o in orders for d in scrub_debug]
    binaries = {b: build(tree, b[0], out, stock, b[1]) for b in builds}
    share = -(-sequences // len(builds))

    def one(i, b):
        cmd = [binaries[b], "--seed", str(seed + i * share), "--sequences", str(share)] + (["--page"] if page else [])
        cmd += ["--threads", str(threads)] if threads else []
        t0 = time.monotonic()
        r = subprocess.run(cmd, capture_output=True, text=True)
        took = time.monotonic() - t0
        said = (r.stdout + r.stderr).strip()
        if r.returncode not in (0, 1):
            said += f"\n(the tester exited {r.returncode})"
        return b, r.returncode == 0, took, said
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(lambda a: one(*a), enumerate(builds)))
    return all(ok for _, ok, _, _ in results), results
