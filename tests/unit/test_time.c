// SPDX-License-Identifier: MIT
// Host tests for kernel/time/ (arithmetic, windows, choice) and kernel/acpi/acpi.c: the ns scale at its
// edges, the PIT window rule, the consensus, the choice of clock, ACPI tables.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kernel/acpi/acpi.h"
#include "kernel/time/choose.h"
#include "kernel/time/pmtimer.h"
#include "kernel/time/tsc_math.h"
#include "kernel/time/window.h"

typedef unsigned __int128 u128;

#define HOUR_NS 3600000000000ull

/* The exact floor(ticks * 10^9 / hz) and whether a remainder was left, by
 * the host's own 128-bit division: independent of the code under test. */
static u128 exact_ns(uint64_t ticks, uint64_t hz, bool *frac)
{
    u128 n = (u128)ticks * 1000000000u;

    *frac = n % hz != 0;
    return n / hz;
}

/* Result within [floor(E), floor(E) + 1] and never below E: |error| < 1 ns. */
static void check_ns(const struct tsc_scale *s, uint64_t ticks)
{
    bool frac;
    u128 e = exact_ns(ticks, s->hz, &frac);
    uint64_t got = tsc_scale_ns(s, ticks);

    if (e > UINT64_MAX) {
        assert_int_equal(got, UINT64_MAX);
        return;
    }
    if (got != (uint64_t)e) {
        /* Only a fractional E may round up, and by one. */
        if (!frac || got != (uint64_t)e + 1)
            fail_msg("hz %llu ticks %llu: got %llu, exact floor %llu%s",
                     (unsigned long long)s->hz, (unsigned long long)ticks,
                     (unsigned long long)got, (unsigned long long)e, frac ? " + fraction" : "");
    }
}

static void test_scale_exact_values(void **state)
{
    struct tsc_scale s;
    (void)state;

    assert_true(tsc_scale_init(&s, 1000000000u));          /* 1 GHz */
    assert_int_equal(tsc_scale_ns(&s, 0), 0);
    assert_int_equal(tsc_scale_ns(&s, 1), 1);
    assert_int_equal(tsc_scale_ns(&s, 1000000000u), 1000000000u);

    assert_true(tsc_scale_init(&s, 10000000000ull));       /* 10 GHz */
    assert_int_equal(tsc_scale_ns(&s, 9), 0);
    assert_int_equal(tsc_scale_ns(&s, 10), 1);
    /* One hour at 10 GHz, exactly, and just under the next ns. */
    assert_int_equal(tsc_scale_ns(&s, 36000000000000ull), HOUR_NS);
    assert_int_equal(tsc_scale_ns(&s, 36000000000009ull), HOUR_NS);
    assert_int_equal(tsc_scale_ns(&s, 36000000000010ull), HOUR_NS + 1);
    assert_int_equal(tsc_scale_ns(&s, 35999999999999ull), HOUR_NS - 1);

    /* Tiny: a 1 Hz and a 3 Hz counter. */
    assert_true(tsc_scale_init(&s, 1));
    assert_int_equal(tsc_scale_ns(&s, 1), 1000000000u);
    assert_int_equal(tsc_scale_ns(&s, 3600), HOUR_NS);
    assert_int_equal(tsc_scale_ns(&s, UINT64_MAX), UINT64_MAX);    /* saturates */
    assert_true(tsc_scale_init(&s, 3));
    assert_int_equal(tsc_scale_ns(&s, 1), 333333333u);
    assert_int_equal(tsc_scale_ns(&s, 3), 1000000000u);

    /* Huge: 1 THz and the largest hz a u64 holds. */
    assert_true(tsc_scale_init(&s, 1000000000000ull));
    assert_int_equal(tsc_scale_ns(&s, 999), 0);
    assert_int_equal(tsc_scale_ns(&s, 1000), 1);
    assert_int_equal(tsc_scale_ns(&s, 1000000000000ull), 1000000000u);
    assert_true(tsc_scale_init(&s, UINT64_MAX));
    assert_int_equal(tsc_scale_ns(&s, UINT64_MAX), 1000000000u);
    assert_int_equal(tsc_scale_ns(&s, UINT64_MAX - 1), 999999999u);
}

static void test_scale_zero_and_uncalibrated(void **state)
{
    struct tsc_scale s = { .hz = 123, .mult = 5, .shift = 2 };
    (void)state;

    assert_false(tsc_scale_init(&s, 0));
    assert_int_equal(s.hz, 0);
    assert_int_equal(s.mult, 0);
    /* 0 ticks is 0 ns even without a rate; anything else does not pretend. */
    assert_int_equal(tsc_scale_ns(&s, 0), 0);
    assert_int_equal(tsc_scale_ns(&s, 1), UINT64_MAX);
    assert_int_equal(tsc_scale_ns(&s, 1000000), UINT64_MAX);
}

