# SPDX-License-Identifier: MIT
"""`xen-src measure`'s releases (harness/real/xen/measure.py, cli.py): a default run measures
the releases whose source apt can get, names each it could not get with
apt's reason, and ends 0; a release named with --releases that cannot be
had fails the run; a default run where nothing could be built fails.
The builds and the boots are stood in for; the records, report.md and the
exit status are the command's own."""
import json
import os
from types import SimpleNamespace

import pytest

from harness import cli
from harness.common import GIB
from harness.real.xen import source, variants

REASON = ("apt cannot get the source of Xen 4.20 from http://m/debian (trixie): every version failed "
          "to download:\n  4.20.4+63-0+deb13u1: E: Failed to fetch http://m/debian/pool/main/x/xen/"
          "xen_4.20.4+63.orig.tar.xz  404  Not Found")


def fake_build(release, config="release", patches=None, say=print, **_):
    if release == "4.20":
        raise source.SourceUnavailable(REASON)
    return SimpleNamespace(release=release, config=config, folder=f"/b/{release}-{config}",
                           info={"release": release, "config": config, "source_version": release + ".5",
                                 "patches": [], "toolchain": {}, "build_s": 1.0, "warnings": []})


def fake_measure(builds, sizes, topologies, names, out, say, jobs, model, plain):
    recs = []
    for b in builds:
        for v, x in (("chunk", 54.0), ("sweep", 8.5)):
            recs.append({"type": "variant", "release": b.release, "source_version": b.release + ".5",
                         "config": "release", "variant": v, "mem_bytes": GIB, "nodes": [1024],
                         "instructions": int(x * 1000), "pages": 1000, "problems": [], "dump": {}})
    return recs


@pytest.fixture
def stand_ins(monkeypatch):
    monkeypatch.setattr(source, "build", fake_build)
    monkeypatch.setattr(variants, "measure", fake_measure)


def run(tmp_path, *extra):
    out = str(tmp_path / "out")
    rc = cli.main(["xen-src", "--sizes", "1", "--nodes", "1", "--variants", "chunk,sweep", "--no-dom0",
                   "--no-model", "--series", "with", "--no-host-time", "--profile", "", "--out", out, *extra])
    return rc, out


def test_a_default_run_measures_what_it_can_get_and_names_the_rest(tmp_path, stand_ins, capsys):
    rc, out = run(tmp_path)
    said = capsys.readouterr()
    assert rc == 0
    assert "not measured: Xen 4.20, whose source apt cannot get" in said.out
    assert "404  Not Found" in said.out
    with open(os.path.join(out, "variants.jsonl")) as f:
        recs = [json.loads(x) for x in f]
    assert [r["release"] for r in recs if r["type"] == "unavailable"] == ["4.20"]
    assert not [r for r in recs if r["type"] == "error"]
    assert {r["release"] for r in recs if r["type"] == "variant"} == {"4.17"}
    with open(os.path.join(out, "report.md")) as f:
        report = f.read()
    assert "## Not measured" in report and "Xen 4.20: apt cannot get its source" in report
    assert "## Failures" not in report


def test_a_release_named_that_cannot_be_had_fails(tmp_path, stand_ins, capsys):
    rc, out = run(tmp_path, "--releases", "4.17,4.20")
    assert rc == 1
    with open(os.path.join(out, "report.md")) as f:
        report = f.read()
    assert "## Failures" in report and "the release build of Xen 4.20" in report
    assert "## Not measured" not in report


def test_a_default_run_that_builds_nothing_fails(tmp_path, monkeypatch, capsys):
    def nothing(release, *a, **k):
        raise source.SourceUnavailable(f"the source of Xen {release}: not on the mirror")
    monkeypatch.setattr(source, "build", nothing)
    rc, _ = run(tmp_path)
    assert rc == 2
    assert "no release could be built" in capsys.readouterr().err


def test_a_patch_that_does_not_apply_still_fails_a_default_run(tmp_path, monkeypatch, capsys):
    """Only a source apt cannot get is left out quietly: a broken series is a failure."""
    def broken(release, config="release", patches=None, say=print, **k):
        if release == "4.20":
            raise source.SourceError("patches/xen/4.20/0003.patch does not apply to xen-4.20.4")
        return fake_build(release, config, patches, say)
    monkeypatch.setattr(source, "build", broken)
    monkeypatch.setattr(variants, "measure", fake_measure)
    rc, _ = run(tmp_path)
    assert rc == 1


def test_the_run_times_each_releases_own_heap_code_and_the_report_shows_it(tmp_path, stand_ins, monkeypatch):
    """Without --no-host-time the run times Debian's release on this CPU at
    its whole-GiB sizes, and report.md carries the table, labelled hosted."""
    from harness.real.xen.host import timing as hosttime
    asked = []

    def timed(release, sizes, runs=5, say=print):
        asked.append((release, sizes))
        w = [{"gib": gib, "way": way, "ns": ns * 1000, "pages": 1000}
             for gib in (1, 8) for way, ns in (("page", 16.0), ("chunk-72b02bc", 5.0), ("chunk", 5.0),
                                                ("sweep", 4.0), ("floor", 2.0))]
        for x in w:
            if x["way"] == "floor":
                x.update(memset_ns=4200, nt_ns=2000)
        c = [{"way": way, "pages": 1000, "locks": 0, "node_lookups": 0, "mfn_valid": 0, "list_ops": 0,
              "m2p": 0} for way in hosttime.WAYS[:4]]
        return {"type": "host-time", "release": release, "runs": runs, "sizes_gib": sizes, "load": [1.0, 1.5],
                "windows": w, "counted": c}
    monkeypatch.setattr(hosttime, "run_records", timed)
    out = str(tmp_path / "out")
    assert cli.main(["xen-src", "--sizes", "1,8", "--nodes", "1", "--variants", "chunk,sweep", "--no-dom0",
                     "--no-model", "--series", "with", "--profile", "", "--out", out]) == 0
    assert asked == [("4.17", [1, 8])]
    with open(os.path.join(out, "report.md")) as f:
        report = f.read()
    assert "## Xen 4.17's own heap code on this CPU" in report and hosttime.LABEL in report
    assert "| 1 | 16.00 (16.00-16.00) |" in report and "| 1.25x | 3.20x | 2.00x |" in report
    assert "own sweep on this CPU at most 1.3x the memset() floor of its page_info bytes from 8 GiB up " \
        "(hosted): met (0.95x at 8 GiB at worst; 2.00x the faster floor" in report
    assert "| 4.20 | 0.95x |" in report
