# SPDX-License-Identifier: MIT
"""The side-by-side report (harness/real/binaries/report.py) from a recorded
peers.jsonl of `binaries` at 1 to 16 GiB: its tables, labels and plot, the
Linux phases read back, and bad folders refused."""
import json
import os
import re
import shutil

import pytest

from harness.common import BenchError
from harness.real.binaries.report import LABEL, Binaries, linux_phases, write

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "binaries", "peers.jsonl")
GIB = 1 << 30


@pytest.fixture
def folder(tmp_path):
    shutil.copy(DATA, tmp_path / "peers.jsonl")
    return str(tmp_path)


def test_report_and_plot(folder):
    assert write(folder) == 0
    md = open(os.path.join(folder, "report.md"), encoding="utf-8").read()
    assert LABEL in md
    assert not re.search(r"\bns(/| a )page", md)                # counts, never times
    # One row a size in the Xen table, with the model's differences.
    rows = [l for l in md.splitlines() if l.startswith("| 1 GiB | 257,833")]
    assert rows and "+1.2%" in rows[0] and "-8.6%" in rows[0]
    # chunk is over 5% from Xen 4.17 at every size, and the report points to why.
    assert md.count("chunk against xen-4.17 at") == 5
    assert "Where the instructions go, function by function" in md
    assert "set_gpfn_from_mfn / xc_set_gpfn_from_mfn_call" in md
    with open(os.path.join(folder, "plot.gp")) as f:
        gp = f.read()
    assert "Xen 4.17 (real)" in gp and "Linux 6.1 deferred (real)" in gp
    assert os.path.getsize(os.path.join(folder, "plot.png")) > 0


def test_linux_phases_read_back(folder):
    phases = linux_phases(folder)
    assert sorted(phases) == [s * GIB for s in (1, 2, 4, 8, 16)]
    for mem, ph in phases.items():
        assert set(ph) == {"memmap", "memblock_free_all", "deferred"}
        assert ph["memblock_free_all"]["pages"] + ph["deferred"]["pages"] == ph["deferred"]["pages_total"]
        for r in ph.values():
            assert r["instr_per_page"] == r["instructions"] / r["pages"]
    # Deferred init writes and frees each page alike at every size.
    per = [phases[s * GIB]["deferred"]["instr_per_page"] for s in (2, 4, 8, 16)]
    assert max(per) - min(per) < 1


def test_failed_boot_is_listed(folder):
    with open(os.path.join(folder, "peers.jsonl"), "a") as f:
        f.write(json.dumps({"type": "error", "what": "xen-4.14", "mem_bytes": 32 * GIB,
                            "message": "xen-4.14 at 32768 MiB gave no bracket: the boot ended\nlog"}) + "\n")
    write(folder)
    md = open(os.path.join(folder, "report.md"), encoding="utf-8").read()
    assert "## Boots that failed" in md
    assert "- xen-4.14 at 32 GiB: xen-4.14 at 32768 MiB gave no bracket: the boot ended" in md


def test_not_a_binaries_folder(tmp_path):
    with pytest.raises(BenchError, match="no peers records"):
        Binaries(str(tmp_path))
    (tmp_path / "peers.jsonl").write_text('{"type": "bench"}\n')
    with pytest.raises(BenchError, match="no peers records"):
        Binaries(str(tmp_path))