/* The proof's premise: mult is normalised (top bit set), shift at most 98. */
static void test_scale_mult_normalised(void **state)
{
    static const uint64_t hzs[] = {
        1, 2, 3, 7, 1000, 32768, 1000000, PIT_HZ, PMTMR_HZ, 14318180, 999999999,
        1000000000, 2096027000, 2999999999, 3000000000, 9999999999, 10000000000ull,
        10000000001ull, 100000000000ull, 1ull << 40, 1ull << 63, UINT64_MAX / 3, UINT64_MAX,
    };
    (void)state;

    for (size_t i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
        struct tsc_scale s;
        assert_true(tsc_scale_init(&s, hzs[i]));
        assert_true(s.mult >> 63);
        assert_true(s.shift <= 98);
        /* mult = ceil(10^9 * 2^shift / hz), and one more shift would not fit. */
        u128 n = (u128)1000000000u << s.shift;
        assert_true((u128)s.mult * hzs[i] >= n);
        assert_true((u128)(s.mult - 1) * hzs[i] < n);
    }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic, so a failure reproduces. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* Every interval up to an hour, at frequencies from 1 Hz to 18 EHz, and the
 * 64-bit edges: the result is never more than the fraction off. */
static void test_scale_sweep(void **state)
{
    static const uint64_t hzs[] = {
        1, 3, 32768, 1000000, PIT_HZ, 1999999999, 2096027123, 3000000007ull,
        9999999967ull, 10000000000ull, 12345678901ull, 100000000000ull,
        1000000000000ull, UINT64_MAX,
    };
    (void)state;

    for (size_t i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
        struct tsc_scale s;
        u128 hour = (u128)hzs[i] * 3600;
        uint64_t span = hour > UINT64_MAX ? UINT64_MAX : (uint64_t)hour;

        assert_true(tsc_scale_init(&s, hzs[i]));
        check_ns(&s, 0);
        check_ns(&s, 1);
        check_ns(&s, span);
        check_ns(&s, span - 1);
        check_ns(&s, UINT64_MAX);
        check_ns(&s, UINT64_MAX - 1);
        for (unsigned b = 0; b < 64; b++) {
            check_ns(&s, 1ull << b);
            check_ns(&s, (1ull << b) - 1);
        }
        for (unsigned k = 0; k < 20000; k++)
            check_ns(&s, rnd() % (span ? span : 1));
    }
    /* Random frequencies up to 10 GHz, random intervals up to an hour. */
    for (unsigned k = 0; k < 2000; k++) {
        struct tsc_scale s;
        uint64_t hz = 1 + rnd() % 10000000000ull;

        assert_true(tsc_scale_init(&s, hz));
        for (unsigned j = 0; j < 20; j++)
            check_ns(&s, rnd() % (hz * 3600));
    }
}

static void test_muldiv_and_ppm(void **state)
{
    (void)state;

    assert_int_equal(tsc_muldiv(6, 7, 4), 10);
    assert_int_equal(tsc_muldiv(1ull << 63, 6, 4), 3ull << 62);
    assert_int_equal(tsc_muldiv(UINT64_MAX, UINT64_MAX - 1, UINT64_MAX), UINT64_MAX - 1);
    assert_int_equal(tsc_muldiv(UINT64_MAX, 2, 1), UINT64_MAX);    /* does not fit */
    assert_int_equal(tsc_muldiv(5, 5, 0), UINT64_MAX);

    /* A 20 ms PIT window on a 2.096 GHz TSC, against the host's sum. */
    u128 n = (u128)41921292 * PIT_HZ;
    uint64_t want = (uint64_t)((n + 23864 / 2) / 23864);
    assert_int_equal(tsc_hz_measured(41921292, 23864, PIT_HZ, 1), want);
    /* One second of a 100 MHz HPET (period 10^7 fs). */
    assert_int_equal(tsc_hz_measured(2096027000, 100000000, FS_PER_S, 10000000), 2096027000);
    /* Rounded to nearest: 10 ticks over 4 ref ticks of 1 Hz: 2.5 -> 3. */
    assert_int_equal(tsc_hz_measured(10, 4, 1, 1), 3);
    assert_int_equal(tsc_hz_measured(10, 0, 1, 1), 0);
    assert_int_equal(tsc_hz_measured(10, 1, 1, 0), 0);
    assert_int_equal(tsc_hz_measured(UINT64_MAX, 1, 2, 1), 0);     /* does not fit */

    assert_int_equal(tsc_ppm(1000100, 1000000), 100);
    assert_int_equal(tsc_ppm(999900, 1000000), -100);
    assert_int_equal(tsc_ppm(1000000, 1000000), 0);
    assert_int_equal(tsc_ppm(3000001, 3000000), 0);     /* 0.33 ppm rounds to 0 */
    assert_int_equal(tsc_ppm(3000002, 3000000), 1);     /* 0.67 ppm rounds to 1 */
    assert_int_equal(tsc_ppm(2232223000, 2096027000), 64978);
    assert_int_equal(tsc_ppm(5, 0), 0);
}

/* ---- the window rule ----------------------------------------------------- */

#define LATCH_20MS 23864u       /* 20.0003 ms of PIT input clocks */

/* q35's windows: 20 ms of an emulated PIT, polls not measured. */
static enum tsc_win_verdict check20(const struct tsc_window *w)
{
    struct tsc_pit_setup s;

    tsc_pit_plan(&s, 20, 5, false, 0, 0);
    return tsc_window_check(w, &s);
}

static void summarise20(const struct tsc_window *w, unsigned n, unsigned want,
                        struct tsc_pit_result *r)
{
    struct tsc_pit_setup s;

    tsc_pit_plan(&s, 20, want, false, 0, 0);
    tsc_pit_summarise(w, n, &s, r);
}

/* A clean 20 ms window on a 2.096 GHz TSC: 100000 polls of ~419 ticks. */
static struct tsc_window good_window(void)
{
    return (struct tsc_window){
        .ticks = 41921292, .start_gap = 300, .last_gap = 400, .max_gap = 900,
        .passes = 100000, .fired = true,
    };
}

static void test_window_rule(void **state)
{
    struct tsc_window w;
    (void)state;

    w = good_window();
    assert_int_equal(check20(&w), TSC_WIN_OK);

    /* Too few polls: 20 ms asks for 2000. */
    w.passes = 1999;
    assert_int_equal(check20(&w), TSC_WIN_FEW_PASSES);
    w.passes = 2000;
    w.last_gap = w.start_gap = 100;
    assert_int_equal(check20(&w), TSC_WIN_OK);
    w.passes = 1;
    struct tsc_pit_setup one_ms;
    tsc_pit_plan(&one_ms, 1, 5, false, 0, 0);
    assert_int_equal(one_ms.latch, 1193);
    assert_int_equal(tsc_window_check(&w, &one_ms), TSC_WIN_FEW_PASSES);

    /* One outsized gap at the end (a vCPU preempted as OUT2 rose). */
    w = good_window();
    w.last_gap = w.max_gap = 8500000;
    assert_int_equal(check20(&w), TSC_WIN_GAP);
    /* ... or around the write that loads the count. */
    w = good_window();
    w.start_gap = 500000;
    assert_int_equal(check20(&w), TSC_WIN_GAP);

    /* The same stall inside the window costs nothing: kept. */
    w = good_window();
    w.max_gap = 8500000;
    w.passes = 80000;
    assert_int_equal(check20(&w), TSC_WIN_OK);

    /* The bar: 8 typical polls and 50 ppm of the window. Typical here is
     * (41921292 - 900) / 99999 = 419 ticks, so 8 polls are 3352 ticks, and
     * 50 ppm is 2096 ticks: the larger one decides. */
    w = good_window();
    w.last_gap = 3352;
    assert_int_equal(check20(&w), TSC_WIN_OK);
    w.last_gap = 3353;
    w.max_gap = 3353;
    assert_int_equal(check20(&w), TSC_WIN_GAP);
    /* Fast polls (40 ticks typical): 8 polls are tiny, 50 ppm rules. */
    w = good_window();
    w.passes = 1000000;
    w.max_gap = 100;
    w.last_gap = 2096;
    assert_int_equal(check20(&w), TSC_WIN_OK);
    w.last_gap = 2097;
    assert_int_equal(check20(&w), TSC_WIN_GAP);

    /* A dead PIT: never rose, or high before the count could run out. */
    w = good_window();
    w.fired = false;
    assert_int_equal(check20(&w), TSC_WIN_NO_RISE);
    w = (struct tsc_window){ .ticks = 300, .passes = 1, .fired = true, .high_at_start = true };
    assert_int_equal(check20(&w), TSC_WIN_STUCK_HIGH);
}

/* Slow polls: longer windows, a wider band, the pass count judged by cost. */
static void test_window_plan_for_slow_polls(void **state)
{
    struct tsc_pit_setup s;
    struct tsc_window w;
    (void)state;

    /* 1 us a poll at 2.096 GHz: 4 polls are 200 ppm of 20 ms; nothing changes. */
    tsc_pit_plan(&s, 20, 5, false, 2096, 2096000000);
    assert_int_equal(s.ms, 20);
    assert_int_equal(s.latch, LATCH_20MS);
    assert_int_equal(s.band_ppm, TSC_BAND_PPM);
    /* 10 us: 2000 ppm of 20 ms, so 54 ms windows, where 4 polls are 740 ppm. */
    tsc_pit_plan(&s, 20, 5, false, 20960, 2096000000);
    assert_int_equal(s.ms, 54);
    assert_int_equal(s.latch, 64432);
    assert_int_equal(s.band_ppm, 4 * 20960 * 1000000ull / (54 * 2096000));
    /* Never shorter than asked, and nothing to go on without a rate. */
    tsc_pit_plan(&s, 54, 5, false, 2096, 2096000000);
    assert_int_equal(s.ms, 54);
    tsc_pit_plan(&s, 20, 5, false, 20960, 0);
    assert_int_equal(s.ms, 20);
    assert_int_equal(s.band_ppm, TSC_BAND_PPM);

    /* 10 us polls allow 2000 in 20 ms: a quarter of them is enough, where
     * Linux's rule would ask for all 2000. */
    w = good_window();
    w.passes = 500;
    w.max_gap = w.last_gap = w.start_gap = 20960;
    tsc_pit_plan(&s, 20, 5, false, 20960, 0);
    assert_int_equal(tsc_window_check(&w, &s), TSC_WIN_OK);
    w.passes = 499;
    assert_int_equal(tsc_window_check(&w, &s), TSC_WIN_FEW_PASSES);
    w.passes = 500;
    s.poll_ticks = 0;
    assert_int_equal(tsc_window_check(&w, &s), TSC_WIN_FEW_PASSES);
    /* A stall at the end is still outsized: the typical poll here is
     * (41921292 - 1000000) / 499 = 82006 ticks, 8 of them 656048. */
    s.poll_ticks = 20960;
    w.last_gap = w.max_gap = 1000000;
    assert_int_equal(tsc_window_check(&w, &s), TSC_WIN_GAP);
}

static void test_median_spread_consensus(void **state)
{
    uint64_t odd[] = { 30, 10, 20 };
    uint64_t even[] = { 4, 1, 3, 2 };
    uint64_t big[] = { UINT64_MAX, UINT64_MAX - 1 };
    struct tsc_consensus c;
    (void)state;

    assert_int_equal(tsc_median(odd, 3), 20);
    assert_int_equal(odd[0], 10);                       /* sorted in place */
    assert_int_equal(tsc_median(even, 4), 2);           /* (2 + 3) / 2 rounded down */
    assert_int_equal(tsc_median(big, 2), UINT64_MAX - 1);   /* no overflow */
    assert_int_equal(tsc_median(NULL, 0), 0);
    assert_int_equal(tsc_spread_ppm((uint64_t[]){ 999900, 1000100 }, 2, 1000000), 200);
    assert_int_equal(tsc_spread_ppm((uint64_t[]){ 5 }, 1, 5), 0);

    /* Three honest windows, one stretched by a frozen clock (+3%), one short. */
    uint64_t v[] = { 2096031000, 2159000000, 2096027000, 2096035000, 2000000000 };
    tsc_consensus(v, 5, TSC_BAND_PPM, &c);
    assert_int_equal(c.kept, 3);
    assert_int_equal(c.hz, 2096031000);
    assert_int_equal(c.spread_ppm, 4);                  /* 8000 / 2096031000 */

    /* A tie between two groups of two: the lower wins. */
    uint64_t t[] = { 3000000000, 2000000000, 2000000100, 3000000100 };
    tsc_consensus(t, 4, TSC_BAND_PPM, &c);
    assert_int_equal(c.kept, 2);
    assert_int_equal(c.hz, 2000000050);

    /* The band is inclusive: exactly 500 ppm above the lowest is in. */
    uint64_t b[] = { 1000000, 1000500, 1000501 };
    tsc_consensus(b, 3, TSC_BAND_PPM, &c);
    assert_int_equal(c.kept, 2);
    tsc_consensus(NULL, 0, TSC_BAND_PPM, &c);
    assert_int_equal(c.kept, 0);
    assert_int_equal(c.hz, 0);
}

static void test_pit_summary(void **state)
{
    struct tsc_window w[6];
    struct tsc_pit_result r;
    (void)state;

    for (int i = 0; i < 6; i++)
        w[i] = good_window();
    w[1].ticks += 6;                        /* honest noise */
    w[2].ticks -= 4;
    w[3].last_gap = w[3].max_gap = 8500000; /* edge gap: rejected */
    w[3].ticks += 8500000;
    w[4].ticks += 2000000;                  /* late end no poll saw: outlier */
    w[5].passes = 100;                      /* too few polls */
    summarise20(w, 6, 5, &r);
    assert_true(r.usable);
    assert_int_equal(r.windows, 6);
    assert_int_equal(r.accepted, 3);
    assert_int_equal(r.outliers, 1);
    assert_int_equal(r.rejected[TSC_WIN_GAP], 1);
    assert_int_equal(r.rejected[TSC_WIN_FEW_PASSES], 1);
    assert_int_equal(r.dead, TSC_WIN_OK);
    /* The median window's rate, by the host's own 128-bit arithmetic. */
    assert_int_equal(r.hz, (uint64_t)(((u128)41921292 * PIT_HZ + LATCH_20MS / 2) / LATCH_20MS));
    assert_true(r.spread_ppm <= 1);

    /* Only one window of five passed: not enough to trust. */
    summarise20(w + 3, 3, 5, &r);
    assert_false(r.usable);
    assert_string_equal(r.why, "unusable: only 1 of 3 windows agree within 500 ppm");
    /* ... unless one was all that was asked for. */
    summarise20(w, 1, 1, &r);
    assert_true(r.usable);
    /* Two honest windows against two stretched ones: no majority. */
    struct tsc_window split[4] = { good_window(), good_window(), good_window(), good_window() };
    split[2].ticks += 2000000;
    split[3].ticks += 2000010;
    summarise20(split, 4, 5, &r);
    assert_false(r.usable);

    /* A PIT that never fires is dead, even once. */
    w[0].fired = false;
    summarise20(w, 3, 5, &r);
    assert_false(r.usable);
    assert_int_equal(r.dead, TSC_WIN_NO_RISE);
    assert_string_equal(r.why, "dead (OUT2 never rose)");

    /* OUT2 high at once: a preempted vCPU in one window, a dead PIT in all. */
    for (int i = 0; i < 3; i++)
        w[i] = good_window();
    w[0].high_at_start = true;
    summarise20(w, 3, 2, &r);
    assert_true(r.usable);
    assert_int_equal(r.dead, TSC_WIN_OK);
    w[1].high_at_start = w[2].high_at_start = true;
    summarise20(w, 3, 2, &r);
    assert_int_equal(r.dead, TSC_WIN_STUCK_HIGH);
    assert_false(r.usable);

    /* Every window with an edge gap. */
    for (int i = 0; i < 3; i++) {
        w[i] = good_window();
        w[i].last_gap = 9000000;
    }
    summarise20(w, 3, 3, &r);
    assert_false(r.usable);
    assert_int_equal(r.hz, 0);
    assert_string_equal(r.why,
                        "unusable: no window passed (0 with too few polls, 3 with an edge gap)");
}

/* ---- the choice ----------------------------------------------------------- */

static void clocks_none(struct tsc_clock *c)
{
    memset(c, 0, sizeof(struct tsc_clock) * TSC_SRC_COUNT);
}

/* A usable clock of its usual kind: the PIT, HPET and PM timer measured,
 * CPUID 0x15 and the hypervisor leaf (of KVM) computed, CPUID 0x16 nominal. */
static void set(struct tsc_clock *c, enum tsc_src s, uint64_t hz)
{
    c[s].state = TSC_CLK_OK;
    c[s].hz = hz;
    c[s].kind = s == TSC_SRC_CPUID16 ? TSC_KIND_NOMINAL
                : s == TSC_SRC_CPUID15 || s == TSC_SRC_HYPERVISOR ? TSC_KIND_COMPUTED
                : TSC_KIND_MEASURED;
}

static void test_choose_all_agree(void **state)
{
    struct tsc_clock c[TSC_SRC_COUNT];
    struct tsc_choice ch;
    (void)state;

    clocks_none(c);
    set(c, TSC_SRC_PIT, 2096033000);
    set(c, TSC_SRC_HPET, 2096027000);
    set(c, TSC_SRC_PMTIMER, 2096037000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_true(ch.calibrated);
    assert_int_equal(ch.hz, 2096033000);
    assert_string_equal(ch.reason, "pit agrees with hpet (-3 ppm), pmtimer (+2 ppm)");
    assert_true(ch.has_ppm[TSC_SRC_HPET]);
    assert_int_equal(ch.ppm[TSC_SRC_HPET], -3);
    assert_int_equal(ch.ppm[TSC_SRC_PMTIMER], 2);
    assert_int_equal(ch.ppm[TSC_SRC_PIT], 0);
    assert_false(ch.has_ppm[TSC_SRC_CPUID15]);
    assert_int_equal(ch.status[TSC_SRC_PIT], TSC_CLK_OK);
    assert_int_equal(ch.status[TSC_SRC_HPET], TSC_CLK_OK);
    assert_int_equal(ch.status[TSC_SRC_CPUID16], TSC_CLK_ABSENT);
}

static void test_choose_lying_pit(void **state)
{
    struct tsc_clock c[TSC_SRC_COUNT];
    struct tsc_choice ch;
    (void)state;

    /* The PIT says 6.5% fast; the HPET and the PM timer agree with each other. */
    clocks_none(c);
    set(c, TSC_SRC_PIT, 2232223000);
    set(c, TSC_SRC_HPET, 2096027000);
    set(c, TSC_SRC_PMTIMER, 2096031000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_HPET);
    assert_int_equal(ch.hz, 2096027000);
    assert_true(ch.calibrated);
    assert_string_equal(ch.reason, "pit disagrees with hpet (-61014 ppm), pmtimer (-61012 ppm); "
                                   "hpet chosen, agrees with pmtimer");
    assert_int_equal(ch.status[TSC_SRC_PIT], TSC_CLK_BAD);
    assert_int_equal(ch.status[TSC_SRC_HPET], TSC_CLK_OK);
    assert_int_equal(ch.status[TSC_SRC_PMTIMER], TSC_CLK_OK);
    assert_int_equal(ch.ppm[TSC_SRC_HPET], -61014);

    /* A PIT with only a computed figure against it: a measured clock that
     * agrees with itself is not overruled by a lesser kind of figure. The
     * disagreement is on record, and the hypervisor's figure marked bad. */
    clocks_none(c);
    set(c, TSC_SRC_PIT, 2232223000);
    set(c, TSC_SRC_HYPERVISOR, 2096000000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_int_equal(ch.hz, 2232223000);
    assert_int_equal(ch.status[TSC_SRC_HYPERVISOR], TSC_CLK_BAD);
    assert_string_equal(ch.reason, "pit disagrees with hypervisor (-61026 ppm); kept, as no "
                                   "lesser kind of figure overrides a measured one");
}

static void test_choose_dead_pit(void **state)
{
    struct tsc_clock c[TSC_SRC_COUNT];
    struct tsc_choice ch;
    (void)state;

    clocks_none(c);
    c[TSC_SRC_PIT].state = TSC_CLK_BAD;
    c[TSC_SRC_PIT].why = "dead (OUT2 never rose within 4 ms, 3 tries)";
    set(c, TSC_SRC_HPET, 2096027000);
    set(c, TSC_SRC_PMTIMER, 2096026000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_HPET);
    assert_int_equal(ch.hz, 2096027000);
    assert_true(ch.calibrated);
    assert_string_equal(ch.reason, "pit dead (OUT2 never rose within 4 ms, 3 tries); "
                                   "hpet chosen, agrees with pmtimer");
    assert_false(ch.has_ppm[TSC_SRC_HPET]);             /* no PIT figure to compare with */
    assert_int_equal(ch.status[TSC_SRC_PIT], TSC_CLK_BAD);

    /* No HPET either: the PM timer alone. */
    c[TSC_SRC_HPET].state = TSC_CLK_ABSENT;
    c[TSC_SRC_HPET].hz = 0;
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PMTIMER);
    assert_int_equal(ch.hz, 2096026000);
    assert_string_equal(ch.reason, "pit dead (OUT2 never rose within 4 ms, 3 tries); "
                                   "pmtimer chosen, the only clock left");

    /* A measured clock over computed ones, however many. */
    clocks_none(c);
    c[TSC_SRC_PIT].state = TSC_CLK_BAD;
    set(c, TSC_SRC_HPET, 2096027000);
    set(c, TSC_SRC_CPUID15, 2096000000);
    set(c, TSC_SRC_HYPERVISOR, 2096010000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_HPET);
    assert_int_equal(ch.kind, TSC_KIND_MEASURED);
    assert_string_equal(ch.reason, "pit unusable; hpet chosen, agrees with hypervisor, cpuid15");
    /* A computed figure that disagrees is marked bad, and changes nothing. */
    c[TSC_SRC_HYPERVISOR].hz = 3000000000;
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_HPET);
    assert_int_equal(ch.status[TSC_SRC_HYPERVISOR], TSC_CLK_BAD);
    assert_int_equal(ch.status[TSC_SRC_CPUID15], TSC_CLK_OK);

    /* No measured clock: the computed ones decide, CPUID 0x15 first in rank. */
    c[TSC_SRC_HPET].state = TSC_CLK_ABSENT;
    c[TSC_SRC_HYPERVISOR].hz = 2096010000;
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_CPUID15);
    assert_int_equal(ch.kind, TSC_KIND_COMPUTED);
    assert_string_equal(ch.reason, "pit unusable; cpuid15 chosen, agrees with hypervisor");
    /* Two computed figures that disagree, and a nominal one that sides with
     * the hypervisor: the tie between equals goes its way. */
    c[TSC_SRC_HYPERVISOR].hz = 2200000000;
    set(c, TSC_SRC_CPUID16, 2200000000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_HYPERVISOR);
    assert_string_equal(ch.reason, "pit unusable; hypervisor chosen, agrees with cpuid16");
    assert_int_equal(ch.status[TSC_SRC_CPUID15], TSC_CLK_BAD);
}

