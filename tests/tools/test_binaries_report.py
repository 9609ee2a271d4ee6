# SPDX-License-Identifier: MIT
"""The side-by-side report (harness/real/binaries/report.py) from recorded
records of `binaries` at 1 to 16 GiB: its tables, labels and plot, the
Linux phases read back, and bad folders refused. The recording is kept as
it was written, as peers.jsonl with `peers` and `peer` records; the same
records under today's names (binaries.jsonl, `binaries`, `binary`) give
the same report."""
import json
import os
import re
import shutil

import pytest

from harness.common import BenchError
from harness.real.binaries.report import LABEL, Binaries, linux_phases, records_path, write

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "binaries", "peers.jsonl")
GIB = 1 << 30


def todays(rec):
    """A record of the recording as `binaries` writes it today."""
    if rec["type"] == "peers":
        return dict(rec, type="binaries")
    if rec["type"] == "peer":
        rec = dict(rec, type="binary", binary=rec["peer"])
        del rec["peer"]
    return rec


@pytest.fixture(params=["kept", "today"])
def folder(tmp_path, request):
    if request.param == "kept":
        shutil.copy(DATA, tmp_path / "peers.jsonl")
    else:
        with open(DATA) as f, open(tmp_path / "binaries.jsonl", "w") as out:
            out.writelines(json.dumps(todays(json.loads(line))) + "\n" for line in f if line.strip())
    return str(tmp_path)


def test_kept_and_todays_records_give_one_report(tmp_path):
    reports = []
    for name, rewrite in (("peers.jsonl", None), ("binaries.jsonl", todays)):
        d = tmp_path / name.split(".")[0]
        d.mkdir()
        with open(DATA) as f, open(d / name, "w") as out:
            out.writelines(json.dumps(rewrite(json.loads(line)) if rewrite else json.loads(line)) + "\n"
                           for line in f if line.strip())
        assert write(str(d)) == 0
        reports.append((d / "report.md").read_text())
    assert reports[0] == reports[1]


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
    with open(records_path(folder), "a") as f:
        f.write(json.dumps({"type": "error", "what": "xen-4.14", "mem_bytes": 32 * GIB,
                            "message": "xen-4.14 at 32768 MiB gave no bracket: the boot ended\nlog"}) + "\n")
    write(folder)
    md = open(os.path.join(folder, "report.md"), encoding="utf-8").read()
    assert "## Boots that failed" in md
    assert "- xen-4.14 at 32 GiB: xen-4.14 at 32768 MiB gave no bracket: the boot ended" in md


def test_not_a_binaries_folder(tmp_path):
    with pytest.raises(BenchError, match="binaries.jsonl: no records of `binaries`"):
        Binaries(str(tmp_path))
    for name in ("peers.jsonl", "binaries.jsonl"):
        (tmp_path / name).write_text('{"type": "bench"}\n')
        with pytest.raises(BenchError, match=f"{name}: no records of `binaries`"):
            Binaries(str(tmp_path))
