#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Include and call circles in the C code and import circles in the harness.

C: the files are every .c and .h under C_FOLDERS. A module is a .c file
together with the headers of its own name in its folder (foo.c, foo.h and
foo_priv.h); a header with no .c of its name is a module by itself
(compiler.h, layout.h), and so is a .c file with no header of its name
(main.c, smp_boot.c). Module A includes module B when a file of A has
`#include "f"` for a file f of B, in any branch of an #if (a dependency of
one build is a dependency); "f" is read from the top of the repository,
as the build's -I. does, else from the including file's folder. A circle
is two modules that each include the other's header.

Python: the modules are every .py file of the package `python3 -m
harness` runs, its subpackages included (harness/qemu/runner.py is
`qemu.runner`, harness/qemu/__init__.py is `qemu`, harness/__init__.py is
`harness`). Module A imports B when A says `import harness.B`, `from
harness import B` or `from harness.B import ...` (B dotted or not)
anywhere in the file, inside a function too: an import put off until a
call is still a dependency. A circle is any loop of imports, however long:
the harness's imports must form a tree. So must its rooms: a subpackage
(or a module at the top) imports another when any module of the first
imports any of the second, and no two rooms may reach each other.

Calls: which file defines each function and global, and which files use
it, read with nm from the objects the build links (build/ under ROOT):
exact, as the linker sees it, macros, inline functions and assembly
included, where a reading of the sources would guess. Two programs are
read: the kernel (every object of kernel/, mm/, bench/ and boot/ in
build/), and the hosted runner's own files (hosted/, in build/hosted/p/).
File A uses file B when A's object leaves a symbol undefined that B's
object defines, in the same program. A circle is two files that each use
the other; a longer loop is listed by --loops, as for includes. The
runner's calls between hosted/ and the kernel's code it links are left
out: its platform layer stands in for kernel/ (the console, panic, the
CPUs), which that code calls down into, and it runs that code, as
tests/unit/host_support.c does for the unit tests. An object older than
its source fails the check, and so does a program with no objects: build
first (make all hosted).

Usage: tools/circles.py [--loops] [--no-calls] [ROOT] -> prints each
circle and exits 1 when there is one. --loops also lists, for
information, the C modules and files that reach each other only through
longer loops (three or more), which are not circles by the definitions
above. --no-calls reads the sources alone, for a tree without a build.
"""
import ast
import os
import re
import subprocess
import sys

C_FOLDERS = ("kernel", "mm", "boot", "bench", "hosted", "tests/unit", "tests/fuzz")
PACKAGE = "harness"
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


# A comment, or a string or character literal that may hold "//" or "/*".
TOKENS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def _blank_comments(text):
    """text with its comments blanked, line numbers kept."""
    def blank(m):
        t = m.group(0)
        return t if t[0] in "\"'" else re.sub(r"[^\n]", " ", t)
    return TOKENS.sub(blank, text)


def c_files(root, folders=C_FOLDERS):
    """Paths (from root, '/'-separated) of every .c and .h under folders."""
    out = []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return out


def c_module(path, files):
    """The module a C file belongs to, named by its path without the suffix."""
    stem = path[:-2]
    if path.endswith("_priv.h") and stem[:-5] + ".c" in files:
        return stem[:-5]
    return stem


def c_includes(root, files):
    """[(file, line, included file)] of every quoted include among files,
    and [(file, line, name)] of those that name no file."""
    found, missing = [], []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = _blank_comments(fh.read())
        for m in INCLUDE.finditer(text):
            name, line = m.group(1), text.count("\n", 0, m.start()) + 1
            local = os.path.normpath(os.path.join(os.path.dirname(f), name)).replace(os.sep, "/")
            if os.path.isfile(os.path.join(root, name)):
                target = os.path.normpath(name).replace(os.sep, "/")
            elif os.path.isfile(os.path.join(root, local)):
                target = local
            else:
                missing.append((f, line, name))
                continue
            found.append((f, line, target))
    return found, missing


def c_graph(root, folders=C_FOLDERS):
    """(edges, missing): edges as {(module A, module B): [why]}, why naming
    each include line by which A includes B; missing as [(file, line, name)]
    for includes that name no file."""
    files = c_files(root, folders)
    fileset = set(files)
    found, missing = c_includes(root, files)
    edges = {}
    for f, line, target in found:
        a, b = c_module(f, fileset), c_module(target, fileset)
        if a != b:
            edges.setdefault((a, b), []).append(f"{f}:{line} includes {target}")
    return edges, missing


def c_circles(root, folders=C_FOLDERS):
    """(circles, missing): circles as sorted [(module A, module B, [why])],
    why naming each include line that makes the pair; missing as
    c_graph() gives it."""
    why, missing = c_graph(root, folders)
    circles = []
    for (a, b), lines in sorted(why.items()):
        if a < b and (b, a) in why:
            circles.append((a, b, lines + why[(b, a)]))
    return circles, missing


def _components(graph):
    """Strongly connected components of graph ({node: set}) with more than
    one node, each sorted, in sorted order."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(out)


def _shortest_loop(graph, comp):
    """A shortest loop through comp's first node inside comp: [n0, ..., n0]."""
    start, inside = comp[0], set(comp)
    prev, seen, frontier = {}, {start}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return path[::-1] + [start]
                if w in inside and w not in seen:
                    seen.add(w)
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    raise ValueError(f"no loop through {start}")


def c_loops(root, folders=C_FOLDERS):
    """For information: [[module, ...]] every group of three C modules or
    more that reach each other through includes (a strongly connected
    group), which the pair rule leaves alone unless two of them include
    each other."""
    graph = {}
    for a, b in c_graph(root, folders)[0]:
        graph.setdefault(a, set()).add(b)
    return [c for c in _components(graph) if len(c) > 2]


