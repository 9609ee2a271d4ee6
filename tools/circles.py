#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Include and call circles in the C code and import circles in the harness.

Three graphs, each defined and read in a module of its own: the C
modules' includes (tools/circles_c.py), the harness's imports and its
rooms' (tools/circles_py.py), and the C files' calls and globals, read
with nm from the built objects of the kernel and of the hosted runner's
own files (tools/circles_calls.py). A circle is two C modules that each
include the other's header, two C files that each use the other (unless
CALL_PAIRS below gives the pair its reason), or any loop of imports among
the harness's modules or its rooms; tools/circles_graph.py finds the
loops.

Usage: tools/circles.py [--loops] [--no-calls] [ROOT] -> prints each
circle and exits 1 when there is one. --loops also lists, for
information, the C modules and files that reach each other only through
longer loops (three or more), which are not circles by the definitions
above. --no-calls reads the sources alone, for a tree without a build.
"""
import os
import sys

if not __package__:     # run as tools/circles.py: the top of the tree is not on the path
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools.circles_c import C_FOLDERS, c_circles, c_files, c_graph, c_includes, c_loops, c_module  # noqa: E402,F401
from tools.circles_calls import CALL_PROGRAMS, call_circles, call_graph, call_loops  # noqa: E402,F401
from tools.circles_py import PACKAGE, py_circles, py_imports, py_modules, py_room_circles  # noqa: E402,F401

# Pairs that use each other by design, each with its reason; a pair here
# that no longer uses each other fails the check, so the list cannot go stale.
CALL_PAIRS = {
    ("kernel/isr.asm", "kernel/traps.c"):
        "the interrupt entry in two languages: the stubs call trap_handler(), "
        "and traps.c puts the stubs' addresses in the IDT",
}


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
