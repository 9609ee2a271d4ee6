// SPDX-License-Identifier: MIT
// Reference counters sampled at window boundaries: the sampling, the paced
// wait that stands in for a dead PIT, and the rate their windows agree on.
#include "kernel/time/refclock.h"

#include "kernel/lib/compiler.h"
#include "kernel/time/clkio.h"
#include "kernel/time/tsc_math.h"

/*
 * One (TSC, counter) pair: the counter read between two TSC reads, the
 * tightest bracket of a few tries kept, so that an SMI or a preempted vCPU
 * inside one try does not skew the pair (Linux's tsc_read_refs() keeps only
 * reads with a small bracket for the same reason).
 */
static void pair(const struct ref *r, uint64_t *tsc, uint64_t *cnt, uint64_t *bracket)
{
    *bracket = UINT64_MAX;
    for (unsigned i = 0; i < REF_SAMPLE_TRIES; i++) {
        uint64_t a = clkio_tsc();
        uint64_t c = r->read(r);
        uint64_t b = clkio_tsc();

        if (b - a < *bracket) {
            *bracket = b - a;
            *tsc = a + (b - a) / 2;
            *cnt = c;
        }
    }
}

void ref_sample(struct ref *r)
{
    if (!r->present || r->n >= REF_SAMPLES_MAX)
        return;
    pair(r, &r->tsc[r->n], &r->cnt[r->n], &r->bracket[r->n]);
    r->n++;
}

/* Spins until r has counted ms since it read c0, or twice that at TSC_HZ_CEIL passed. */
static void spin(const struct ref *r, uint64_t c0, unsigned ms)
{
    uint64_t want = tsc_muldiv(r->num, ms, r->den * 1000u);
    uint64_t limit = tsc_muldiv(TSC_HZ_CEIL, 2ull * ms, 1000u);
    uint64_t t0 = clkio_tsc();

    while (((r->read(r) - c0) & r->mask) < want && clkio_tsc() - t0 < limit)
        clkio_relax();
}

bool ref_counts(const struct ref *r)
{
    uint64_t limit = tsc_muldiv(TSC_HZ_CEIL, 1, 1000u);
    uint64_t t0 = clkio_tsc(), c0 = r->read(r);

    while (clkio_tsc() - t0 < limit)
        if (r->read(r) != c0)
            return true;
    return false;
}

void ref_wait(const struct ref *r, unsigned ms)
{
    spin(r, r->n ? r->cnt[r->n - 1] : r->read(r), ms);
}

uint64_t ref_interval(const struct ref *r, unsigned ms, uint64_t *ticks, uint64_t *bracket)
{
    uint64_t t0, c0, b0, t1, c1, b1;

    pair(r, &t0, &c0, &b0);
    spin(r, c0, ms);
    pair(r, &t1, &c1, &b1);
    *ticks = t1 - t0;
    *bracket = MAX(b0, b1);
    return (c1 - c0) & r->mask;
}

void ref_result(const struct ref *r, struct tsc_clock *c)
{
    uint64_t hz[REF_SAMPLES_MAX], edge_ppm = 0;
    struct tsc_consensus k;
    unsigned n = 0, windows = r->n ? r->n - 1 : 0;

    c->why = r->why;
    c->kind = TSC_KIND_MEASURED;
    if (!r->present) {
        c->state = r->why ? TSC_CLK_BAD : TSC_CLK_ABSENT;
        return;
    }
    for (unsigned i = 1; i < r->n; i++) {
        uint64_t d = (r->cnt[i] - r->cnt[i - 1]) & r->mask;
        uint64_t dt = r->tsc[i] - r->tsc[i - 1];

        if (!d || !dt)
            continue;
        hz[n++] = tsc_hz_measured(dt, d, r->num, r->den);
        /* Each sample is known to within half its bracket, and the count to one tick. */
        edge_ppm = MAX(edge_ppm, tsc_muldiv(r->bracket[i - 1] + r->bracket[i], 1000000u, 2 * dt) +
                                 (1000000u + d - 1) / d);
    }
    tsc_consensus(hz, n, TSC_BAND_PPM, &k);
    c->hz = k.hz;
    c->unc_ppm = (uint32_t)MIN(edge_ppm + (k.spread_ppm + 1) / 2, UINT32_MAX);
    if (n == 0) {
        c->why = windows ? "counter does not advance" : r->why ? r->why : "no window to measure over";
        c->state = TSC_CLK_BAD;
    } else if (k.kept * 2 <= windows) {
        c->why = "its windows disagree";
        c->state = TSC_CLK_BAD;
        c->disturbed = true;
    } else {
        c->state = TSC_CLK_OK;
    }
}