static void test_choose_pit_alone(void **state)
{
    struct tsc_clock c[TSC_SRC_COUNT];
    struct tsc_choice ch;
    (void)state;

    clocks_none(c);
    set(c, TSC_SRC_PIT, 2096033000);
    /* Bad references count for nothing. */
    c[TSC_SRC_HPET].state = TSC_CLK_BAD;
    c[TSC_SRC_HPET].why = "counter does not advance";
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_int_equal(ch.hz, 2096033000);
    assert_true(ch.calibrated);
    assert_string_equal(ch.reason, "pit: no other clock to compare with");
    assert_int_equal(ch.status[TSC_SRC_HPET], TSC_CLK_BAD);
}

static void test_choose_no_clock(void **state)
{
    struct tsc_clock c[TSC_SRC_COUNT];
    struct tsc_choice ch;
    (void)state;

    clocks_none(c);
    c[TSC_SRC_PIT].state = TSC_CLK_BAD;
    c[TSC_SRC_PIT].why = "dead (OUT2 high before the count ran out, 3 tries)";
    c[TSC_SRC_PMTIMER].state = TSC_CLK_BAD;
    c[TSC_SRC_PMTIMER].why = "counter does not advance";
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_NONE);
    assert_false(ch.calibrated);
    assert_int_equal(ch.hz, 0);
    assert_string_equal(tsc_src_name(ch.source), "none");
    assert_string_equal(ch.reason, "pit dead (OUT2 high before the count ran out, 3 tries); "
                                   "no usable reference: uncalibrated");

    /* A figure outside [1 MHz, 100 GHz] is no clock either. */
    clocks_none(c);
    set(c, TSC_SRC_PIT, 999999);
    set(c, TSC_SRC_CPUID16, 200000000000ull);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_NONE);
    assert_int_equal(ch.status[TSC_SRC_PIT], TSC_CLK_BAD);
    assert_int_equal(ch.status[TSC_SRC_CPUID16], TSC_CLK_BAD);
    assert_string_equal(ch.reason, "pit unusable; no usable reference: uncalibrated");
}

