# SPDX-License-Identifier: MIT
"""The hosted runner from the host side: one run of build/bootheap-host per
size for the run over sizes (`run --hosted`, `make bench-host`), and `hosted`: one
run on a memory map of any kind (harness/results/maps.py). What the report says of
hosted runs is in harness/report/hosted.py."""
import os
import subprocess
import sys
import tempfile
import time

from harness import ROOT
from harness.results import maps
from harness.common import GIB, gib_text, parse_size, size_label, warn

RUNNER = os.path.join(ROOT, "build", "bootheap-host")
# Xen 4.17's chunked init as its cover letter timed it (mm/strategies/init_chunk_72b02bc.c).
LETTER = "chunk-72b02bc"
SIZES_GIB = (1, 2, 4, 8, 16, 32, 64, 90, 256, 1024)
# Six runs, the fewest whose extremes hold the median at 95 % (harness/results/intervals.py),
# spread over six passes of the sizes, a boot a size each.
RUNS = 6
# Above this size a boot's setup (the tables faulted in: 21 s at 1 TiB)
# costs as much as a run, so the default run over sizes takes the size in one boot of
# ONE_BOOT_RUNS runs, and its figures have no interval.
PASSES_UP_TO = 256 * GIB
ONE_BOOT_RUNS = 3
# The first touch costs about 50 ns a page on the host CPU against 1 to 3 for
# the fast inits: at these sizes and above the default run over sizes times it
# in the first run only (touch_runs=1), which keeps it within minutes; `run
# --hosted --full` (make bench-host MODE=full) times it in every run.
TOUCH_SAMPLED_FROM = 64 * GIB
# Above this size the default run over sizes has Xen's strategies alone: the peers'
# page arrays (152 bytes a page between them) tripled the tables to reset
# before every window and made 256 GiB the longest size, while
# their figures a page hold still from 16 GiB up. --full keeps them.
PEERS_UP_TO = 90 * GIB
XEN_STRATEGIES = ("page", "chunk", LETTER, "sweep", "lazy")
# page runs at 34 to 53 ns a page at every size, 14 s a run at 1 TiB: with
# its resets and audits a fifth of the whole run over sizes. Above this size
# the default leaves it out; --full keeps it.
PAGE_UP_TO = 256 * GIB
# The runner's exit statuses (hosted/platform/runner.h).
STATUS = {0: "ok", 1: "fail", 2: "bad-input", 3: "no-memory"}
MEANS = ("user space, the kernel's heap code, this machine's real CPU and memory, "
         "no hypervisor of bootheap's own")
HOSTED_LABEL = "HOSTED: " + MEANS


class Result:
    """One run of the runner, shaped as harness.qemu's Result for the run over sizes."""

    def __init__(self, status, rc, log, elapsed, cmd, stderr=""):
        self.status, self.runner_rc, self.log, self.elapsed, self.cmd = status, rc, log, elapsed, cmd
        self.stderr = stderr
        self.accel = "host"
        self.qemu_rc = None


def run(nbytes, append, log_path, timeout, runner=RUNNER):
    """Runs the runner on q35's map of nbytes with the kernel options in
    append; BOOTHEAP_HOST_MEM_LIMIT, when set, caps its memory (--mem-limit)."""
    if not os.access(runner, os.X_OK):
        raise RuntimeError(f"{runner} is missing: run `make hosted`")
    cmd = [runner, "--mem", size_label(nbytes)]
    if os.environ.get("BOOTHEAP_HOST_MEM_LIMIT"):
        cmd += ["--mem-limit", os.environ["BOOTHEAP_HOST_MEM_LIMIT"]]
    cmd += append.split()
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout or None)
        status, rc, out, err = STATUS.get(p.returncode, "fail"), p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        status, rc, err = "timeout", None, ""
    if log_path:
        with open(log_path, "w", encoding="utf-8") as f:
            f.write(out)
    return Result(status, rc, out, time.monotonic() - t0, cmd, err)


def size_append(nbytes, append, full):
    """The kernel options for one size of the run over sizes: append, plus
    touch_shared (the eager strategies' first touch timed once a run, for
    all of them), touch_runs=1 where the first touch is sampled, Xen's
    strategies alone above PEERS_UP_TO and page left out above PAGE_UP_TO,
    unless append names its own."""
    if full:
        return append
    words = append.split()
    if not any(w == "touch_shared" for w in words):
        words.append("touch_shared")
    if nbytes >= TOUCH_SAMPLED_FROM and not any(w.startswith("touch_runs=") for w in words):
        words.append("touch_runs=1")
    if nbytes > PEERS_UP_TO and not any(w.startswith("strategies=") for w in words):
        words.append("strategies=" + ",".join(s for s in XEN_STRATEGIES if nbytes <= PAGE_UP_TO or s != "page"))
    return " ".join(words)


def sampling_note():
    return ("the eager strategies build the same heap, so their first touch is timed after one "
            "of them a run, in turn, and shared (touch_shared); from "
            f"{gib_text(TOUCH_SAMPLED_FROM)} up in the first run only (touch_runs=1); above "
            f"{gib_text(PEERS_UP_TO)} Xen's strategies alone run, without the peers, and above "
            f"{gib_text(PAGE_UP_TO)} without page; --full "
            "(make bench-host-full) times every strategy's first touch in every run, and runs page and "
            "the peers at every size they fit")


def cmd_hosted(args):
    """One run of the runner, on the map args.map of any kind (made a map
    file first), or on q35's map of args.mem -> the runner's exit status."""
    if not os.access(args.runner, os.X_OK):
        raise RuntimeError(f"{args.runner} is missing: run `make hosted`")
    cmd = [args.runner]
    if args.mem_limit:
        cmd += ["--mem-limit", args.mem_limit]
    if args.cpus:
        cmd += ["--cpus", args.cpus]
    if args.map_only:
        cmd.append("--map-only")
    cmd += args.append.split() + args.options
    with tempfile.TemporaryDirectory(prefix="bootheap-map-") as tmp:
        if args.map:
            m = maps.read(args.map, parse_size(args.mem) if args.mem else None)
            path = maps.write(m, args.keep_map or os.path.join(tmp, "map.txt"))
            warn(f"hosted: the map of {m.source}" +
                 (f", {len(m.entries)} ranges, as the map file {path}" if not m.plain else ""))
            cmd[1:1] = ["--map", path]
        else:
            cmd[1:1] = ["--mem", str(parse_size(args.mem or "8G"))]
        sys.stdout.flush()
        return subprocess.call(cmd)


def default_sizes():
    return [g * GIB for g in SIZES_GIB]
