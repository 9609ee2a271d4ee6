# SPDX-License-Identifier: MIT
"""The harness's rooms stay small enough to read: no module over 400 lines,
no room (a folder of modules) over 12 of them; and no source file of the
kernel, the host programs or the tools over 400 lines either."""
import os

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
ROOT = os.path.join(TOP, "harness")
MAX_LINES, MAX_MODULES = 400, 12
# Every folder of source the limit holds, and what counts as source in them.
SOURCE_FOLDERS = ("kernel", "mm", "bench", "hosted", "harness", "tools")
SOURCE_SUFFIXES = (".c", ".h", ".asm", ".S", ".ld", ".py", ".sh")


def rooms():
    for folder, _, files in os.walk(ROOT):
        if "__pycache__" in folder:
            continue
        yield folder, [f for f in files if f.endswith(".py") and f != "__init__.py"]


def test_no_harness_module_is_over_400_lines():
    long = []
    for folder, modules in rooms():
        for m in modules:
            with open(os.path.join(folder, m), encoding="utf-8") as f:
                n = sum(1 for _ in f)
            if n > MAX_LINES:
                long.append(f"{os.path.relpath(os.path.join(folder, m), ROOT)}: {n} lines")
    assert not long, "over 400 lines: " + ", ".join(long)


def test_no_harness_room_holds_over_12_modules():
    full = [f"{os.path.relpath(folder, ROOT)}: {len(m)} modules" for folder, m in rooms() if len(m) > MAX_MODULES]
    assert not full, "over 12 modules: " + ", ".join(full)


def test_the_rooms_are_found():
    """The walk sees the rooms it polices: a wrong root would pass the two tests above."""
    names = {os.path.relpath(folder, ROOT) for folder, _ in rooms()}
    assert {"real/xen", "real/bracket", "sizes", "qemu"} <= names


def long_sources(top, folders=SOURCE_FOLDERS):
    """(["path: N lines" of every source file over MAX_LINES], how many files were read)."""
    long, seen = [], 0
    for folder in folders:
        for d, dirs, files in os.walk(os.path.join(top, folder)):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            for name in files:
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(d, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    n = sum(1 for _ in f)
                seen += 1
                if n > MAX_LINES:
                    long.append(f"{os.path.relpath(path, top)}: {n} lines")
    return sorted(long), seen


def test_no_source_file_is_over_400_lines():
    long, seen = long_sources(TOP)
    assert seen > 250, f"only {seen} source files found under {', '.join(SOURCE_FOLDERS)}"
    assert not long, "over 400 lines: " + ", ".join(long)


def test_a_long_source_file_in_any_folder_is_caught(tmp_path):
    """C, assembly, Python and shell, in every folder the limit holds."""
    for folder, name in zip(SOURCE_FOLDERS, ("a.c", "b.h", "c.asm", "d/e.py", "f.sh", "g/h.py")):
        (tmp_path / folder / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / name).write_text("x\n" * (MAX_LINES + 1))
    (tmp_path / "tools" / "list.txt").write_text("x\n" * 500)      # data, not source
    (tmp_path / "kernel" / "ok.c").write_text("x\n" * MAX_LINES)
    long, seen = long_sources(str(tmp_path))
    assert seen == 7
    assert long == sorted(f"{os.path.join(f, n)}: {MAX_LINES + 1} lines"
                          for f, n in zip(SOURCE_FOLDERS, ("a.c", "b.h", "c.asm", "d/e.py", "f.sh", "g/h.py")))
