# SPDX-License-Identifier: MIT
"""The runs a hosted run over sizes adds: after its passes, more passes over the
sizes whose windows of 1 ms and more are wider than the interval target
(or have no interval yet), cheapest size first, while each fits in the
time budget; then the width reached, and the windows the budget left wide."""
import time

from harness.common import gib_text, say, warn
from harness.report.intervals import wide_text, wide_windows
from harness.results.records import load_jsonl, passes_of

# Without --budget the added runs stop where the run over sizes would pass
# this many seconds from its start (its target is under 300 s); and no size
# goes past MAX_RUNS.
RUN_BUDGET_S = 280.0
MAX_RUNS = 20


def boot_cost(run):
    """Seconds one more boot of one run at this size should take: the mean of
    its one-run boots so far (else a boot's time over its runs)."""
    boots = [(p.harness or {}).get("elapsed_s") or 0 for p in passes_of(run)
             if (p.first("bench") or {}).get("runs") == 1]
    if boots:
        return sum(boots) / len(boots)
    h, runs = run.harness or {}, (run.first("bench") or {}).get("runs") or 1
    return (h.get("elapsed_s") or 0) / runs


def choose(results, plan, left):
    """(sizes to run again this pass, cheapest first, their cost in seconds,
    the wide windows) within `left` seconds."""
    sizes = [r.nbytes for r in results.sizes if r.nbytes not in plan.one_boot]
    wide = wide_windows(results, sizes=sizes)
    chosen, cost = [], 0.0
    runs = {r.nbytes: r for r in results.sizes}
    for n in sorted({w[0] for w in wide}, key=lambda n: boot_cost(runs[n])):
        c = boot_cost(runs[n])
        if cost + c <= left and len(passes_of(runs[n])) < MAX_RUNS:
            chosen.append(n)
            cost += c
    return chosen, cost, wide


def add_runs(plan, args, path, start, boot):
    """Passes of one run at the sizes whose intervals are wide, within the
    budget: args.budget seconds from now, else (the default sizes) what is
    left of RUN_BUDGET_S from the start -> False when stopped."""
    budget = getattr(args, "budget", None)
    deadline = time.monotonic() + budget if budget is not None else start + RUN_BUDGET_S
    k = plan.passes
    while True:
        results = load_jsonl(path)
        chosen, cost, wide = choose(results, plan, deadline - time.monotonic())
        if not wide or not chosen:
            break
        say(f"bench: added pass {k + 1}: {len(wide)} window(s) wider than the target; "
            f"{', '.join(gib_text(n) for n in chosen)}, about {cost:.0f} s")
        for i, n in enumerate(chosen, 1):
            if not boot(k, n, f"added pass {k + 1}, [{i}/{len(chosen)}]"):
                return False
        k += 1
    results = load_jsonl(path)
    left = wide_windows(results, sizes=[r.nbytes for r in results.sizes])
    say(f"bench: intervals after {k - plan.passes} added pass(es): "
        + (f"{len(left)} window(s) of 1 ms and more still wider than the target or without an interval: "
           f"{wide_text(left)}" if left else "every window of 1 ms and more within the target"))
    if left:
        warn("bench: the time budget could not reach the interval target at those windows")
    return True
