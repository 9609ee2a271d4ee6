# SPDX-License-Identifier: MIT
"""Shared fixtures for the host-tool tests: a scratch copy of the synthetic
run over sizes, and helpers that edit its records."""
import json
import os
import shutil

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SYNTHETIC = os.path.join(HERE, "data", "synthetic-sizes")
GIB = 1 << 30


@pytest.fixture
def synth(tmp_path):
    """A writable copy of the synthetic run over sizes (the checked-in one stays as is)."""
    dst = tmp_path / "synth"
    shutil.copytree(SYNTHETIC, dst, ignore=shutil.ignore_patterns("*.py", "README"))
    return str(dst)


def read_jsonl(folder):
    with open(os.path.join(folder, "records.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def rewrite(folder, edit):
    """Applies edit(wrapper) to every line of records.jsonl; edit returns the
    wrapper to keep, or None to drop the line."""
    out = []
    for w in read_jsonl(folder):
        w = edit(w)
        if w is not None:
            out.append(json.dumps(w))
    with open(os.path.join(folder, "records.jsonl"), "w") as f:
        f.write("\n".join(out) + "\n")


def to_kvm(folder):
    """Turns the synthetic run over sizes into one that claims KVM everywhere."""
    def edit(w):
        r = w["record"]
        if r["type"] in ("run", "boot_result"):
            r["accel"] = "kvm"
        if r["type"] in ("boot", "bench"):
            r["accel"] = "KVM"
        if r["type"] == "bench":
            r["emulated"] = False
        return w
    rewrite(folder, edit)


def edit_records(folder, size, rtype, match, **changes):
    """Changes keys of the kernel records of one type at one size ('4G')
    whose keys equal `match`; returns how many records changed."""
    n = 0

    def edit(w):
        nonlocal n
        r = w["record"]
        if w.get("size") == size and r.get("type") == rtype and all(r.get(k) == v for k, v in match.items()):
            r.update(changes)
            n += 1
        return w
    rewrite(folder, edit)
    return n
