// SPDX-License-Identifier: MIT
// In-kernel self-tests of the calibrated TSC on the machine it runs on: each
// clock that is not the source times an interval that the TSC times too.
#include "kernel/console/printk.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/selftest.h"
#include "kernel/lib/sort.h"
#include "kernel/time/calibrate.h"
#include "kernel/time/hpet.h"
#include "kernel/time/pit.h"
#include "kernel/time/tsc.h"
#include "kernel/time/tsc_math.h"

/*
 * A 10 ms interval of another clock, measured again with the TSC. The TSC's
 * ns (at the chosen rate) against the clock's differ by what the calibration
 * measured between the two: the clock's own figure for the TSC rate against
 * the chosen one. The interval must land there, within the clock's measured
 * uncertainty and the interval's own (its edges' brackets and one count):
 * both are the kernel's figures, not a tolerance picked here. Intervals with
 * a stall at an edge (common under TCG on a busy host) are not evidence
 * either way, so up to 12 are tried for 3 clean ones and their median is
 * judged; with none clean the result is inconclusive, never a failure.
 */
#define SELFTEST_MS         10u
#define SELFTEST_WANT       3u
#define SELFTEST_TRIES      12u
/* A sample bracket wider than this share of the interval is a stall, in ppm. */
#define SELFTEST_BRACKET_PPM 50u

/* One clean interval: the TSC's ns against the clock's, and how far that may be off. */
struct interval {
    int64_t ppm;
    uint64_t unc_ppm;
};

/*
 * Whether s can check the rate: 1 to judge its intervals against the
 * calibration's figure, 2 to judge them against the chosen rate because the
 * calibration found s disagreeing (recheck holds why), 0 when t has ended
 * as skipped or inconclusive, saying why.
 */
static int can_check(struct ktest *t, enum tsc_src s, char *recheck, size_t len)
{
    enum time_check check = time_check_clock(time_result(), s, recheck, len);

    if (check == TIME_CHECK_SKIP)
        ktest_skip(t, "%s", recheck);
    else if (check == TIME_CHECK_INCONCLUSIVE)
        ktest_inconclusive(t, "%s", recheck);
    return check == TIME_CHECK_RUN ? 1 : check == TIME_CHECK_FAIL ? 2 : 0;
}

static bool interval_before(const void *a, const void *b)
{
    return ((const struct interval *)a)->ppm < ((const struct interval *)b)->ppm;
}

/*
 * Judges the TSC's ns against the clock's over n clean intervals. With
 * recheck (the calibration found the clock disagreeing with the chosen
 * rate, for the reason it holds), fresh intervals decide whether that
 * disagreement is real: windows that looked clean on a busy emulated host
 * have been seen off by 0.2% to 20%. If the fresh ones disagree too, the
 * clock or the rate is wrong: a failure. If they agree with the chosen
 * rate, the calibration's figure did not repeat: inconclusive.
 */
