// SPDX-License-Identifier: MIT
// The calibration run: the PIT probe, the windows and their retries, and the
// reference counters read at every window boundary.
#include "kernel/time/calibrate.h"

#include "kernel/lib/libc.h"
#include "kernel/time/clkio.h"
#include "kernel/time/pit.h"
#include "kernel/time/tsc_math.h"

/*
 * The probe's timeouts assume a 10 GHz TSC (refclock.h): its 4 ms timeout
 * is 19 ms at 2.1 GHz. The probe is tried three times before the PIT is
 * called dead, because an emulated PIT can stand still for several ms when
 * the host deschedules QEMU.
 */
#define PIT_PROBE_US        1000u
#define PIT_PROBE_TIMEOUT_US 4000u
#define PIT_PROBE_TRIES     3u
/* Windows beyond the number wanted (retries) are not started past this point. */
#define CAL_BUDGET_MS       230u

static void refs_sample(struct cal *c)
{
    ref_sample(&c->hpet);
    ref_sample(&c->pm);
}

/*
 * A reference that paces the windows must count: one that stands still
 * would make every window spin to its limit. The HPET first, for its
 * resolution, then the PM timer.
 */
static struct ref *pacer(struct cal *c)
{
    struct ref *refs[] = { &c->hpet, &c->pm };

    for (unsigned i = 0; i < 2; i++) {
        if (!refs[i]->present)
            continue;
        if (ref_counts(refs[i]))
            return refs[i];
        refs[i]->why = "counter does not advance";
    }
    return NULL;
}

/*
 * With the PIT dead the references still measure the TSC, over windows that
 * one of them paces.
 */
static void paced_windows(struct cal *c, enum tsc_win_verdict v)
{
    struct ref *timer = pacer(c);

    tsc_pit_summarise(c->w, 0, &c->pit, &c->res);
    c->res.dead = v;
    snprintf(c->res.why, sizeof(c->res.why), "dead (%s%s, %u tries)",
             tsc_win_verdict_name(v), v == TSC_WIN_NO_RISE ? " within 4 ms" : "",
             PIT_PROBE_TRIES);
    for (unsigned i = 0; timer && i < c->want; i++) {
        ref_wait(timer, c->ms);
        refs_sample(c);
    }
}

/*
 * A 1 ms probe first: it finds a dead PIT within three 4 ms timeouts "at
 * 10 GHz", and its rough rate bounds the real windows' timeouts. Then the
 * cost of one poll, which may lengthen the windows (tsc_pit_plan()); then
 * windows until want of them pass the rule, or twice that many ran, or the
 * retries would take the calibration past CAL_BUDGET_MS; the references are
 * read at every window boundary.
 */
void calibrate(struct cal *c, uint64_t t0)
{
    struct tsc_window probe;
    struct tsc_pit_setup ps;
    uint64_t probe_timeout = tsc_muldiv(TSC_HZ_CEIL, PIT_PROBE_TIMEOUT_US, 1000000u);
    uint64_t rough_hz, timeout, budget;
    enum tsc_win_verdict v = TSC_WIN_OK;
    unsigned passed = 0;

    tsc_pit_plan(&ps, PIT_PROBE_US / 1000u, 1, false, 0, 0);
    tsc_pit_plan(&c->pit, c->ms, c->want, c->pit_loads_next_clock, 0, 0);
    for (unsigned i = 0; i < PIT_PROBE_TRIES; i++) {
        pit_oneshot(ps.latch, probe_timeout, &probe);
        v = tsc_window_check(&probe, &ps);
        if (v != TSC_WIN_STUCK_HIGH && v != TSC_WIN_NO_RISE)
            break;
    }
    refs_sample(c);
    if (v == TSC_WIN_NO_RISE || v == TSC_WIN_STUCK_HIGH) {
        paced_windows(c, v);
        return;
    }
    c->pit_fires = true;
    /* Four windows' worth at the probe's rate; a probe stretched by a stall
     * only makes the timeout longer. */
    rough_hz = tsc_hz_measured(probe.ticks, ps.latch, PIT_HZ, 1);
    if (!rough_hz)
        rough_hz = TSC_HZ_CEIL;
    tsc_pit_plan(&c->pit, c->ms, c->want, c->pit_loads_next_clock, pit_poll_ticks(), rough_hz);
    timeout = tsc_muldiv(rough_hz, 4ull * c->pit.latch, PIT_HZ);
    budget = tsc_muldiv(rough_hz, CAL_BUDGET_MS, 1000u);
    for (c->n = 0; c->n < 2 * c->want && passed < c->want; c->n++) {
        if (c->n >= c->want &&
            clkio_tsc() - t0 + tsc_muldiv(rough_hz, c->pit.ms, 1000u) > budget)
            break;
        pit_oneshot(c->pit.latch, timeout, &c->w[c->n]);
        refs_sample(c);
        v = tsc_window_check(&c->w[c->n], &c->pit);
        passed += v == TSC_WIN_OK;
        if (v == TSC_WIN_NO_RISE) {
            c->n++;
            break;
        }
    }
    tsc_pit_summarise(c->w, c->n, &c->pit, &c->res);
}
