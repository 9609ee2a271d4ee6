# SPDX-License-Identifier: MIT
"""No include circles in the C code and no import circles in the harness
(tools/circles.py), and the checker finds the circles it is shown.

What a circle is.
- C: the files are every .c and .h under kernel/, mm/, boot/, bench/,
  hosted/, tests/unit/ and tests/fuzz/. A module is a .c file together with
  the headers of its own name in its folder: foo.c, foo.h and foo_priv.h.
  A header with no .c of its name (compiler.h, mm/layout.h) is a module by
  itself, and so is a .c file with no header of its name (main.c). Module A
  includes module B when a file of A has `#include "f"` for a file f of B,
  in any branch of an #if; "f" is read from the top of the repository (the
  build's -I.), else from the including file's folder. A circle is two
  modules that each include the other's header: A includes B and B
  includes A. Longer loops (A includes B, B includes C, C includes A) are
  not circles: they run through the services every layer calls, such as
  printk() and panic(), whose headers sit low while their code uses the
  layers above; `tools/circles.py --loops` lists them.
- Python: the modules are every .py file of the package `python3 -m
  harness` runs, subpackages included (harness/qemu/runner.py is
  `qemu.runner`). A imports B when A says `import harness.B`, `from
  harness import B` or `from harness.B import ...`, B dotted or not,
  anywhere in the file, inside a function too. A circle is any loop of
  imports, however long. The rooms (subpackages, and the modules at the
  top) must form a tree as well: no two rooms reach each other through any
  of their modules.
An include that names no file fails the check too, so that no edge of the
graph goes missing unnoticed.
- Calls: which file defines each function and global and which files use
  it, read with nm from the built objects of the kernel (kernel/, mm/,
  bench/, boot/) and of the hosted runner's own files (hosted/). A circle
  is two files that each use the other; tools/circles.py CALL_PAIRS names
  the one pair that does so by design (the interrupt stubs and their
  handler), and a listed pair that no longer does fails too."""
import importlib.util
import os
import subprocess
import textwrap

import pytest

from conftest import ROOT