static void judge(struct ktest *t, enum tsc_src s, struct interval *v, unsigned n, unsigned tries,
                  const char *recheck)
{
    const struct time_result *r = time_result();
    const char *name = tsc_src_name(s);
    int64_t expect = recheck ? 0 : tsc_ppm(r->clk[s].hz, r->choice.hz), got, bound;
    uint64_t worst = 0;

    if (n == 0) {
        ktest_inconclusive(t, "%s%snone of %u %s intervals was clean (both edges bracketed within "
                           "%u ppm)", recheck ? recheck : "", recheck ? "; " : "", tries, name,
                           SELFTEST_BRACKET_PPM);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        worst = MAX(worst, v[i].unc_ppm);
    sort(v, n, sizeof(*v), interval_before);
    /* The median is one of the intervals: within its own uncertainty of the truth. */
    got = v[n / 2].ppm;
    bound = recheck ? (int64_t)(tsc_agree_ppm(r->clk[s].kind) + r->choice.unc_ppm + worst) + 1
                    : (int64_t)(r->clk[s].unc_ppm + worst) + 1;
    serial_printk("# tsc_%s_interval: TSC vs %s %+lld ppm, median of %u clean of %u; expected %+lld "
                  "+-%lld (the %s%s +-%u, an interval +-%llu, rounding 1)\n", name, name,
                  (long long)got, n, tries, (long long)expect, (long long)bound,
                  recheck ? "chosen rate" : name, recheck ? "" : "'s figure",
                  recheck ? tsc_agree_ppm(r->clk[s].kind) + r->choice.unc_ppm : r->clk[s].unc_ppm,
                  (unsigned long long)worst);
    bool within = got >= expect - bound && got <= expect + bound;
    if (recheck && within) {
        ktest_inconclusive(t, "%s; but %u fresh clean intervals agree with the chosen rate "
                           "(%+lld ppm, within %lld): the calibration's windows were disturbed",
                           recheck, n, (long long)got, (long long)bound);
        return;
    }
    if (recheck) {
        KT_EXPECT(t, false, "%s; and %u fresh clean intervals disagree too: %+lld ppm, beyond %lld",
                  recheck, n, (long long)got, (long long)bound);
        return;
    }
    KT_EXPECT(t, within, "TSC ns %+lld ppm from the %s's, %+lld expected within %lld", (long long)got,
              name, (long long)expect, (long long)bound);
}

/* The PIT's own windows, as the calibration ran them, timed again. */
SELFTEST(tsc_pit_interval)
{
    const struct tsc_pit_setup *pit = &time_result()->cal.pit;
    uint64_t expect_ns = tsc_muldiv(pit_clocks_x2(pit->latch, pit->loads_next_clock), NS_PER_S,
                                    2 * PIT_HZ);
    struct interval v[SELFTEST_WANT];
    unsigned n = 0, tries;
    char recheck[sizeof(t->why)];
    int how = can_check(t, TSC_SRC_PIT, recheck, sizeof(recheck));

    if (!how)
        return;
    for (tries = 0; n < SELFTEST_WANT && tries < SELFTEST_TRIES; tries++) {
        struct tsc_window w;

        pit_oneshot(pit->latch, tsc_muldiv(tsc_hz(), 4ull * pit->ms, 1000u), &w);
        if (tsc_window_check(&w, pit) == TSC_WIN_OK)
            v[n++] = (struct interval){ tsc_ppm(tsc_to_ns(w.ticks), expect_ns),
                                        tsc_window_edge_ppm(&w) + tsc_load_phase_ppm(pit) };
    }
    judge(t, TSC_SRC_PIT, v, n, tries, how == 2 ? recheck : NULL);
}

/* The HPET or the PM timer: a counter read at both ends of the interval. */
static void counter_interval(struct ktest *t, enum tsc_src s, const struct ref *ref)
{
    struct interval v[SELFTEST_WANT];
    unsigned n = 0, tries;
    char recheck[sizeof(t->why)];
    int how = can_check(t, s, recheck, sizeof(recheck));

    if (!how)
        return;
    hpet_run(&time_result()->cal.hpet, true);
    for (tries = 0; n < SELFTEST_WANT && tries < SELFTEST_TRIES; tries++) {
        uint64_t ticks, bracket, count = ref_interval(ref, SELFTEST_MS, &ticks, &bracket);

        /* Each end is known to within half the wider bracket, and the count to one. */
        if (count && bracket <= tsc_muldiv(ticks, SELFTEST_BRACKET_PPM, 1000000u))
            v[n++] = (struct interval){
                tsc_ppm(tsc_to_ns(ticks), tsc_muldiv(count, ref->den * NS_PER_S, ref->num)),
                tsc_muldiv(bracket, 1000000u, ticks) + (1000000u + count - 1) / count };
    }
    hpet_run(&time_result()->cal.hpet, false);
    judge(t, s, v, n, tries, how == 2 ? recheck : NULL);
}

SELFTEST(tsc_hpet_interval)
{
    counter_interval(t, TSC_SRC_HPET, &time_result()->cal.hpet);
}

SELFTEST(tsc_pmtimer_interval)
{
    counter_interval(t, TSC_SRC_PMTIMER, &time_result()->cal.pm);
}

/*
 * The scale in use against long division, for intervals from one tick to an
 * hour: tsc_to_ns() multiplies and shifts, tsc_muldiv() divides by shift and
 * subtract, and the first must give the second's floor of ticks * 10^9 / hz
 * or one more. Uncalibrated, no interval but 0 has a figure.
 */
SELFTEST(tsc_scale_matches_division)
{
    uint64_t hz = tsc_hz(), bad = 0, checked = 0;

    KT_EXPECT(t, tsc_to_ns(0) == 0, "tsc_to_ns(0) = %llu", (unsigned long long)tsc_to_ns(0));
    if (!tsc_calibrated()) {
        KT_EXPECT(t, tsc_to_ns(1) == TSC_NS_UNKNOWN, "uncalibrated tsc_to_ns(1) pretends");
        return;
    }
    for (uint64_t ticks = 1; ticks <= hz * 3600; ticks = ticks * 3 + 1, checked++) {
        uint64_t want = tsc_muldiv(ticks, NS_PER_S, hz), got = tsc_to_ns(ticks);

        if ((got != want && got != want + 1) && bad++ < 3)
            KT_EXPECT(t, false, "%llu ticks at %llu Hz: %llu ns, long division says %llu",
                      (unsigned long long)ticks, (unsigned long long)hz,
                      (unsigned long long)got, (unsigned long long)want);
    }
    KT_EXPECT(t, bad == 0, "%llu of %llu intervals off", (unsigned long long)bad,
              (unsigned long long)checked);
}