static void test_choose_majority_and_tolerance(void **state)
{
    struct tsc_clock c[TSC_SRC_COUNT];
    struct tsc_choice ch;
    (void)state;

    /* A nominal CPUID 0x16 two percent off does not outvote two timers. */
    clocks_none(c);
    set(c, TSC_SRC_PIT, 2096033000);
    set(c, TSC_SRC_HPET, 2096027000);
    set(c, TSC_SRC_PMTIMER, 2096031000);
    set(c, TSC_SRC_CPUID16, 2138000000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_string_equal(ch.reason, "pit agrees with hpet (-3 ppm), pmtimer (-1 ppm); "
                                   "cpuid16 (+20022 ppm) disagrees");
    assert_int_equal(ch.status[TSC_SRC_CPUID16], TSC_CLK_BAD);
    /* Within its 1% it agrees. */
    c[TSC_SRC_CPUID16].hz = 2100000000;
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_int_equal(ch.status[TSC_SRC_CPUID16], TSC_CLK_OK);

    /* The measured tolerance is 1000 ppm, inclusive. */
    clocks_none(c);
    set(c, TSC_SRC_PIT, 1000000000);
    set(c, TSC_SRC_HPET, 1001000000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_int_equal(ch.status[TSC_SRC_HPET], TSC_CLK_OK);
    c[TSC_SRC_HPET].hz = 1001000600;                    /* 1000.6 ppm -> 1001 */
    tsc_choose(c, &ch);
    assert_int_equal(ch.status[TSC_SRC_HPET], TSC_CLK_BAD);
    /* Two measured clocks apart and nothing else: the first in rank. */
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_string_equal(ch.reason, "pit disagrees with hpet (+1001 ppm); kept, first in rank "
                                   "with nothing to break the tie");
    /* ... and the uncertainties stated widen the tolerance. */
    c[TSC_SRC_PIT].unc_ppm = 1;
    tsc_choose(c, &ch);
    assert_int_equal(ch.status[TSC_SRC_HPET], TSC_CLK_OK);
    /* A lesser figure breaks the tie between two measured clocks. */
    c[TSC_SRC_PIT].unc_ppm = 0;
    set(c, TSC_SRC_CPUID15, 1001000600);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_HPET);
    assert_string_equal(ch.reason, "pit disagrees with cpuid15 (+1001 ppm), hpet (+1001 ppm); "
                                   "hpet chosen, agrees with cpuid15");

    /* A computed figure that disagrees with two measured clocks that agree. */
    clocks_none(c);
    set(c, TSC_SRC_PIT, 2096033000);
    set(c, TSC_SRC_HPET, 2096027000);
    set(c, TSC_SRC_HYPERVISOR, 2200000000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_string_equal(ch.reason, "pit agrees with hpet (-3 ppm); "
                                   "hypervisor (+49602 ppm) disagrees");
    assert_int_equal(ch.status[TSC_SRC_HPET], TSC_CLK_OK);
    assert_int_equal(ch.status[TSC_SRC_HYPERVISOR], TSC_CLK_BAD);
}

/* Issue: a nominal figure must never overrule a measured one. */
static void test_choose_measured_beats_nominal(void **state)
{
    struct tsc_clock c[TSC_SRC_COUNT];
    struct tsc_choice ch;
    (void)state;

    /* The audit's case: the PIT measured 2096.033 MHz, CPUID 0x16 says 2200. */
    clocks_none(c);
    set(c, TSC_SRC_PIT, 2096033000);
    set(c, TSC_SRC_CPUID16, 2200000000);
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);
    assert_int_equal(ch.hz, 2096033000);
    assert_int_equal(ch.status[TSC_SRC_CPUID16], TSC_CLK_BAD);
    assert_int_equal(ch.status[TSC_SRC_PIT], TSC_CLK_OK);
    assert_int_equal(ch.kind, TSC_KIND_MEASURED);
    assert_string_equal(ch.reason, "pit disagrees with cpuid16 (+49602 ppm); kept, as no "
                                   "lesser kind of figure overrides a measured one");

    /* The same with the timing leaf of a hypervisor not known to fill it. */
    clocks_none(c);
    set(c, TSC_SRC_PIT, 2096033000);
    set(c, TSC_SRC_HYPERVISOR, 2200000000);
    c[TSC_SRC_HYPERVISOR].kind = TSC_KIND_NOMINAL;
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_PIT);

    /* A nominal figure is used only when nothing better is there, and its
     * kind and uncertainty go with it. */
    clocks_none(c);
    c[TSC_SRC_PIT].state = TSC_CLK_BAD;
    set(c, TSC_SRC_CPUID16, 2100000000);
    c[TSC_SRC_CPUID16].unc_ppm = TSC_NOMINAL_UNC_PPM;
    tsc_choose(c, &ch);
    assert_int_equal(ch.source, TSC_SRC_CPUID16);
    assert_int_equal(ch.kind, TSC_KIND_NOMINAL);
    assert_int_equal(ch.unc_ppm, 10000);
    assert_string_equal(ch.reason, "pit unusable; cpuid16 chosen, the only clock left");
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(tsc_src_name(TSC_SRC_PIT), "pit");
    assert_string_equal(tsc_src_name(TSC_SRC_HYPERVISOR), "hypervisor");
    assert_string_equal(tsc_src_name(TSC_SRC_CPUID15), "cpuid15");
    assert_string_equal(tsc_src_name(TSC_SRC_CPUID16), "cpuid16");
    assert_string_equal(tsc_src_name(TSC_SRC_HPET), "hpet");
    assert_string_equal(tsc_src_name(TSC_SRC_PMTIMER), "pmtimer");
    assert_string_equal(tsc_src_name(TSC_SRC_NONE), "none");
    assert_string_equal(tsc_kind_name(TSC_KIND_MEASURED), "measured");
    assert_string_equal(tsc_kind_name(TSC_KIND_COMPUTED), "computed");
    assert_string_equal(tsc_kind_name(TSC_KIND_NOMINAL), "nominal");
}

