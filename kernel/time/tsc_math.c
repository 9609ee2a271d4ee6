// SPDX-License-Identifier: MIT
// The arithmetic of TSC calibration, shared by the kernel and the host tests:
// no port I/O, no floats, and no 128-bit division from libgcc.
#include "kernel/time/tsc_math.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

typedef unsigned __int128 u128;

static unsigned fls128(u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64);

    return hi ? 64 + fls64(hi) : fls64((uint64_t)x);
}

/*
 * n / d by shift and subtract, for d != 0. GCC would call __udivti3 for a
 * plain 128-bit '/', which a -nostdlib kernel does not link. Calibration
 * divides a few dozen times per boot, so one bit per step is fast enough.
 */
static u128 div128(u128 n, u128 d, u128 *rem)
{
    u128 q = 0, r = 0;

    if ((n >> 64) == 0 && (d >> 64) == 0) {
        if (rem)
            *rem = (uint64_t)n % (uint64_t)d;
        return (uint64_t)n / (uint64_t)d;
    }
    for (int i = (int)fls128(n) - 1; i >= 0; i--) {
        /* r < d, so r << 1 | bit < 2d: one subtraction suffices. When r's
         * top bit is set the shifted value is >= 2^128 > d, and the
         * wrapped subtraction below still yields the right remainder. */
        bool carry = r >> 127;
        r = (r << 1) | ((n >> i) & 1);
        if (carry || r >= d) {
            r -= d;
            q |= (u128)1 << i;
        }
    }
    if (rem)
        *rem = r;
    return q;
}

/* n / d rounded to nearest, ties up; d != 0. */
static u128 div128_round(u128 n, u128 d)
{
    u128 rem;
    u128 q = div128(n, d, &rem);

    /* rem >= d / 2, written so that nothing overflows. */
    if (rem >= d - rem)
        q++;
    return q;
}

uint64_t tsc_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
    u128 q;

    if (c == 0)
        return UINT64_MAX;
    q = div128((u128)a * b, c, NULL);
    return (q >> 64) ? UINT64_MAX : (uint64_t)q;
}

uint64_t tsc_hz_measured(uint64_t tsc_ticks, uint64_t ref_ticks, uint64_t ref_num,
                         uint64_t ref_den)
{
    u128 q;

    if (ref_ticks == 0 || ref_den == 0)
        return 0;
    /* Both products fit: each factor is below 2^64. */
    q = div128_round((u128)tsc_ticks * ref_num, (u128)ref_ticks * ref_den);
    return (q >> 64) ? 0 : (uint64_t)q;
}

int64_t tsc_ppm(uint64_t hz, uint64_t ref_hz)
{
    uint64_t diff = hz >= ref_hz ? hz - ref_hz : ref_hz - hz;
    u128 m;

    if (ref_hz == 0)
        return 0;
    m = div128_round((u128)diff * 1000000u, ref_hz);
    if (m > INT64_MAX)
        m = INT64_MAX;
    return hz >= ref_hz ? (int64_t)m : -(int64_t)m;
}

/* ---- ticks to nanoseconds -------------------------------------------------
 *
 * The job of Xen's set_time_scale() and Linux's clocks_calc_mult_shift(),
 * done with a 64-bit multiplier and a 128-bit product instead of their
 * 32-bit fractions, so that no range of intervals needs a second path.
 *
 * mult = ceil(10^9 * 2^shift / hz), with shift the largest value (at most 98,
 * so that 10^9 * 2^shift < 2^128) for which mult still fits in 64 bits. Then:
 *
 *  - No overflow: ticks < 2^64 and mult < 2^64, so ticks * mult < 2^128.
 *
 *  - Never below the exact value E = ticks * 10^9 / hz: mult / 2^shift is
 *    rounded up, so ticks * mult / 2^shift = E + e with 0 <= e < ticks / 2^shift.
 *
 *  - e is tiny: shift is the largest that fits, so with shift + 1 the
 *    rounded-up multiplier would reach 2^64, i.e. 2 * 10^9 * 2^shift / hz
 *    > 2^64 - 1, hence mult >= 10^9 * 2^shift / hz > 2^63 - 1/2, mult >= 2^63,
 *    and 2^shift > (2^63 - 1) * hz / 10^9. So e < E / (2^63 - 1). (If shift
 *    were capped at 98, which needs hz > 10^9 * 2^34, more than a 64-bit hz
 *    holds, e < 2^64 / 2^98 would still be below 1.)
 *
 *  - The result floor(E + e) therefore differs from E by less than 1 ns
 *    whenever E < 2^63 - 1 ns, about 292 years. One hour at 10 GHz is
 *    3.6 * 10^13 ticks, E = 3.6 * 10^12 ns, e < 4 * 10^-7 ns: the result is
 *    floor(E) or, only if E's fraction is within 4 * 10^-7 of 1, floor(E) + 1.
 */

