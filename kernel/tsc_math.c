// SPDX-License-Identifier: MIT
// TSC calibration arithmetic shared by the kernel and the host tests: no
// port I/O, no floats, and no 128-bit division from libgcc (the kernel has none).
#include "kernel/tsc_math.h"

#include <stdarg.h>

#include "kernel/compiler.h"
#include "kernel/libc.h"

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

/* ---- PIT windows ---------------------------------------------------------- */

/*
 * The rule of Linux's pit_calibrate_tsc() - too few polls, or one poll that
 * stalled far longer than the rest - refined by where the stall fell. A
 * window is only as good as its two edges: the TSC read right after the
 * write that loads the count, and the TSC read right after the poll that
 * saw OUT2 high. A stall (an SMI, the vCPU preempted) inside the window
 * costs nothing, since the PIT and the TSC both keep counting through it;
 * the same stall at an edge moves the result by its whole length. So every
 * gap is measured, and a window is thrown away when the gap at either edge
 * is outsized: longer than TSC_WIN_GAP_FACTOR typical polls, and longer than
 * TSC_WIN_GAP_MIN_PPM of the window (below that it cannot matter). Under
 * TCG the vCPU stalls for milliseconds inside most 20 ms windows, which
 * Linux's rule would reject every time.
 */
enum tsc_win_verdict tsc_window_check(const struct tsc_window *w, uint32_t latch)
{
    uint64_t window_us = (uint64_t)latch * 1000000u / PIT_HZ;
    uint64_t min_passes = window_us * TSC_WIN_PASSES_PER_MS / 1000u;
    uint64_t typical, edge;

    if (w->high_at_start)
        return TSC_WIN_STUCK_HIGH;
    if (!w->fired)
        return TSC_WIN_NO_RISE;
    if (w->passes < 2 || w->passes < min_passes)
        return TSC_WIN_FEW_PASSES;
    /* The mean poll with the longest stall left out, so the stall being
     * judged does not raise its own bar. */
    typical = (w->ticks - MIN(w->max_gap, w->ticks)) / (w->passes - 1);
    edge = MAX(w->start_gap, w->last_gap);
    if (edge > typical * TSC_WIN_GAP_FACTOR &&
        edge > tsc_muldiv(w->ticks, TSC_WIN_GAP_MIN_PPM, 1000000u))
        return TSC_WIN_GAP;
    return TSC_WIN_OK;
}