/* ---- ACPI tables ------------------------------------------------------------ */

#define ARENA_BASE  0x80000u
#define ARENA_SIZE  0x10000u
static uint8_t arena[ARENA_SIZE] __attribute__((aligned(16)));

static const void *arena_phys(uint64_t paddr, uint64_t len, void *ctx)
{
    (void)ctx;
    if (paddr < ARENA_BASE || len > ARENA_SIZE || paddr - ARENA_BASE > ARENA_SIZE - len)
        return NULL;
    return arena + (paddr - ARENA_BASE);
}

static uint8_t *at(uint64_t pa) { return arena + (pa - ARENA_BASE); }
static void w32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void w64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void fix_sum(uint8_t *p, size_t len, size_t sum_off)
{
    uint8_t s = 0;

    p[sum_off] = 0;
    for (size_t i = 0; i < len; i++)
        s = (uint8_t)(s + p[i]);
    p[sum_off] = (uint8_t)-s;
}

/* An SDT header at pa with a valid checksum over len bytes (body already written). */
static void sdt(uint64_t pa, const char *sig, uint32_t len, uint8_t rev)
{
    uint8_t *p = at(pa);

    memcpy(p, sig, 4);
    w32(p + 4, len);
    p[8] = rev;
    memcpy(p + 10, "BOOTHP", 6);
    fix_sum(p, len, 9);
}

