# SPDX-License-Identifier: MIT
"""The C half of tools/circles.py's include check: the files are every .c
and .h under C_FOLDERS. A module is a .c file together with the headers of
its own name in its folder (foo.c, foo.h and foo_priv.h); a header with no
.c of its name is a module by itself (compiler.h, layout.h), and so is a
.c file with no header of its name (main.c, smp_boot.c). Module A includes
module B when a file of A has `#include "f"` for a file f of B, in any
branch of an #if (a dependency of one build is a dependency); "f" is read
from the top of the repository, as the build's -I. does, else from the
including file's folder. A circle is two modules that each include the
other's header."""
import os
import re

from tools.circles_graph import components

C_FOLDERS = ("kernel", "mm", "boot", "bench", "hosted", "tests/unit", "tests/fuzz")
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


def c_loops(root, folders=C_FOLDERS):
    """For information: [[module, ...]] every group of three C modules or
    more that reach each other through includes (a strongly connected
    group), which the pair rule leaves alone unless two of them include
    each other."""
    graph = {}
    for a, b in c_graph(root, folders)[0]:
        graph.setdefault(a, set()).add(b)
    return [c for c in components(graph) if len(c) > 2]
