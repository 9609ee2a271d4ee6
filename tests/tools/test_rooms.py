# SPDX-License-Identifier: MIT
"""The harness's rooms stay small enough to read: no module over 400 lines,
no room (a folder of modules) over 12 of them."""
import os

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "harness")
MAX_LINES, MAX_MODULES = 400, 12


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
    assert {"real/xen", "real/bracket", "sweep", "qemu"} <= names