#define RSDT_PA 0x81000u
#define XSDT_PA 0x82000u
#define FADT_PA 0x83000u
#define HPET_PA 0x84000u

static uint8_t rsdp[36];

static void make_rsdp(uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
    memset(rsdp, 0, sizeof(rsdp));
    memcpy(rsdp, "RSD PTR ", 8);
    memcpy(rsdp + 9, "BOOTHP", 6);
    rsdp[15] = rev;
    w32(rsdp + 16, rsdt);
    fix_sum(rsdp, 20, 8);
    if (rev >= 2) {
        w32(rsdp + 20, 36);
        w64(rsdp + 24, xsdt);
        fix_sum(rsdp, 36, 32);
    }
}

static void make_fadt(uint32_t len, uint32_t pm_blk, uint8_t pm_len, uint32_t flags,
                      uint8_t x_space, uint64_t x_addr)
{
    uint8_t *f = at(FADT_PA);

    memset(f, 0, 276);
    w32(f + FADT_PM_TMR_BLK, pm_blk);
    f[FADT_PM_TMR_LEN] = pm_len;
    w32(f + FADT_FLAGS, flags);
    if (len >= FADT_LEN_X_PM_TMR) {
        f[FADT_X_PM_TMR_BLK] = x_space;
        f[FADT_X_PM_TMR_BLK + 1] = 32;
        w64(f + FADT_X_PM_TMR_BLK + 4, x_addr);
    }
    sdt(FADT_PA, "FACP", len, len >= FADT_LEN_X_PM_TMR ? 5 : 1);
}

