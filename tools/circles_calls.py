# SPDX-License-Identifier: MIT
"""The calls half of tools/circles.py's check: which file defines each
function and global, and which files use it, read with nm from the objects
the build links (build/ under the root): exact, as the linker sees it,
macros, inline functions and assembly included, where a reading of the
sources would guess. Two programs are read: the kernel (every object of
kernel/, mm/, bench/ and boot/ in build/), and the hosted runner's own
files (hosted/, in build/hosted/p/). File A uses file B when A's object
leaves a symbol undefined that B's object defines, in the same program. A
circle is two files that each use the other. The runner's calls between
hosted/ and the kernel's code it links are left out: its platform layer
stands in for kernel/ (the console, panic, the CPUs), which that code
calls down into, and it runs that code, as tests/unit/host_support.c does
for the unit tests. An object older than its source is a problem, and so
is a program with no objects: build first (make all hosted)."""
import os
import subprocess

from tools.circles_graph import components

# The programs whose calls are read: (name, objects' folder under root,
# source folders); the object of source f is <objects' folder>/f less its
# suffix, plus .o, as the Makefile names it.
CALL_PROGRAMS = (
    ("the kernel", "build", ("kernel", "mm", "bench", "boot")),
    ("the hosted runner", "build/hosted/p", ("hosted",)),
)


def call_objects(root, objdir, folders):
    """([(source, object)], [problem]): every .c and .asm under folders
    that has an object in objdir, paths from root; a problem for each
    object older than its source."""
    out, problems = [], []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith((".c", ".asm")):
                    continue
                src = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                obj = f"{objdir}/{os.path.splitext(src)[0]}.o"
                if not os.path.isfile(os.path.join(root, obj)):
                    continue
                if os.path.getmtime(os.path.join(root, obj)) < os.path.getmtime(os.path.join(root, src)):
                    problems.append(f"{obj} is older than {src}: make all hosted, then check again")
                out.append((src, obj))
    return out, problems


def call_symbols(root, pairs):
    """(defines, uses): {symbol: source} of every global symbol an object
    defines (a strong one before a weak one), {source: set of symbols} its
    object leaves undefined."""
    obj_src = {obj: src for src, obj in pairs}
    out = subprocess.run(["nm", "-A", "--no-sort"] + [obj for _, obj in pairs], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    defines, weak, uses = {}, {}, {}
    for line in out.splitlines():
        obj, _, rest = line.partition(":")
        fields = rest.split()
        src = obj_src[obj]
        if len(fields) == 2 and fields[0] == "U":
            uses.setdefault(src, set()).add(fields[1])
        elif len(fields) == 3 and fields[1] in "WV":
            weak.setdefault(fields[2], src)
        elif len(fields) == 3 and fields[1].isupper() and fields[1] not in "UN":
            defines.setdefault(fields[2], src)
    for sym, src in weak.items():
        defines.setdefault(sym, src)
    return defines, uses


def call_graph(root, programs=CALL_PROGRAMS):
    """(edges, problems): edges as {(file A, file B): sorted [symbol]}, the
    symbols of B that A uses, over every program; problems as
    call_objects() gives them, and one for a program with no objects."""
    edges, problems = {}, []
    for name, objdir, folders in programs:
        pairs, stale = call_objects(root, objdir, folders)
        problems += stale
        if not pairs:
            problems.append(f"no objects of {name} in {objdir}/: make all hosted, then check again")
            continue
        defines, uses = call_symbols(root, pairs)
        for a, syms in uses.items():
            for sym in syms:
                b = defines.get(sym)
                if b is not None and b != a:
                    edges.setdefault((a, b), set()).add(sym)
    return {k: sorted(v) for k, v in edges.items()}, problems


def call_circles(root, programs=CALL_PROGRAMS):
    """(circles, problems): circles as sorted [(file A, file B, [why])] for
    every two files that use each other, why naming the symbols each way;
    problems as call_graph() gives them."""
    edges, problems = call_graph(root, programs)
    circles = []
    for (a, b), syms in sorted(edges.items()):
        if a < b and (b, a) in edges:
            circles.append((a, b, [f"{a} uses {', '.join(syms)}", f"{b} uses {', '.join(edges[(b, a)])}"]))
    return circles, problems


def call_loops(root, programs=CALL_PROGRAMS):
    """For information: [[file, ...]] every group of three files or more
    that reach each other through calls and globals."""
    graph = {}
    for a, b in call_graph(root, programs)[0]:
        graph.setdefault(a, set()).add(b)
    return [c for c in components(graph) if len(c) > 2]