def load():
    spec = importlib.util.spec_from_file_location("circles", os.path.join(ROOT, "tools", "circles.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


circles = load()


def tree(root, files):
    """Writes {path: text} under root."""
    for path, text in files.items():
        p = os.path.join(root, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(textwrap.dedent(text))
    return str(root)


def test_the_c_code_has_no_include_circle():
    found, missing = circles.c_circles(ROOT)
    assert not missing, "\n".join(f'{f}:{n}: #include "{name}" names no file' for f, n, name in missing)
    assert not found, "\n".join(f"{a} <-> {b}: " + "; ".join(why) for a, b, why in found)


def test_the_harness_imports_have_no_circle():
    found = circles.py_circles(ROOT)
    assert not found, "\n".join(" -> ".join(loop) + ": " + "; ".join(why) for loop, why in found)


def test_the_harness_rooms_have_no_circle():
    found = circles.py_room_circles(ROOT)
    assert not found, "\n".join(" -> ".join(loop) + ": " + "; ".join(why) for loop, why in found)


def test_the_graph_sees_the_real_includes():
    """Not an empty graph passing by default: the checker reads the tree's
    include lines and resolves them, and the harness's imports."""
    files = circles.c_files(ROOT)
    found, _ = circles.c_includes(ROOT, files)
    assert ("kernel/main.c", "mm/mm.h") in {(f, t) for f, _, t in found}
    assert len(found) > 500
    graph = circles.py_imports(ROOT)
    assert "qemu.runner" in graph["qemu.boot"]
    assert "qemu.accel" in graph["qemu.boot"]
    assert "cli" in graph["__main__"]


def test_two_modules_including_each_other_are_a_circle(tmp_path):
    """The shape kernel/console/qr.c and qr_words.c had once each had a
    header: each module includes the other's."""
    root = tree(tmp_path, {
        "kernel/console/qr.h": '#include "kernel/console/qr_words.h"\n',
        "kernel/console/qr.c": '#include "kernel/console/qr.h"\n',
        "kernel/console/qr_words.h": "int qr_codewords(void);\n",
        "kernel/console/qr_words.c": '#include "kernel/console/qr_words.h"\n\n#include "kernel/console/qr.h"\n',
    })
    found, missing = circles.c_circles(root)
    assert not missing
    assert found == [("kernel/console/qr", "kernel/console/qr_words",
                      ["kernel/console/qr.h:1 includes kernel/console/qr_words.h",
                       "kernel/console/qr_words.c:3 includes kernel/console/qr.h"])]
    problems, _ = circles.report(root, calls=False)
    assert problems[0] == "C circle: kernel/console/qr <-> kernel/console/qr_words"
    assert circles.main([root, "--no-calls"]) == 1


def test_a_circle_through_a_header_alone_and_a_relative_include(tmp_path):
    root = tree(tmp_path, {
        "mm/mm.c": '#include "numa_boot.h"\n',            # from the file's folder
        "mm/numa_boot.h": "unsigned numa_boot_init(void);\n",
        "mm/numa_boot.c": '#include "mm/numa_boot.h"\n#include "mm/mm.h"\n',
        "mm/mm.h": "void *mm_alloc_boot(void);\n",
    })
    assert [(a, b) for a, b, _ in circles.c_circles(root)[0]] == [("mm/mm", "mm/numa_boot")]


def test_own_headers_are_one_module_and_includes_downwards_are_no_circle(tmp_path):
    root = tree(tmp_path, {
        "mm/heap.h": '#include "kernel/lib/compiler.h"\n',
        "mm/heap_priv.h": '#include "mm/heap.h"\n',
        "mm/heap.c": '#include "mm/heap.h"\n#include "mm/heap_priv.h"\n',
        "kernel/lib/compiler.h": "#define __noreturn\n",
        "kernel/main.c": '#include "mm/heap.h"\n#include "kernel/lib/compiler.h"\n',
    })
    assert circles.c_circles(root) == ([], [])
    assert circles.main([root, "--no-calls"]) == 0


def test_commented_out_includes_do_not_count_and_missing_ones_fail(tmp_path):
    root = tree(tmp_path, {
        "kernel/a.h": '/* #include "kernel/b.h" */\n// #include "kernel/b.h"\n',
        "kernel/a.c": '#include "kernel/a.h"\nstatic const char *s = "// not a comment";\n',
        "kernel/b.c": '#include "kernel/a.h"\n#include "kernel/gone.h"\n',
    })
    found, missing = circles.c_circles(root)
    assert found == []
    assert missing == [("kernel/b.c", 2, "kernel/gone.h")]
    assert circles.main([root, "--no-calls"]) == 1


def test_a_longer_c_loop_is_no_circle_but_is_listed(tmp_path):
    root = tree(tmp_path, {
        "kernel/a.c": '#include "kernel/b.h"\n', "kernel/a.h": "",
        "kernel/b.c": '#include "kernel/c.h"\n', "kernel/b.h": "",
        "kernel/c.c": '#include "kernel/a.h"\n', "kernel/c.h": "",
    })
    assert circles.c_circles(root) == ([], [])
    assert circles.c_loops(root) == [["kernel/a", "kernel/b", "kernel/c"]]


def test_an_import_put_off_into_a_function_is_still_a_circle(tmp_path):
    """The shape harness/accel.py and harness/qemu.py had."""
    root = tree(tmp_path, {
        "harness/__init__.py": "ROOT = '.'\n",
        "harness/accel.py": "from harness import ROOT, qemu\n",
        "harness/qemu.py": "import os\n\n\ndef boot():\n    from harness import accel\n    return accel\n",
        "harness/common.py": "",
    })
    found = circles.py_circles(root)
    assert found == [(["accel", "qemu", "accel"],
                      ["harness/accel.py:1 imports qemu", "harness/qemu.py:5 imports accel"])]
    assert circles.main([root, "--no-calls"]) == 1


def test_a_longer_python_loop_is_a_circle_and_every_import_form_counts(tmp_path):
    root = tree(tmp_path, {
        "harness/__init__.py": "",
        "harness/a.py": "import harness.b\n",
        "harness/b.py": "from harness.c import thing\n",
        "harness/c.py": "from harness import a\nthing = 1\n",
        "harness/d.py": "from harness import a, ROOT\n",
    })
    found = circles.py_circles(root)
    assert [loop for loop, _ in found] == [["a", "b", "c", "a"]]
    assert circles.py_imports(root)["d"] == {"a": [1], "harness": [1]}


def test_dotted_modules_and_their_packages_are_told_apart(tmp_path):
    """A subpackage's modules are nodes of their own; an import of the
    package alone reaches its __init__."""
    root = tree(tmp_path, {
        "harness/__init__.py": "",
        "harness/qemu/__init__.py": "",
        "harness/qemu/runner.py": "from harness.results import records\n",
        "harness/results/__init__.py": "",
        "harness/results/records.py": "import harness.qemu\n",
        "harness/cli.py": "from harness.qemu.runner import run\nfrom harness import results\n",
    })
    graph = circles.py_imports(root)
    assert graph["qemu.runner"] == {"results.records": [1]}
    assert graph["results.records"] == {"qemu": [1]}
    assert graph["cli"] == {"qemu.runner": [1], "results": [2]}
    assert circles.py_circles(root) == []


def test_rooms_that_reach_each_other_are_a_circle_though_their_modules_are_not(tmp_path):
    """qemu.runner -> results.records and results.stats -> qemu.guest: no
    module loop, but the rooms qemu and results each import the other."""
    root = tree(tmp_path, {
        "harness/__init__.py": "",
        "harness/qemu/__init__.py": "",
        "harness/qemu/runner.py": "from harness.results import records\n",
        "harness/qemu/guest.py": "",
        "harness/results/__init__.py": "",
        "harness/results/records.py": "",
        "harness/results/stats.py": "from harness.qemu.guest import args\n",
    })
    assert circles.py_circles(root) == []
    found = circles.py_room_circles(root)
    assert found == [(["qemu", "results", "qemu"],
                      ["harness/qemu/runner.py:1 imports results.records",
                       "harness/results/stats.py:1 imports qemu.guest"])]
    assert circles.main([root, "--no-calls"]) == 1


# ---- calls ---------------------------------------------------------------

def built(root, files):
    """Writes {path: C text} under root and compiles each .c to its object
    where the Makefile puts it (build/<path less .c>.o)."""
    tree(root, files)
    for path in files:
        if path.endswith(".c"):
            obj = os.path.join(root, "build", path[:-2] + ".o")
            os.makedirs(os.path.dirname(obj), exist_ok=True)
            subprocess.run(["gcc", "-c", "-O2", "-I", str(root), "-o", obj, os.path.join(root, path)], check=True)
    return str(root)


KERNEL_ONLY = (("the kernel", "build", ("kernel", "mm", "bench", "boot")),)

# The shape mm/heap.c and mm/heap_reset.c had: heap_setup() in heap.c
# ended with heap_reset(), which uses heap.c's heap_default and heap_clear().
HEAP_BEFORE = {
    "mm/heap.h": "struct heap { int n; };\nextern struct heap heap_default;\n"
                 "void heap_clear(struct heap *h);\nvoid heap_reset(void);\nvoid heap_setup(void);\n",
    "mm/heap.c": '#include "mm/heap.h"\nstruct heap heap_default;\n'
                 "void heap_clear(struct heap *h) { h->n = 0; }\nvoid heap_setup(void) { heap_reset(); }\n",
    "mm/heap_reset.c": '#include "mm/heap.h"\nvoid heap_reset(void) { heap_clear(&heap_default); }\n',
    "kernel/main.c": '#include "mm/heap.h"\nint main(void) { heap_setup(); return 0; }\n',
}


def test_two_files_that_call_each_other_are_a_circle(tmp_path):
    """The circle heap.c and heap_reset.c made, which the include graph does
    not see (both include heap.h alone), found on the built objects."""
    root = built(tmp_path, HEAP_BEFORE)
    assert circles.c_circles(root) == ([], [])
    found, problems = circles.call_circles(root, KERNEL_ONLY)
    assert not problems
    assert found == [("mm/heap.c", "mm/heap_reset.c",
                      ["mm/heap.c uses heap_reset", "mm/heap_reset.c uses heap_clear, heap_default"])]
    edges, _ = circles.call_graph(root, KERNEL_ONLY)
    assert edges[("kernel/main.c", "mm/heap.c")] == ["heap_setup"]


def test_the_setup_beside_the_reset_breaks_the_circle(tmp_path):
    """The fix this tree made: heap_setup() moved into heap_reset.c."""
    files = dict(HEAP_BEFORE)
    files["mm/heap.c"] = '#include "mm/heap.h"\nstruct heap heap_default;\nvoid heap_clear(struct heap *h) { h->n = 0; }\n'
    files["mm/heap_reset.c"] = ('#include "mm/heap.h"\nvoid heap_reset(void) { heap_clear(&heap_default); }\n'
                                "void heap_setup(void) { heap_reset(); }\n")
    root = built(tmp_path, files)
    assert circles.call_circles(root, KERNEL_ONLY) == ([], [])
    assert circles.call_loops(root, KERNEL_ONLY) == []


def test_a_longer_call_loop_is_no_circle_but_is_listed(tmp_path):
    root = built(tmp_path, {
        "kernel/a.c": "void b(void);\nvoid a(void) { b(); }\n",
        "kernel/b.c": "void c(void);\nvoid b(void) { c(); }\n",
        "kernel/c.c": "void a(void);\nvoid c(void) { a(); }\n",
    })
    assert circles.call_circles(root, KERNEL_ONLY) == ([], [])
    assert circles.call_loops(root, KERNEL_ONLY) == [["kernel/a.c", "kernel/b.c", "kernel/c.c"]]


def test_a_stale_object_or_no_objects_fail_the_call_check(tmp_path):
    """Not a pass by default: a tree without objects, or with an object
    older than its source, is a problem, not an empty graph."""
    root = tree(tmp_path, {"kernel/a.c": "void a(void) {}\n"})
    _, problems = circles.call_graph(root, KERNEL_ONLY)
    assert problems == ["no objects of the kernel in build/: make all hosted, then check again"]
    built(tmp_path, {"kernel/a.c": "void a(void) {}\n"})
    os.utime(os.path.join(root, "build/kernel/a.o"), (1, 1))
    _, problems = circles.call_graph(root, KERNEL_ONLY)
    assert problems == ["build/kernel/a.o is older than kernel/a.c: make all hosted, then check again"]
    assert circles.main([root]) == 1


def test_a_listed_pair_that_no_longer_calls_each_other_fails(tmp_path, monkeypatch):
    root = built(tmp_path, {"kernel/a.c": "void a(void) {}\n", "hosted/h.c": "void h(void) {}\n"})
    os.makedirs(os.path.join(root, "build/hosted/p/hosted"))
    os.rename(os.path.join(root, "build/hosted/h.o"), os.path.join(root, "build/hosted/p/hosted/h.o"))
    monkeypatch.setattr(circles, "CALL_PAIRS", {("kernel/a.c", "kernel/b.c"): "a reason"})
    problems, _ = circles.report(root)
    assert problems == ["C call pair kernel/a.c <-> kernel/b.c is listed in CALL_PAIRS but no longer uses each other"]


def built_tree():
    """ROOT's call graph, or a clear failure when the tree is not built."""
    edges, problems = circles.call_graph(ROOT)
    if problems:
        pytest.fail("\n".join(problems))
    return edges


def test_the_c_code_has_no_call_circle():
    edges = built_tree()
    found, _ = circles.call_circles(ROOT)
    left = [(a, b, why) for a, b, why in found if (a, b) not in circles.CALL_PAIRS]
    assert not left, "\n".join(f"{a} <-> {b}: " + "; ".join(why) for a, b, why in left)
    assert sorted((a, b) for a, b, _ in found) == sorted(circles.CALL_PAIRS)
    assert ("mm/heap.c", "mm/heap_reset.c") not in edges


def test_the_call_graph_sees_the_real_calls():
    """The objects are read: the reset uses heap.c, the boot path reaches
    the kernel's C, and the runner's own files use each other."""
    edges = built_tree()
    assert "heap_clear" in edges[("mm/heap_reset.c", "mm/heap.c")]
    assert "kstart" in edges[("boot/entry.asm", "kernel/main.c")]
    assert "host_tables" in edges[("hosted/platform/settle.c", "hosted/platform/platform.c")]
    assert len(edges) > 300