static void make_hpet(uint8_t space, uint64_t base)
{
    uint8_t *h = at(HPET_PA);

    memset(h, 0, HPET_TBL_LEN);
    h[HPET_TBL_BASE_GAS] = space;
    w64(h + HPET_TBL_BASE_GAS + 4, base);
    sdt(HPET_PA, "HPET", HPET_TBL_LEN, 1);
}

/* An RSDT and an XSDT that both list the FADT and the HPET table. */
static void make_roots(void)
{
    w32(at(RSDT_PA) + 36, FADT_PA);
    w32(at(RSDT_PA) + 40, HPET_PA);
    sdt(RSDT_PA, "RSDT", 44, 1);
    w64(at(XSDT_PA) + 36, FADT_PA);
    w64(at(XSDT_PA) + 44, HPET_PA);
    sdt(XSDT_PA, "XSDT", 52, 1);
}

/* QEMU's q35 as qboot shows it: ACPI 1.0, RSDT, 24-bit PM timer at 0x608. */
static void make_q35(void)
{
    memset(arena, 0, sizeof(arena));
    make_roots();
    make_fadt(FADT_LEN_V1, 0x608, 4, 0, 0, 0);
    make_hpet(ACPI_GAS_MEMORY, 0xfed00000);
    make_rsdp(0, RSDT_PA, 0);
}

static bool has_note(const struct acpi_timers *t, const char *text)
{
    for (unsigned i = 0; i < t->nnotes; i++)
        if (strstr(t->notes[i], text))
            return true;
    return false;
}

static void test_acpi_good(void **state)
{
    struct acpi_timers t;
    (void)state;

    make_q35();
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_string_equal(t.root, "RSDT");
    assert_int_equal(t.pm, ACPI_OK);
    assert_int_equal(t.pm_port, 0x608);
    assert_false(t.pm_32bit);
    assert_int_equal(t.hpet, ACPI_OK);
    assert_int_equal(t.hpet_base, 0xfed00000);
    assert_int_equal(t.nnotes, 0);

    /* ACPI 2.0: the XSDT, and X_PM_TMR_BLK over PM_TMR_BLK, 32 bits. */
    make_fadt(276, 0x608, 4, FADT_TMR_VAL_EXT, ACPI_GAS_IO, 0xb008);
    make_rsdp(2, RSDT_PA, XSDT_PA);
    assert_int_equal(acpi_find_timers(rsdp, 36, arena_phys, NULL, &t), 0);
    assert_string_equal(t.root, "XSDT");
    assert_int_equal(t.pm_port, 0xb008);
    assert_true(t.pm_32bit);
    assert_int_equal(t.nnotes, 0);

    /* X_PM_TMR_BLK in memory space: noted, the legacy port used. */
    make_fadt(276, 0x608, 4, 0, ACPI_GAS_MEMORY, 0xfee00000);
    assert_int_equal(acpi_find_timers(rsdp, 36, arena_phys, NULL, &t), 0);
    assert_int_equal(t.pm, ACPI_OK);
    assert_int_equal(t.pm_port, 0x608);
    assert_true(has_note(&t, "is not an I/O port; trying PM_TMR_BLK"));

    /* Hardware-reduced ACPI: no PM timer, and nothing wrong. */
    make_fadt(276, 0, 0, FADT_HW_REDUCED, 0, 0);
    assert_int_equal(acpi_find_timers(rsdp, 36, arena_phys, NULL, &t), 0);
    assert_int_equal(t.pm, ACPI_ABSENT);
    assert_int_equal(t.nnotes, 0);
}

