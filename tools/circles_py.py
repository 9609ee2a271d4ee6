# SPDX-License-Identifier: MIT
"""The Python half of tools/circles.py's check: the modules are every .py
file of the package `python3 -m harness` runs, its subpackages included
(harness/qemu/runner.py is `qemu.runner`, harness/qemu/__init__.py is
`qemu`, harness/__init__.py is `harness`). Module A imports B when A says
`import harness.B`, `from harness import B` or `from harness.B import ...`
(B dotted or not) anywhere in the file, inside a function too: an import
put off until a call is still a dependency. A circle is any loop of
imports, however long: the harness's imports must form a tree. So must its
rooms: a subpackage (or a module at the top) imports another when any
module of the first imports any of the second, and no two rooms may reach
each other."""
import ast
import os

from tools.circles_graph import circles

PACKAGE = "harness"


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


def py_circles(root, package=PACKAGE):
    """[(loop, why)]: for each group of modules that import each other, one
    shortest loop [m0, m1, ..., m0] and the import line of each step."""
    graph = py_imports(root, package)
    return circles(graph, lambda a, b: f"{_path_of(package, a)}:{graph[a][b][0]} imports {b}")


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
    return circles(rooms, lambda a, b: rooms[a][b])
