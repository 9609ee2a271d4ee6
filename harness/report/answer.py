# SPDX-License-Identifier: MIT
"""The answer `make run` ends with when its boot was emulated: TCG times
emulated instructions, so the hosted runner (harness/hosted/runner.py)
runs the same heap code at the same size on this machine's real CPU, and
the two figures are printed one under the other, each labelled for what it
is. A newcomer without a fast hypervisor then reads a real figure first."""
import sys

from harness.common import gib_text, size_label
from harness.hosted import runner as hosted
from harness.report.cputime import cpu_times
from harness.results.records import SizeRun, parse_serial
from harness.results.stats import NEW, OLD, SizeStats, median, paired_speedup

TCG_WHAT = "TCG, emulated: QEMU translating every guest instruction; times say nothing of memory"
HOST_WHAT = "hosted, real: this CPU running the same heap code in user space; CPU time"


def _size_run(nbytes, text):
    run = SizeRun(nbytes)
    run.records, _ = parse_serial(text)
    return run


def hosted_options(append):
    """The kernel options of the hosted run: the boot's own, page and chunk
    alone unless it chose its strategies, three runs unless it chose."""
    words = append.split()
    if not any(w.startswith("strategies=") for w in words):
        words.append(f"strategies={OLD},{NEW}")
    if not any(w.startswith("runs=") for w in words):
        words.append("runs=3")
    return words


def tcg_line(run):
    """The emulated boot's page/chunk ratio, labelled; None without both."""
    ratio = SizeStats(run).speedup(NEW)
    return None if ratio is None else \
        f"chunked init is {ratio:.2f}x faster than page-by-page at {gib_text(run.nbytes)} ({TCG_WHAT})"


def host_line(run):
    """The hosted run's page/chunk ratio by CPU time, paired by run, with
    each one's ns a page, labelled; None without both."""
    cpu, pages = cpu_times(run), (run.first("bench") or {}).get("pages")
    old, new = cpu.get((OLD, "init")), cpu.get((NEW, "init"))
    if not old or not new or not pages:
        return None
    ratio = paired_speedup(old, new)
    return (f"chunked init is {ratio:.2f}x faster than page-by-page at {gib_text(run.nbytes)} "
            f"({median(list(old.values())) / pages:.2f} and {median(list(new.values())) / pages:.2f} ns a "
            f"page; {HOST_WHAT})")


def after_tcg(result, mem_bytes, append, say=None, runner=hosted.RUNNER):
    """Runs the hosted runner at mem_bytes after an emulated boot and prints
    both answers, the emulated one first -> (the hosted run's Result, the
    answer's lines as printed)."""
    say = say or (lambda m: print(m, file=sys.stderr, flush=True))
    options = " ".join(hosted_options(append))
    say(f"harness: that boot was emulated; the same heap code on this CPU: bootheap-host --mem "
        f"{size_label(mem_bytes)} {options}")
    r = hosted.run(mem_bytes, options, None, 600, runner)
    lines = [tcg_line(_size_run(mem_bytes, result.log))]
    if r.status == "ok":
        lines.append(host_line(_size_run(mem_bytes, r.log)))
    else:
        say(f"harness: the hosted run ended {r.status} (exit {r.runner_rc}): {r.stderr.strip()[-300:]}")
    out = ["The answer, twice (emulated, then real):"]
    out += [f"  {label:>9}: {text or 'no figure (page and chunk did not both run)'}"
            for label, text in zip(("emulated", "this CPU"), lines)]
    print("\n".join(out), flush=True)
    return r, out
