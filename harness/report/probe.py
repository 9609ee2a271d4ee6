# SPDX-License-Identifier: MIT
"""Whether a hosted run's core-clock probe can be read as a clock: its
`clock_probe` record's verdict (hosted/platform/probe.c), or, for records
made before the runner checked its probe, the same bounds applied here to
the clock the windows carry. A probe that reads implausibly is named,
never shown as a clock, and the shared-core count it feeds is unknown."""
from harness.common import gib_text
from harness.results.stats import median

# The runner's bounds (hosted/platform/probe.c): a clock under 0.3x or over
# 1.6x the TSC's rate is no clock; the second chain within 10% of the first.
LOW_X_TSC = 0.30
HIGH_X_TSC = 1.60
CHECK_TOLERANCE = 0.10
OLD_PROBE = "a chain of `add $1, reg`, before the runner checked its probe"


class Clock:
    """One size's verdict: reliable, the MHz read, the TSC's MHz, the ratio,
    why it is not believed ('' when it is), and which probe read it."""

    def __init__(self, reliable, mhz, tsc_mhz, why, chain, check_mhz=None, issue_ok=None):
        self.reliable, self.mhz, self.tsc_mhz, self.why = reliable, mhz, tsc_mhz, why
        self.chain, self.check_mhz = chain, check_mhz
        self.issue_ok = reliable if issue_ok is None else issue_ok

    @property
    def x_tsc(self):
        return self.mhz / self.tsc_mhz if self.tsc_mhz else None


def judge(mhz, tsc_mhz, check_mhz=None):
    """(reliable, why) for a probe that read mhz against a TSC of tsc_mhz,
    and a second chain that read check_mhz (None: there was none)."""
    if not mhz:
        return False, "it read nothing"
    if not tsc_mhz:
        return False, "the TSC is not calibrated, so there is nothing to check the probe against"
    x = mhz / tsc_mhz
    if not LOW_X_TSC <= x <= HIGH_X_TSC:
        return False, f"it reads {x:.2f}x the TSC's rate, outside {LOW_X_TSC:.2f}-{HIGH_X_TSC:.2f}x"
    if check_mhz is not None and abs(check_mhz / mhz - 1) > CHECK_TOLERANCE:
        return False, f"the second chain reads {check_mhz} MHz, more than {CHECK_TOLERANCE:.0%} from it"
    return True, ""


def clock_of(run):
    """The Clock of one size, or None when its windows carry no probe at all."""
    rec = run.first("clock_probe")
    if rec:
        return Clock(bool(rec.get("reliable")), rec.get("mhz") or 0, rec.get("tsc_mhz") or 0,
                     rec.get("why") or "", rec.get("chain", "?"), rec.get("check_mhz"),
                     bool(rec.get("issue_reliable")))
    read = [r["mhz"] for r in run.of("cpu_time") if r.get("mhz")]
    if not read:
        return None
    tsc = ((run.first("bench") or {}).get("tsc_khz") or 0) // 1000
    ok, why = judge(median(read), tsc)
    return Clock(ok, median(read), tsc, why, OLD_PROBE)


def believed(run):
    """(clock believed, issue believed) for one size: both False without a probe."""
    c = clock_of(run)
    return (bool(c and c.reliable), bool(c and c.reliable and c.issue_ok))


def probe_text(results):
    """What the report says of the probes: one sentence when every size's is
    believed, and each size whose is not, named with what it read."""
    clocks = [(run, clock_of(run)) for run in results.sizes]
    clocks = [(run, c) for run, c in clocks if c]
    if not clocks:
        return ""
    bad = [(run, c) for run, c in clocks if not c.reliable]
    good = [c for _, c in clocks if c.reliable]
    out = []
    if good:
        xs = [c.x_tsc for c in good]
        out.append(f"The core-clock probe ({good[0].chain}) read {min(c.mhz for c in good):,} to "
                   f"{max(c.mhz for c in good):,} MHz at start, {min(xs):.2f}x to {max(xs):.2f}x the TSC's "
                   f"rate" + (", the second chain within "
                              f"{CHECK_TOLERANCE:.0%} of it" if all(c.check_mhz for c in good) else "")
                   + f", in {len(good)} of {len(clocks)} sizes.")
    for run, c in bad:
        out.append(f"**Probe UNRELIABLE at {gib_text(run.nbytes)}**: it ({c.chain}) read {c.mhz:,} MHz against a TSC "
                   f"of {c.tsc_mhz:,} MHz, but {c.why}. Its windows show no clock, and whether they shared "
                   "a core is unknown.")
    return " ".join(out)