#define TSC_SHIFT_MAX 98u

/* ceil(10^9 * 2^shift / hz) < 2^64? The value goes to *mult when it does. */
static bool scale_fits(uint64_t hz, unsigned shift, uint64_t *mult)
{
    u128 rem;
    u128 q = div128((u128)NS_PER_S << shift, hz, &rem);

    if (rem)
        q++;
    if (q >> 64)
        return false;
    *mult = (uint64_t)q;
    return true;
}

bool tsc_scale_init(struct tsc_scale *s, uint64_t hz)
{
    uint64_t mult = 0;
    int shift;

    s->hz = 0;
    s->mult = 0;
    s->shift = 0;
    if (hz == 0)
        return false;
    /* 2^29 < 10^9 < 2^30, so the answer lies within a step or two of this. */
    shift = 64 + (int)fls64(hz) - 31;
    if (shift < 0)
        shift = 0;
    if (shift > (int)TSC_SHIFT_MAX)
        shift = TSC_SHIFT_MAX;
    while (shift > 0 && !scale_fits(hz, (unsigned)shift, &mult))
        shift--;
    while ((unsigned)shift < TSC_SHIFT_MAX && scale_fits(hz, (unsigned)shift + 1, &mult))
        shift++;
    scale_fits(hz, (unsigned)shift, &mult);     /* the loops may have left s + 1's */
    s->hz = hz;
    s->mult = mult;
    s->shift = (unsigned)shift;
    return true;
}

uint64_t tsc_scale_ns(const struct tsc_scale *s, uint64_t ticks)
{
    u128 ns;

    if (ticks == 0)
        return 0;
    if (s->hz == 0)
        return UINT64_MAX;
    ns = ((u128)ticks * s->mult) >> s->shift;
    return (ns >> 64) ? UINT64_MAX : (uint64_t)ns;
}

uint64_t tsc_median(uint64_t *v, unsigned n)
{
    /* Insertion sort: n is a handful of windows. */
    for (unsigned i = 1; i < n; i++) {
        uint64_t x = v[i];
        unsigned j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    if (n == 0)
        return 0;
    if (n & 1)
        return v[n / 2];
    /* Mean of the middle two, rounded down, without overflowing a + b. */
    return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

uint32_t tsc_spread_ppm(const uint64_t *v, unsigned n, uint64_t median)
{
    uint64_t lo, hi;
    u128 ppm;

    if (n < 2 || median == 0)
        return 0;
    lo = hi = v[0];
    for (unsigned i = 1; i < n; i++) {
        lo = MIN(lo, v[i]);
        hi = MAX(hi, v[i]);
    }
    ppm = div128_round((u128)(hi - lo) * 1000000u, median);
    return ppm > UINT32_MAX ? UINT32_MAX : (uint32_t)ppm;
}

void tsc_consensus(uint64_t *v, unsigned n, uint32_t band_ppm, struct tsc_consensus *out)
{
    unsigned best = 0, best_len = 0;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return;
    tsc_median(v, n);       /* sorts */
    /* Sorted, every group worth having is a run v[i..j]: slide over them. */
    for (unsigned i = 0, j = 0; i < n; i++) {
        uint64_t top = v[i] + tsc_muldiv(v[i], band_ppm, 1000000u);

        if (top < v[i])
            top = UINT64_MAX;
        if (j < i)
            j = i;
        while (j + 1 < n && v[j + 1] <= top)
            j++;
        if (j - i + 1 > best_len) {
            best = i;
            best_len = j - i + 1;
        }
    }
    out->kept = best_len;
    out->hz = tsc_median(v + best, best_len);
    out->spread_ppm = tsc_spread_ppm(v + best, best_len, out->hz);
}

