# SPDX-License-Identifier: MIT
"""The host package over the hosted runner: `run --hosted`, a run over
memory sizes, writes a results folder as `make bench` does, the reports
read it as hosted (Xen's table beside it, the CPU-time section, the counts
when the folder has them), `beside` sets it next to a TCG run, and a size the host cannot hold fails
that size with the runner's reason."""
import csv
import os
import signal
import shutil
import subprocess
import sys

import pytest

from harness import ROOT
from harness.results.records import load_folder

RECORDED_TCG = os.path.join(ROOT, "tests", "tools", "data", "recorded-tcg")


def harness(*args, env=None):
    p = subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=600, env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout + p.stderr


@pytest.fixture(scope="module")
def hosted_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("hosted") / "results")
    rc, text = harness("run", "--hosted", "--sizes", "1,4", "--runs", "2", "--out", out)
    assert rc == 0, text
    return out


def test_a_hosted_run_reads_as_hosted(hosted_run):
    s = load_folder(hosted_run)
    assert [r.accel for r in s.sizes] == ["host", "host"]
    assert not s.emulated and s.info["mode"] == "hosted"
    assert all(r.first("done")["status"] == "ok" for r in s.sizes)
    with open(os.path.join(hosted_run, "summary.csv")) as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["timings"] for r in rows} == {"hosted (user space, real CPU)"}
    with open(os.path.join(hosted_run, "report.md")) as f:
        md = f.read()
    assert "EMULATED" not in md
    assert "## Hosted: user space, the kernel's heap code" in md
    # CPU time leads, each median with its spread.
    assert md.index("## Hosted: CPU time of each window") < md.index("## Old (page by page)")
    assert "CPU ns/page, median [min-max]" in md and "| 4 GiB | chunk | init | 2 |" in md
    assert "init + first touch ns/page (CPU)" in md
    # Xen published 4 GB: the hosted 4 GiB row sits beside it, with what differs.
    assert "## Hosted beside Xen's published figures" in md and "| 4 GB |" in md
    assert "What differs" in md and "Xen v2 ms (before -> after)" in md
    # The cover letter's code beside the released one, each named.
    assert "hosted chunk-72b02bc ns/page" in md and "hosted chunk (4.17.0) ns/page" in md
    assert "measured at commit 72b02bc" in md


def test_the_hosted_run_shares_and_samples_the_first_touch():
    from harness.hosted import runner as hosted
    assert hosted.size_append(32 << 30, "runs=3", False) == "runs=3 touch_shared"
    assert hosted.size_append(64 << 30, "runs=3", False) == "runs=3 touch_shared touch_runs=1"
    assert hosted.size_append(1 << 40, "runs=3", True) == "runs=3"
    assert hosted.size_append(1 << 40, "runs=3 touch_runs=2", False) == \
        "runs=3 touch_runs=2 touch_shared strategies=chunk,chunk-72b02bc,sweep,lazy"
    assert hosted.size_append(256 << 30, "runs=3", False) == \
        "runs=3 touch_shared touch_runs=1 strategies=page,chunk,chunk-72b02bc,sweep,lazy"
    # The peers up to 90 GiB by default; a run that names its strategies keeps them.
    assert "strategies" not in hosted.size_append(90 << 30, "runs=3", False)
    assert hosted.size_append(256 << 30, "runs=3 strategies=chunk", False) == \
        "runs=3 strategies=chunk touch_shared touch_runs=1"


def test_the_shared_first_touch_reads_as_one_row(hosted_run):
    s = load_folder(hosted_run)
    run = s.sizes[0]
    assert run.first("bench")["touch_shared"] is True
    shared = [r for r in run.of("result") if r.get("shared_from")]
    # Four eager strategies, two runs: three copies a run, each named.
    assert len(shared) == 2 * 3 and {r["strategy"] for r in shared} == {"page", "chunk", "chunk-72b02bc", "sweep"}
    with open(os.path.join(hosted_run, "report.md")) as f:
        md = f.read()
    assert "| 1 GiB | eager (shared) | first_touch | 2 |" in md
    assert "| 1 GiB | lazy | first_touch | 2 |" in md and "| 1 GiB | chunk | first_touch |" not in md
    assert "their first-touch column is that one figure" in md