def py_modules(root, package=PACKAGE):
    """{module: path} for every module of package, its subpackages included:
    'qemu.runner' for harness/qemu/runner.py, 'qemu' for
    harness/qemu/__init__.py, package itself for harness/__init__.py."""
    folder = os.path.join(root, package)
    mods = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
        rel = os.path.relpath(dirpath, folder)
        prefix = [] if rel == "." else rel.split(os.sep)
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            parts = prefix + ([] if name == "__init__.py" else [name[:-3]])
            mods[".".join(parts) or package] = os.path.join(dirpath, name)
    return mods


def _target(mods, package, parts):
    """The module an import of harness.<parts> reaches: the longest prefix
    of parts that names a module, else the package itself."""
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if name in mods:
            return name
    return package


def py_imports(root, package=PACKAGE):
    """{module: {imported module: [line, ...]}} for package's modules; {}
    when root has no such package."""
    if not os.path.isdir(os.path.join(root, package)):
        return {}
    mods = py_modules(root, package)
    graph = {}
    for mod, path in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
        edges = graph.setdefault(mod, {})

        def add(target, line):
            if target != mod:
                edges.setdefault(target, []).append(line)

        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    parts = a.name.split(".")
                    if parts[0] == package:
                        add(_target(mods, package, parts[1:]), node.lineno)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                parts = node.module.split(".")
                if parts[0] != package:
                    continue
                for a in node.names:
                    add(_target(mods, package, parts[1:] + [a.name]), node.lineno)
    return graph


def _path_of(package, mod):
    """The file of a module, as a reader finds it: harness/qemu/runner.py."""
    if mod == package:
        return f"{package}/__init__.py"
    return f"{package}/{mod.replace('.', '/')}.py"


def _circles(graph, why_of):
    plain = {m: set(e) for m, e in graph.items()}
    out = []
    for comp in _components(plain):
        loop = _shortest_loop(plain, comp)
        out.append((loop, [why_of(a, b) for a, b in zip(loop, loop[1:])]))
    return out


def py_circles(root, package=PACKAGE):
    """[(loop, why)]: for each group of modules that import each other, one
    shortest loop [m0, m1, ..., m0] and the import line of each step."""
    graph = py_imports(root, package)
    return _circles(graph, lambda a, b: f"{_path_of(package, a)}:{graph[a][b][0]} imports {b}")


def room_of(mod):
    """A module's room: its subpackage (qemu for qemu.runner), or the module
    itself at the package's top (cli, common)."""
    return mod.split(".")[0]


def py_room_circles(root, package=PACKAGE):
    """[(loop, why)]: rooms (subpackages) that import each other, by any
    module of theirs: the rooms, too, must form a tree."""
    rooms = {}
    for a, edges in py_imports(root, package).items():
        for b, lines in edges.items():
            ra, rb = room_of(a), room_of(b)
            if ra != rb and rb != package:
                rooms.setdefault(ra, {}).setdefault(rb, f"{_path_of(package, a)}:{lines[0]} imports {b}")
    return _circles(rooms, lambda a, b: rooms[a][b])


# The programs whose calls are read: (name, objects' folder under root,
# source folders); the object of source f is <objects' folder>/f less its
# suffix, plus .o, as the Makefile names it.
CALL_PROGRAMS = (
    ("the kernel", "build", ("kernel", "mm", "bench", "boot")),
    ("the hosted runner", "build/hosted/p", ("hosted",)),
)

# Pairs that use each other by design, each with its reason; a pair here
# that no longer uses each other fails the check, so the list cannot go stale.
CALL_PAIRS = {
    ("kernel/isr.asm", "kernel/traps.c"):
        "the interrupt entry in two languages: the stubs call trap_handler(), "
        "and traps.c puts the stubs' addresses in the IDT",
}


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
    return [c for c in _components(graph) if len(c) > 2]


def report(root, loops=False, calls=True):
    """(problems, notes): a line or more for every circle and for every
    include that names no file; with loops, the longer C loops as notes."""
    problems, notes = [], []
    circles, missing = c_circles(root)
    for f, line, name in missing:
        problems.append(f'{f}:{line}: #include "{name}" names no file in the tree')
    for a, b, why in circles:
        problems.append(f"C circle: {a} <-> {b}")
        problems += ["    " + w for w in why]
    for loop, why in py_circles(root):
        problems.append("Python circle: " + " -> ".join(loop))
        problems += ["    " + w for w in why]
    for loop, why in py_room_circles(root):
        problems.append("Python room circle: " + " -> ".join(loop))
        problems += ["    " + w for w in why]
    if calls:
        found, trouble = call_circles(root)
        problems += trouble
        seen = set()
        for a, b, why in found:
            seen.add((a, b))
            if (a, b) not in CALL_PAIRS:
                problems.append(f"C call circle: {a} <-> {b}")
                problems += ["    " + w for w in why]
        if not trouble:
            problems += [f"C call pair {a} <-> {b} is listed in CALL_PAIRS but no longer uses each other"
                         for a, b in sorted(set(CALL_PAIRS) - seen)]
    if loops:
        notes = ["C loop of three modules or more (not a circle): " + ", ".join(c) for c in c_loops(root)]
        if calls:
            notes += ["C call loop of three files or more (not a circle): " + ", ".join(c)
                      for c in call_loops(root)]
    return problems, notes


def main(argv):
    loops, calls = "--loops" in argv, "--no-calls" not in argv
    args = [a for a in argv if a not in ("--loops", "--no-calls")]
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems, notes = report(root, loops, calls)
    for line in problems + notes:
        print(line)
    if not problems:
        print("no include, call or import circles" if calls else "no include or import circles")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
