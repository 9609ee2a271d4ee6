// SPDX-License-Identifier: MIT
// PIT windows: the rule that judges one window, and the summary that turns
// the windows of a calibration into one rate or a reason it has none.
#include "kernel/time/window.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"
#include "kernel/time/tsc_math.h"

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
uint32_t pit_latch_for_us(uint32_t us)
{
    uint64_t latch = ((uint64_t)us * PIT_HZ + 500000u) / 1000000u;

    return latch < 1 ? 1 : latch > 0xffff ? 0xffff : (uint32_t)latch;
}

void tsc_pit_plan(struct tsc_pit_setup *s, unsigned ms, unsigned want, bool loads_next_clock,
                  uint64_t poll_ticks, uint64_t hz)
{
    uint64_t polls_ppm;

    s->want = want;
    s->loads_next_clock = loads_next_clock;
    s->poll_ticks = poll_ticks;
    /* TSC_BAND_POLLS polls as a share of a window of m ms, in ppm. */
#define POLLS_PPM(m) tsc_muldiv(TSC_BAND_POLLS * poll_ticks, 1000000000u, (m) * hz)
    polls_ppm = hz ? POLLS_PPM(ms) : 0;
    if (polls_ppm > TSC_BAND_PPM && ms < PIT_MS_MAX) {
        ms = PIT_MS_MAX;
        polls_ppm = POLLS_PPM(ms);
    }
#undef POLLS_PPM
    s->ms = ms;
    s->latch = pit_latch_for_us(ms * 1000u);
    s->band_ppm = (uint32_t)MIN(MAX(polls_ppm, TSC_BAND_PPM), UINT32_MAX);
}

enum tsc_win_verdict tsc_window_check(const struct tsc_window *w, const struct tsc_pit_setup *s)
{
    uint64_t window_us = (uint64_t)s->latch * 1000000u / PIT_HZ;
    uint64_t min_passes = window_us * TSC_WIN_PASSES_PER_MS / 1000u;
    uint64_t typical, edge;

    /* As many polls as Linux asks for, or a share of what their cost allows. */
    if (s->poll_ticks)
        min_passes = MIN(min_passes, w->ticks / s->poll_ticks / TSC_WIN_POLLS_DIV);

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

uint64_t tsc_window_edge_ppm(const struct tsc_window *w)
{
    /* Each edge is known to within its bracket: half the sum of both. */
    return tsc_muldiv(w->start_gap + w->last_gap, 1000000u, 2 * w->ticks) + 1;
}

uint32_t tsc_load_phase_ppm(const struct tsc_pit_setup *s)
{
    /* A real 8254's load phase: half a clock either way. */
    return s->loads_next_clock ? (1000000u + 2 * s->latch - 1) / (2 * s->latch) : 0;
}

void tsc_pit_summarise(const struct tsc_window *w, unsigned n, const struct tsc_pit_setup *s,
                       struct tsc_pit_result *out)
{
    uint64_t hz[TSC_RUNS_MAX];
    struct tsc_consensus c;
    unsigned passed = 0;
    uint64_t edge_ppm = 0;

    memset(out, 0, sizeof(*out));
    out->dead = TSC_WIN_OK;
    if (n > TSC_RUNS_MAX)
        n = TSC_RUNS_MAX;
    out->windows = n;
    for (unsigned i = 0; i < n; i++) {
        enum tsc_win_verdict v = tsc_window_check(&w[i], s);

        if (v == TSC_WIN_OK) {
            /* Half clocks tick at twice the input clock's rate. */
            hz[passed++] = tsc_hz_measured(w[i].ticks, pit_clocks_x2(s->latch, s->loads_next_clock),
                                           2ull * PIT_HZ, 1);
            edge_ppm = MAX(edge_ppm, tsc_window_edge_ppm(&w[i]));
        } else
            out->rejected[v]++;
    }
    /* A count that never ran out within its timeout is a dead PIT. OUT2 high
     * at the first poll can also be a vCPU preempted for a whole window, so
     * that marks the PIT dead only when every window saw it. */
    if (out->rejected[TSC_WIN_NO_RISE])
        out->dead = TSC_WIN_NO_RISE;
    else if (n && out->rejected[TSC_WIN_STUCK_HIGH] == n)
        out->dead = TSC_WIN_STUCK_HIGH;

    tsc_consensus(hz, passed, s->band_ppm, &c);
    out->hz = c.hz;
    out->accepted = c.kept;
    out->outliers = passed - c.kept;
    out->spread_ppm = c.spread_ppm;
    edge_ppm += tsc_load_phase_ppm(s);
    out->unc_ppm = (uint32_t)MIN(edge_ppm + (c.spread_ppm + 1) / 2, UINT32_MAX);

    if (out->dead != TSC_WIN_OK)
        snprintf(out->why, sizeof(out->why), "dead (%s)", tsc_win_verdict_name(out->dead));
    else if (n == 0)
        snprintf(out->why, sizeof(out->why), "not run");
    else if ((out->disturbed = passed == 0))
        snprintf(out->why, sizeof(out->why),
                 "unusable: no window passed (%u with too few polls, %u with an edge gap)",
                 out->rejected[TSC_WIN_FEW_PASSES], out->rejected[TSC_WIN_GAP]);
    else if ((out->disturbed = c.kept * 2 <= passed || c.kept < MIN(2u, s->want)))
        snprintf(out->why, sizeof(out->why),
                 "unusable: only %u of %u windows agree within %u ppm", c.kept, n, s->band_ppm);
    else if (out->hz < TSC_HZ_MIN || out->hz > TSC_HZ_MAX)
        snprintf(out->why, sizeof(out->why), "unusable: rate %llu Hz out of range",
                 (unsigned long long)out->hz);
    else
        out->usable = true;
}
