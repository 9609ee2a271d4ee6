# SPDX-License-Identifier: MIT
"""The hosted runner's synthetic q35 map is the map QEMU gives a PVH guest:
both maps of the same size, the kernel's boot record against the runner's,
and the runner on the kernel's serial log (`python3 -m harness hosted
--map`) builds the same e820."""
import json
import os
import subprocess
import sys

import pytest

from bootlib import ROOT, boot, explain, record

RUNNER = os.path.join(ROOT, "build", "bootheap-host")


def hosted(*args, harness=False):
    cmd = [sys.executable, "-m", "harness", "hosted"] if harness else [RUNNER]
    p = subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return [json.loads(x) for x in p.stdout.splitlines() if x.startswith('{"type":')]


def entries(recs, rtype, key):
    rec = [r for r in recs if r["type"] == rtype]
    assert len(rec) == 1
    return sorted((e["addr"], e["len"], e["type"]) for e in rec[0][key])


# All RAM below 4 GiB; RAM split at 2 GiB with the rest above 4 GiB.
@pytest.mark.parametrize("mem", ["256M", "3584M"])
def test_q35_map_matches_qemu(mem, tmp_path):
    r = boot("pvh", mem, "memonly", timeout=240)
    assert r.status == "ok", explain(r)
    qemu_map = sorted((e["addr"], e["len"], e["type"]) for e in record(r, "boot")["mmap"])
    assert entries(hosted("--mem", mem, "--map-only"), "boot", "mmap") == qemu_map
    log = tmp_path / f"serial-{mem}.log"
    log.write_text(r.log)
    replay = hosted("--map", str(log), "memonly", harness=True)
    assert entries(replay, "e820", "sanitised") == \
        sorted((e["addr"], e["len"], e["type"]) for e in record(r, "e820")["sanitised"])
