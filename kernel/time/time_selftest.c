// SPDX-License-Identifier: MIT
// In-kernel self-tests of the calibrated TSC on the machine it runs on.
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "kernel/time/calibrate.h"
#include "kernel/time/pit.h"
#include "kernel/time/tsc.h"
#include "kernel/time/tsc_math.h"

/*
 * A PIT-timed 10 ms, measured again with the TSC, must come out as 10 ms in
 * ns within 2000 ppm: twice the agreement tolerance, since the chosen rate
 * may itself sit up to TSC_AGREE_PPM from the PIT's, plus one window's edge
 * noise. Intervals that fail the window rule (a stall at an edge, common
 * under TCG on a busy host) are not evidence either way, so up to 12 are
 * tried for 3 clean ones, and their median is judged.
 */
#define SELFTEST_PIT_US     10000u
#define SELFTEST_TOL_PPM    (2 * TSC_AGREE_PPM)
#define SELFTEST_WANT       3u
#define SELFTEST_TRIES      12u

/* The PIT's own figure is off the chosen rate: a lying PIT. */
static bool pit_disagrees(const struct time_result *r)
{
    int64_t off = r->cal.res.hz ? tsc_ppm(r->cal.res.hz, r->choice.hz) : 0;

    return off > (int64_t)TSC_AGREE_PPM || off < -(int64_t)TSC_AGREE_PPM;
}

SELFTEST(tsc_pit_interval)
{
    const struct time_result *r = time_result();
    uint32_t latch = pit_latch_for_us(SELFTEST_PIT_US);
    uint64_t expect_ns = tsc_muldiv(latch, NS_PER_S, PIT_HZ);
    uint64_t ns[SELFTEST_WANT], got;
    unsigned n = 0, tries = 0;
    int64_t ppm;

    if (!tsc_calibrated() || !r->cal.pit_fires || pit_disagrees(r)) {
        KT_SKIP(t, !tsc_calibrated() ? "the TSC is uncalibrated"
                   : !r->cal.pit_fires ? "the PIT is dead"
                   : "the PIT disagreed with the chosen rate");
        return;
    }
    while (n < SELFTEST_WANT && tries++ < SELFTEST_TRIES) {
        struct tsc_window w;

        pit_oneshot(latch, tsc_muldiv(tsc_hz(), 4 * SELFTEST_PIT_US, 1000000u), &w);
        if (tsc_window_check(&w, latch) == TSC_WIN_OK)
            ns[n++] = tsc_to_ns(w.ticks);
    }
    if (!KT_EXPECT(t, n >= 1, "none of %u PIT intervals was clean", SELFTEST_TRIES))
        return;
    got = tsc_median(ns, n);
    ppm = tsc_ppm(got, expect_ns);
    serial_printk("# tsc_pit_interval: PIT %llu ns, TSC %llu ns (%+lld ppm), median of %u "
                  "clean of %u\n", (unsigned long long)expect_ns, (unsigned long long)got,
                  (long long)ppm, n, tries);
    KT_EXPECT(t, ppm >= -(int64_t)SELFTEST_TOL_PPM && ppm <= (int64_t)SELFTEST_TOL_PPM,
              "PIT interval %llu ns, TSC says %llu ns (%+lld ppm, tolerance %u)",
              (unsigned long long)expect_ns, (unsigned long long)got, (long long)ppm,
              SELFTEST_TOL_PPM);
}

/* The scale in use converts its own rate's second to 10^9 ns, and 0 to 0. */
SELFTEST(tsc_scale_second)
{
    if (!tsc_calibrated()) {
        KT_EXPECT(t, tsc_to_ns(1) == TSC_NS_UNKNOWN, "uncalibrated tsc_to_ns(1) pretends");
        return;
    }
    KT_EXPECT(t, tsc_to_ns(0) == 0, "tsc_to_ns(0) = %llu", (unsigned long long)tsc_to_ns(0));
    KT_EXPECT(t, tsc_to_ns(tsc_hz()) == NS_PER_S, "one second of ticks is %llu ns",
              (unsigned long long)tsc_to_ns(tsc_hz()));
}
