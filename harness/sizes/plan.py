# SPDX-License-Identifier: MIT
"""The plan of a run over sizes: the accelerator, decided once for the whole
run, then the sizes, runs and kernel arguments that follow from it.
Everything the run boots runs under the plan's accelerator; nothing below
re-decides it."""
import re

from harness.common import DEFAULT_RUNS, DEFAULT_SIZES_GIB, GIB, BenchError, gib_text, parse_sizes, say
from harness.hosted import runner as hosted
from harness.qemu import accel as accel_mod

# Under TCG the whole default run over sizes takes about 4 minutes with 3
# runs (measured here), so an emulated one keeps the sizes and does fewer runs.
TCG_SIZES_GIB = DEFAULT_SIZES_GIB
TCG_RUNS = 3
QUICK_SIZES_GIB = (1, 4)
QUICK_RUNS = 3
DEFAULT_TIMEOUT = 600


class Plan:
    """What a run over sizes will do: mode ('pvh', 'iso-bios', 'iso-uefi' or
    'hosted'), accel ('kvm', 'tcg' or 'host'), sizes in bytes, runs a
    strategy, the kernel arguments, the notes a reader of its report needs,
    and whether every first touch is timed (hosted --full)."""

    def __init__(self, mode, accel, sizes, runs, append, notes, full=False, passes=1, one_boot=()):
        self.mode, self.accel, self.sizes, self.runs = mode, accel, sizes, runs
        self.append, self.notes, self.full = append, notes, full
        self.passes, self.one_boot = passes, set(one_boot)
        self.default = False            # the hosted run at its default sizes, runs and passes

    @property
    def hosted(self):
        return self.accel == "host"

    def pass_runs(self, nbytes):
        """[runs of each pass] at one size: the runs spread as evenly as the
        passes allow, the first passes taking one more; a size in one_boot
        runs ONE_BOOT_RUNS (or fewer) in the first pass alone."""
        if nbytes in self.one_boot:
            return [min(self.runs, hosted.ONE_BOOT_RUNS)] + [0] * (self.passes - 1)
        return [self.runs // self.passes + (k < self.runs % self.passes) for k in range(self.passes)]

    def boot_append(self, nbytes, runs, run0):
        """The kernel arguments of one boot of one pass: runs= that pass's, run0= the whole run's first."""
        append = re.sub(r"\bruns=\d+", f"runs={runs}", self.append)
        return append + (f" run0={run0}" if self.passes > 1 else "")


def sizes_and_runs(args, accel):
    """(sizes in bytes, runs, notes) for a run over sizes under `accel`."""
    notes = []
    if args.quick:
        sizes, runs = [s * GIB for s in QUICK_SIZES_GIB], QUICK_RUNS
    elif accel == "host":
        sizes, runs = hosted.default_sizes(), hosted.RUNS
    elif accel == "tcg":
        sizes, runs = [s * GIB for s in TCG_SIZES_GIB], TCG_RUNS
        if args.sizes is None:
            notes.append(f"TCG: reduced default sizes ({TCG_RUNS} runs per strategy instead of "
                         f"{DEFAULT_RUNS}) because every boot is emulated; "
                         "pass --sizes (and --runs) for others.")
    else:
        sizes, runs = [s * GIB for s in DEFAULT_SIZES_GIB], DEFAULT_RUNS
    if args.sizes is not None:
        sizes = parse_sizes(args.sizes)
    if args.runs is not None:
        if args.runs < 1:
            raise BenchError("--runs must be at least 1")
        runs = args.runs
    return sizes, runs, notes


def kernel_args(runs, strategies):
    append = f"runs={runs}"
    if strategies:
        names = [s.strip() for s in strategies.split(",") if s.strip()]
        for s in names:
            if not re.fullmatch(r"[a-z0-9_]+", s):
                raise BenchError(f"bad strategy name {s!r} in --strategies")
        append += " strategies=" + ",".join(names)
    return append


def choose_accel(args):
    """The run's accelerator, for the work of the whole default run
    (its sizes and runs as under KVM, the larger of the two)."""
    sizes, runs, _ = sizes_and_runs(args, "kvm")
    work = accel_mod.Work.for_boot(sum(sizes), kernel_args(runs, args.strategies))
    return accel_mod.choose(args.accel, args.mode, lambda m: say("bench: " + m.replace("harness: ", "")),
                            work)


def make(args):
    """The plan of `run` from its arguments: the accelerator first (the
    hosted runner needs none), the rest under it. Raises BenchError for a
    bad size, run count or strategy name."""
    full = bool(getattr(args, "full", False))
    if args.hosted:
        mode, accel = "hosted", "host"
    else:
        kernel_args(1, args.strategies)         # a bad name fails before any probe
        sizes_and_runs(args, "kvm")
        mode, accel = args.mode, choose_accel(args)
    sizes, runs, notes = sizes_and_runs(args, accel)
    if args.hosted and not full and any(n >= hosted.TOUCH_SAMPLED_FROM for n in sizes):
        notes.append(hosted.sampling_note())
    if getattr(args, "target", None) is not None and args.target <= 0:
        raise BenchError("--target must be a half-width over 0 (in % of the median)")
    passes = getattr(args, "passes", None)
    if passes is not None and passes < 1:
        raise BenchError("--passes must be at least 1")
    if not args.hosted:
        if passes not in (None, 1):
            raise BenchError("--passes is for the hosted run (--hosted): a boot under QEMU costs its setup again")
        passes = 1
    elif passes is None:
        passes = runs
    passes = min(passes, runs)
    # The default run takes its largest sizes in one boot (hosted.PASSES_UP_TO); --runs or --passes
    # asks for the runs as given.
    one_boot = [n for n in sizes if n > hosted.PASSES_UP_TO] if args.hosted and args.runs is None and \
        getattr(args, "passes", None) is None and not full else []
    if passes > 1:
        notes.append(f"each size's runs spread over {passes} passes of the sizes, a boot a size each (run0=)"
                     + (f"; {', '.join(gib_text(n) for n in one_boot)} in one boot of "
                        f"{min(runs, hosted.ONE_BOOT_RUNS)} runs, whose setup costs as much as a run"
                        if one_boot else ""))
    plan = Plan(mode, accel, sizes, runs, kernel_args(runs, args.strategies), notes, full, passes, one_boot)
    plan.default = bool(args.hosted and args.sizes is None and args.runs is None and not args.quick and
                        getattr(args, "passes", None) is None)
    return plan