static void test_acpi_bad_rsdp(void **state)
{
    struct acpi_timers t;
    (void)state;

    make_q35();
    assert_int_equal(acpi_find_timers(rsdp, 0, arena_phys, NULL, &t), -ENOENT);
    assert_true(has_note(&t, "no RSDP"));
    assert_int_equal(t.pm, ACPI_ABSENT);
    assert_int_equal(t.hpet, ACPI_ABSENT);

    rsdp[19] ^= 0x40;                       /* an OEM byte flipped: sum no longer 0 */
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), -EINVAL);
    assert_true(has_note(&t, "RSDP checksum bad"));
    assert_null(t.root);

    make_q35();
    rsdp[0] = 'X';
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), -EINVAL);
    assert_true(has_note(&t, "signature"));

    /* A bad XSDT: noted, and the RSDT still serves. */
    make_q35();
    make_rsdp(2, RSDT_PA, XSDT_PA);
    at(XSDT_PA)[40] ^= 1;
    assert_int_equal(acpi_find_timers(rsdp, 36, arena_phys, NULL, &t), 0);
    assert_string_equal(t.root, "RSDT");
    assert_true(has_note(&t, "ACPI XSDT at 0x82000: checksum bad, skipped"));
    assert_true(has_note(&t, "falling back to the RSDT"));
    assert_int_equal(t.pm, ACPI_OK);

    /* A bad extended RSDP checksum: the RSDT, said so. */
    make_q35();
    make_rsdp(2, RSDT_PA, XSDT_PA);
    rsdp[33] ^= 1;
    assert_int_equal(acpi_find_timers(rsdp, 36, arena_phys, NULL, &t), 0);
    assert_string_equal(t.root, "RSDT");
    assert_true(has_note(&t, "extended length 36 or checksum bad"));
}

static void test_acpi_bad_tables(void **state)
{
    struct acpi_timers t;
    (void)state;

    /* FADT checksum bad: the PM timer is bad, the HPET untouched. */
    make_q35();
    at(FADT_PA)[FADT_PM_TMR_BLK] ^= 0x10;
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_int_equal(t.pm, ACPI_BAD);
    assert_int_equal(t.hpet, ACPI_OK);
    assert_true(has_note(&t, "ACPI FACP at 0x83000: checksum bad, skipped"));

    /* Truncated FADT, with a valid checksum over what is there. */
    make_q35();
    make_fadt(100, 0x608, 4, 0, 0, 0);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_int_equal(t.pm, ACPI_BAD);
    assert_true(has_note(&t, "100 bytes, shorter than ACPI 1.0's 116"));

    /* A length that is a lie, and one that runs off readable memory. */
    make_q35();
    w32(at(HPET_PA) + 4, 0x7fffffff);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_int_equal(t.hpet, ACPI_BAD);
    assert_true(has_note(&t, "ACPI HPET at 0x84000: length 2147483647 is implausible"));
    w32(at(HPET_PA) + 4, ARENA_SIZE);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_int_equal(t.hpet, ACPI_BAD);
    assert_true(has_note(&t, "cannot be mapped"));
    w32(at(HPET_PA) + 4, 20);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_true(has_note(&t, "length 20 is implausible"));

    /* An HPET in I/O space, or with no base. */
    make_q35();
    make_hpet(ACPI_GAS_IO, 0xfed00000);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_int_equal(t.hpet, ACPI_BAD);
    assert_true(has_note(&t, "in address space 1 is not usable"));
    make_hpet(ACPI_GAS_MEMORY, 0);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_int_equal(t.hpet, ACPI_BAD);

    /* A PM_TMR_BLK that is not a 4-byte port. */
    make_q35();
    make_fadt(FADT_LEN_V1, 0x608, 2, 0, 0, 0);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_int_equal(t.pm, ACPI_BAD);
    assert_true(has_note(&t, "is not a 4-byte I/O port"));

    /* A root entry pointing outside readable memory: noted, the rest read. */
    make_q35();
    w32(at(RSDT_PA) + 36, 0x10);
    sdt(RSDT_PA, "RSDT", 44, 1);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), 0);
    assert_int_equal(t.pm, ACPI_ABSENT);
    assert_int_equal(t.hpet, ACPI_OK);
    assert_true(has_note(&t, "ACPI RSDT entry 0 at 0x10: cannot be mapped"));

    /* The RSDT itself unreadable. */
    make_q35();
    make_rsdp(0, 0xdead0000, 0);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), -EINVAL);
    assert_true(has_note(&t, "ACPI RSDT at 0xdead0000: cannot be mapped"));

    /* An RSDP that names no root table at all. */
    make_q35();
    make_rsdp(0, 0, 0);
    assert_int_equal(acpi_find_timers(rsdp, 20, arena_phys, NULL, &t), -ENOENT);
    assert_true(has_note(&t, "RSDP names no RSDT"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale_exact_values),
        cmocka_unit_test(test_scale_zero_and_uncalibrated),
        cmocka_unit_test(test_scale_mult_normalised),
        cmocka_unit_test(test_scale_sweep),
        cmocka_unit_test(test_muldiv_and_ppm),
        cmocka_unit_test(test_window_rule),
        cmocka_unit_test(test_window_plan_for_slow_polls),
        cmocka_unit_test(test_median_spread_consensus),
        cmocka_unit_test(test_pit_summary),
        cmocka_unit_test(test_choose_all_agree),
        cmocka_unit_test(test_choose_lying_pit),
        cmocka_unit_test(test_choose_dead_pit),
        cmocka_unit_test(test_choose_pit_alone),
        cmocka_unit_test(test_choose_no_clock),
        cmocka_unit_test(test_choose_majority_and_tolerance),
        cmocka_unit_test(test_choose_measured_beats_nominal),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_acpi_good),
        cmocka_unit_test(test_acpi_bad_rsdp),
        cmocka_unit_test(test_acpi_bad_tables),
    };
    return cmocka_run_group_tests_name("time", tests, NULL, NULL);
}
