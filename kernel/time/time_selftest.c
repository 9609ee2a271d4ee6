// SPDX-License-Identifier: MIT
// In-kernel self-tests of the calibrated TSC on the machine it runs on: each
// clock that is not the source times an interval that the TSC times too.
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "kernel/time/calibrate.h"
#include "kernel/time/hpet.h"
#include "kernel/time/pit.h"
#include "kernel/time/tsc.h"
#include "kernel/time/tsc_math.h"

/*
 * A 10 ms interval of another clock, measured again with the TSC, must come
 * out as the same ns within twice the agreement tolerance plus both
 * uncertainties: the chosen rate may itself sit that far from the clock's
 * figure, and one interval adds its own edge noise. Intervals with a stall
 * at an edge (common under TCG on a busy host) are not evidence either way,
 * so up to 12 are tried for 3 clean ones, and their median is judged.
 */
#define SELFTEST_MS         10u
#define SELFTEST_WANT       3u
#define SELFTEST_TRIES      12u
/* A sample bracket wider than this share of the interval is a stall, in ppm. */
#define SELFTEST_BRACKET_PPM 50u

static char skip_why[96];

/* Whether s can check the rate; skips t with the reason when it cannot. */
static bool can_check(struct ktest *t, enum tsc_src s)
{
    const char *why = time_check_skip(time_result(), s, skip_why, sizeof(skip_why));

    if (why)
        KT_SKIP(t, why);
    return !why;
}

static int64_t median_ppm(int64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return v[n / 2];
}

/* Judges the TSC's ns against the clock's over n clean intervals. */
static void judge(struct ktest *t, enum tsc_src s, int64_t *ppm, unsigned n, unsigned tries)
{
    const struct time_result *r = time_result();
    int64_t tol = 2 * TSC_AGREE_PPM + r->choice.unc_ppm + r->clk[s].unc_ppm;
    int64_t got;

    if (!KT_EXPECT(t, n >= 1, "none of %u %s intervals was clean", tries, tsc_src_name(s)))
        return;
    got = median_ppm(ppm, n);
    serial_printk("# tsc_%s_interval: TSC vs %s %+lld ppm, median of %u clean of %u\n",
                  tsc_src_name(s), tsc_src_name(s), (long long)got, n, tries);
    KT_EXPECT(t, got >= -tol && got <= tol, "TSC ns %+lld ppm from the %s's (tolerance %lld)",
              (long long)got, tsc_src_name(s), (long long)tol);
}

/* The PIT's own windows, as the calibration ran them, timed again. */
SELFTEST(tsc_pit_interval)
{
    const struct tsc_pit_setup *pit = &time_result()->cal.pit;
    uint64_t expect_ns = tsc_muldiv(pit_clocks_x2(pit->latch, pit->loads_next_clock), NS_PER_S,
                                    2 * PIT_HZ);
    int64_t ppm[SELFTEST_WANT];
    unsigned n = 0, tries;

    if (!can_check(t, TSC_SRC_PIT))
        return;
    for (tries = 0; n < SELFTEST_WANT && tries < SELFTEST_TRIES; tries++) {
        struct tsc_window w;

        pit_oneshot(pit->latch, tsc_muldiv(tsc_hz(), 4ull * pit->ms, 1000u), &w);
        if (tsc_window_check(&w, pit) == TSC_WIN_OK)
            ppm[n++] = tsc_ppm(tsc_to_ns(w.ticks), expect_ns);
    }
    judge(t, TSC_SRC_PIT, ppm, n, tries);
}

/* The HPET or the PM timer: a counter read at both ends of the interval. */
static void counter_interval(struct ktest *t, enum tsc_src s, const struct ref *ref)
{
    int64_t ppm[SELFTEST_WANT];
    unsigned n = 0, tries;

    if (!can_check(t, s))
        return;
    hpet_run(&time_result()->cal.hpet, true);
    for (tries = 0; n < SELFTEST_WANT && tries < SELFTEST_TRIES; tries++) {
        uint64_t ticks, bracket, count = ref_interval(ref, SELFTEST_MS, &ticks, &bracket);

        if (count && bracket <= tsc_muldiv(ticks, SELFTEST_BRACKET_PPM, 1000000u))
            ppm[n++] = tsc_ppm(tsc_to_ns(ticks), tsc_muldiv(count, ref->den * NS_PER_S, ref->num));
    }
    hpet_run(&time_result()->cal.hpet, false);
    judge(t, s, ppm, n, tries);
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