def test_beside_a_tcg_run(hosted_run):
    rc, text = harness("beside", hosted_run, RECORDED_TCG)
    assert rc == 0, text
    assert "(hosted)" in text and "(TCG, EMULATED)" in text
    assert "hosted means user space" in text
    lines = [x for x in text.splitlines() if x.startswith("| 1 GiB | chunk |")]
    assert len(lines) == 1
    cells = [c.strip() for c in lines[0].strip("|").split("|")]
    assert all(cells[2:]), lines[0]       # both sides have figures
    assert "Sizes in one folder only: 2 GiB, 4 GiB" in text


def test_counts_join_the_report(hosted_run, tmp_path):
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (Debian package valgrind)")
    folder = str(tmp_path / "copy")
    shutil.copytree(hosted_run, folder)
    rc, text = harness("counts", "--sizes", "256M", "--out", folder)
    assert rc == 0, text
    rc, text = harness("report", folder)
    assert rc == 0, text
    with open(os.path.join(folder, "report.md")) as f:
        md = f.read()
    assert "## Exact counts" in md and "| 0.25 GiB | page |" in md


def test_a_size_the_host_cannot_hold_fails_alone(tmp_path):
    out = str(tmp_path / "results")
    rc, text = harness("run", "--hosted", "--sizes", "1", "--runs", "1", "--out", out,
                       env={"BOOTHEAP_HOST_MEM_LIMIT": "1M"})
    assert rc == 1, text
    assert "boot ended no-memory (runner exit 3)" in text
    assert "not enough memory on this host" in text


def test_a_run_stopped_between_sizes_names_the_sizes_missing(tmp_path):
    """SIGTERM once the first size is done: the folder holds that size,
    says which it did not reach, and `report` reads it again, naming them."""
    import signal
    out = str(tmp_path / "results")
    p = subprocess.Popen([sys.executable, "-m", "harness", "run", "--hosted", "--sizes", "0.25,0.5,1",
                          "--runs", "1", "--strategies", "chunk", "--out", out], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said = []
    for line in p.stdout:
        said.append(line)
        if "[1/3] 0.25 GiB: ok" in line:
            p.send_signal(signal.SIGTERM)
            break
    said += p.stdout.readlines()
    assert p.wait(timeout=300) in (1, 130), "".join(said)
    s = load_folder(out)
    assert s.sizes[0].nbytes == 256 << 20 and s.missing and (1 << 30) in s.missing, s.missing
    rc, text = harness("report", out)
    assert rc == 1, text
    assert "the run stopped before" in text and "1 GiB" in text
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    assert "**Incomplete run.** It planned 3 sizes and stopped before" in md


def test_two_runs_over_sizes_side_by_side(tmp_path):
    """run --repeat: both runs, then repeat.md with each strategy-size's two figures."""
    out = str(tmp_path / "twice")
    rc, text = harness("run", "--hosted", "--repeat", "--sizes", "0.25", "--runs", "2",
                       "--strategies", "chunk,lazy", "--out", out)
    assert rc == 0, text
    with open(os.path.join(out, "repeat.md")) as f:
        md = f.read()
    assert os.path.isdir(os.path.join(out, "1")) and os.path.isdir(os.path.join(out, "2"))
    assert "| 0.25 GiB | chunk | init |" in md and "| 0.25 GiB | lazy | init |" in md
    assert "## Which estimator repeats" in md and "| median (the headline) |" in md
    rc, again = harness("repeat", os.path.join(out, "1"), os.path.join(out, "2"), "--out",
                        str(tmp_path / "again.md"))
    assert rc == 0 and (tmp_path / "again.md").read_text().split("\n", 5)[5] == md.split("\n", 5)[5]


def test_a_stop_between_sizes_waits_and_one_during_a_size_ends_it():
    """The race CI once lost: SIGTERM while the run printed a size's line
    raised out of the print. Between sizes a stop is only noted; during a
    size's run it ends that run."""
    from harness.sizes import run as sizes_run
    try:
        sizes_run._STOP.update(asked=False, running=False)
        sizes_run._stop(signal.SIGTERM, None)
        assert sizes_run._STOP["asked"]
        sizes_run._STOP.update(asked=False, running=True)
        with pytest.raises(KeyboardInterrupt):
            sizes_run._stop(signal.SIGTERM, None)
        assert sizes_run._STOP == {"asked": True, "running": False}
    finally:
        sizes_run._STOP.update(asked=False, running=False)