const char *tsc_win_verdict_name(enum tsc_win_verdict v)
{
    switch (v) {
    case TSC_WIN_OK: return "ok";
    case TSC_WIN_NO_RISE: return "OUT2 never rose";
    case TSC_WIN_STUCK_HIGH: return "OUT2 high before the count ran out";
    case TSC_WIN_FEW_PASSES: return "too few polls";
    case TSC_WIN_GAP: return "an outsized gap at an edge";
    }
    return "?";
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

void tsc_pit_summarise(const struct tsc_window *w, unsigned n, uint32_t latch, unsigned want,
                       struct tsc_pit_result *out)
{
    uint64_t hz[TSC_RUNS_MAX];
    struct tsc_consensus c;
    unsigned passed = 0;

    memset(out, 0, sizeof(*out));
    out->dead = TSC_WIN_OK;
    if (n > TSC_RUNS_MAX)
        n = TSC_RUNS_MAX;
    out->windows = n;
    for (unsigned i = 0; i < n; i++) {
        enum tsc_win_verdict v = tsc_window_check(&w[i], latch);

        if (v == TSC_WIN_OK)
            hz[passed++] = tsc_hz_measured(w[i].ticks, latch, PIT_HZ, 1);
        else
            out->rejected[v]++;
    }
    /* A count that never ran out within its timeout is a dead PIT. OUT2 high
     * at the first poll can also be a vCPU preempted for a whole window, so
     * that marks the PIT dead only when every window saw it. */
    if (out->rejected[TSC_WIN_NO_RISE])
        out->dead = TSC_WIN_NO_RISE;
    else if (n && out->rejected[TSC_WIN_STUCK_HIGH] == n)
        out->dead = TSC_WIN_STUCK_HIGH;

    tsc_consensus(hz, passed, TSC_BAND_PPM, &c);
    out->hz = c.hz;
    out->accepted = c.kept;
    out->outliers = passed - c.kept;
    out->spread_ppm = c.spread_ppm;

    if (out->dead != TSC_WIN_OK)
        snprintf(out->why, sizeof(out->why), "dead (%s)", tsc_win_verdict_name(out->dead));
    else if (n == 0)
        snprintf(out->why, sizeof(out->why), "not run");
    else if (passed == 0)
        snprintf(out->why, sizeof(out->why),
                 "unusable: no window passed (%u with too few polls, %u with an edge gap)",
                 out->rejected[TSC_WIN_FEW_PASSES], out->rejected[TSC_WIN_GAP]);
    else if (c.kept * 2 <= passed || c.kept < MIN(2u, want))
        snprintf(out->why, sizeof(out->why),
                 "unusable: only %u of %u windows agree within %u ppm", c.kept, n, TSC_BAND_PPM);
    else if (out->hz < TSC_HZ_MIN || out->hz > TSC_HZ_MAX)
        snprintf(out->why, sizeof(out->why), "unusable: rate %llu Hz out of range",
                 (unsigned long long)out->hz);
    else
        out->usable = true;
}

/* ---- choosing the clock --------------------------------------------------- */

const char *tsc_src_name(enum tsc_src s)
{
    static const char *const names[TSC_SRC_COUNT + 1] = {
        [TSC_SRC_PIT] = "pit",
        [TSC_SRC_HYPERVISOR] = "hypervisor",
        [TSC_SRC_CPUID15] = "cpuid15",
        [TSC_SRC_HPET] = "hpet",
        [TSC_SRC_PMTIMER] = "pmtimer",
        [TSC_SRC_CPUID16] = "cpuid16",
        [TSC_SRC_NONE] = "none",
    };
    return (unsigned)s <= TSC_SRC_NONE ? names[s] : "?";
}

uint32_t tsc_agree_ppm(enum tsc_src s)
{
    return s == TSC_SRC_CPUID16 ? TSC_AGREE_NOMINAL_PPM : TSC_AGREE_PPM;
}

/* Symmetric: the difference is taken against the lower figure, the stricter way. */
static bool agree(const struct tsc_clock *clk, enum tsc_src a, enum tsc_src b)
{
    uint64_t lo = MIN(clk[a].hz, clk[b].hz), hi = MAX(clk[a].hz, clk[b].hz);
    uint64_t mag = (uint64_t)tsc_ppm(hi, lo);

    return mag <= MAX(tsc_agree_ppm(a), tsc_agree_ppm(b));
}

__printf(2, 3) static void cat(char *buf, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;

    if (len + 1 >= TSC_REASON_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + len, TSC_REASON_MAX - len, fmt, ap);
    va_end(ap);
}

/* Appends "a (+1 ppm), b (-2 ppm)" for the references with want == agree(PIT, r). */
static void list_vs_pit(char *buf, const struct tsc_clock *clk, const bool *usable,
                        const int64_t *ppm, bool want)
{
    const char *sep = "";

    for (int r = TSC_SRC_PIT + 1; r < TSC_SRC_COUNT; r++) {
        if (!usable[r] || agree(clk, TSC_SRC_PIT, r) != want)
            continue;
        cat(buf, "%s%s (%+lld ppm)", sep, tsc_src_name(r), (long long)ppm[r]);
        sep = ", ";
    }
}

void tsc_choose(const struct tsc_clock clk[TSC_SRC_COUNT], struct tsc_choice *out)
{
    bool usable[TSC_SRC_COUNT];
    unsigned nref = 0, nagree = 0;
    int best = TSC_SRC_NONE;
    bool vouched = false;

    memset(out, 0, sizeof(*out));
    out->source = TSC_SRC_NONE;
    for (int i = 0; i < TSC_SRC_COUNT; i++) {
        usable[i] = clk[i].state == TSC_CLK_OK && clk[i].hz >= TSC_HZ_MIN &&
                    clk[i].hz <= TSC_HZ_MAX;
        out->status[i] = clk[i].state == TSC_CLK_ABSENT ? TSC_CLK_ABSENT
                         : usable[i] ? TSC_CLK_OK : TSC_CLK_BAD;
        out->has_ppm[i] = clk[i].hz && clk[TSC_SRC_PIT].hz;
        if (out->has_ppm[i])
            out->ppm[i] = tsc_ppm(clk[i].hz, clk[TSC_SRC_PIT].hz);
        if (i != TSC_SRC_PIT && usable[i]) {
            nref++;
            nagree += usable[TSC_SRC_PIT] && agree(clk, TSC_SRC_PIT, i);
        }
    }

    if (usable[TSC_SRC_PIT]) {
        if (nref == 0) {
            best = TSC_SRC_PIT;
            cat(out->reason, "pit: no other clock to compare with");
        } else if (2 * nagree > nref) {
            /* All, or a strict majority: one dissenting reference is
             * likelier wrong than the PIT and the rest together. */
            best = TSC_SRC_PIT;
            cat(out->reason, "pit agrees with ");
            list_vs_pit(out->reason, clk, usable, out->ppm, true);
            if (nagree < nref) {
                cat(out->reason, "; ");
                list_vs_pit(out->reason, clk, usable, out->ppm, false);
                cat(out->reason, " disagree%s", nref - nagree == 1 ? "s" : "");
            }
        } else {
            cat(out->reason, "pit disagrees with ");
            list_vs_pit(out->reason, clk, usable, out->ppm, false);
        }
    } else {
        cat(out->reason, "pit %s", clk[TSC_SRC_PIT].why ? clk[TSC_SRC_PIT].why
                          : clk[TSC_SRC_PIT].state == TSC_CLK_ABSENT ? "absent" : "unusable");
    }

    /* Otherwise the best reference that another clock vouches for. */
    for (int r = TSC_SRC_PIT + 1; best == TSC_SRC_NONE && r < TSC_SRC_COUNT; r++) {
        if (!usable[r])
            continue;
        for (int k = 0; k < TSC_SRC_COUNT; k++) {
            if (k != r && usable[k] && agree(clk, r, k)) {
                best = r;
                vouched = true;
                break;
            }
        }
    }
    for (int r = TSC_SRC_PIT + 1; best == TSC_SRC_NONE && r < TSC_SRC_COUNT; r++)
        if (usable[r])
            best = r;

    if (best == TSC_SRC_NONE) {
        cat(out->reason, "; no usable reference: uncalibrated");
        return;
    }
    if (best != TSC_SRC_PIT && vouched) {
        const char *sep = " ";

        cat(out->reason, "; %s chosen, agrees with", tsc_src_name(best));
        for (int k = 0; k < TSC_SRC_COUNT; k++) {
            if (k != best && usable[k] && agree(clk, best, k)) {
                cat(out->reason, "%s%s", sep, tsc_src_name(k));
                sep = ", ";
            }
        }
    } else if (best != TSC_SRC_PIT) {
        cat(out->reason, "; %s chosen, %s", tsc_src_name(best),
            nref + usable[TSC_SRC_PIT] > 1 ? "uncorroborated" : "the only clock left");
    }
    out->source = best;
    out->hz = clk[best].hz;
    out->calibrated = true;
    /* A usable clock that disagrees with the rate chosen is marked bad. */
    for (int i = 0; i < TSC_SRC_COUNT; i++)
        if (usable[i] && i != best && !agree(clk, i, best))
            out->status[i] = TSC_CLK_BAD;
}
