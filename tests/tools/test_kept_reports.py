# SPDX-License-Identifier: MIT
"""Every results folder of the real kernels kept under docs/results/ (Debian's
binaries, Xen and Linux from source) has its report written again from its
records alone, by the command a user runs (`binaries report`, `xen-src
report`, `linux-src report`), into a copy: report.md (configs.md for a
`linux-src configs` folder), plot.gp and plot.png come out byte for byte as
kept. A change to the harness that changes a kept report shows here."""
import filecmp
import os
import shutil

import pytest

from conftest import ROOT
from harness import cli

RESULTS = os.path.join(ROOT, "docs", "results")
# The records file a folder keeps -> the command that writes its report and what it writes.
# A `binaries` folder kept from before its records were named for the
# binaries holds peers.jsonl, read as binaries.jsonl (harness/results/names.py).
KINDS = (("binaries.jsonl", "binaries", ("report.md", "plot.gp", "plot.png")),
         ("peers.jsonl", "binaries", ("report.md", "plot.gp", "plot.png")),
         ("variants.jsonl", "xen-src", ("report.md", "plot.gp", "plot.png")),
         ("linux-src.jsonl", "linux-src", ("report.md",)),
         ("configs.jsonl", "linux-src", ("configs.md",)),
         ("arm.jsonl", "xen-src", ("report.md",)))

# Records a report also reads when its folder has them: the same sizes timed on
# this CPU beside a linux-src run (harness/real/linux/report.py).
BESIDE = ("host-time.jsonl",)


def kept():
    """[(folder relative to docs/results, records file, command, outputs)]."""
    out = []
    for folder, _, files in sorted(os.walk(RESULTS)):
        for records, command, outputs in KINDS:
            if records in files:
                out.append((os.path.relpath(folder, RESULTS), records, command, outputs))
                break
    return out


def test_the_kept_folders_are_found():
    names = {name for name, *_ in kept()}
    assert {"binaries", "binaries-linux", "xen-src", "linux-src", "linux-src-configs",
            "linux-src-deferral/nodefer", "xen-arm-staging"} <= names, names


@pytest.mark.parametrize("name, records, command, outputs", kept(), ids=[k[0] for k in kept()])
def test_a_kept_report_is_written_again_byte_for_byte(tmp_path, name, records, command, outputs):
    copy = tmp_path / name.replace("/", "-")
    copy.mkdir()
    shutil.copy(os.path.join(RESULTS, name, records), copy / records)
    for more in BESIDE:
        if os.path.exists(os.path.join(RESULTS, name, more)):
            shutil.copy(os.path.join(RESULTS, name, more), copy / more)
    assert cli.main([command, "report", str(copy)]) == 0
    for out in outputs:
        if os.path.exists(os.path.join(RESULTS, name, out)):
            assert filecmp.cmp(os.path.join(RESULTS, name, out), copy / out, shallow=False), \
                f"docs/results/{name}/{out} is not what `{command} report` writes from {records}"
