// SPDX-License-Identifier: MIT
// What a timed window of the benchmark leaves: its figure in the unit every
// record uses, the `result` record, and the check that a run's free pages
// are every strategy's.
#include "bench/result.h"

#include "bench/stats.h"
#include "kernel/console/record.h"
#include "kernel/lib/string.h"
#include "kernel/time/tsc.h"
#include "mm/peers/peer.h"

/* The benchmark's constants, from bench_result_setup(). */
static uint64_t pages;
static bool calibrated;
static const char *cost_model = "";
static unsigned touch_runs;

void bench_result_setup(uint64_t npages, bool cal, const char *xen_costs, unsigned ntouch)
{
    pages = npages;
    calibrated = cal;
    cost_model = xen_costs;
    touch_runs = ntouch;
}

uint64_t bench_units(uint64_t ticks)
{
    return calibrated ? tsc_to_ns(ticks) : ticks;
}

void bench_record_ns(struct record *r, const char *key, uint64_t v)
{
    if (calibrated)
        record_u64(r, key, v);
    else
        record_null(r, key);
}

void bench_record_result(const struct series *x, unsigned run, const char *phase, uint64_t ticks,
                         uint64_t first_alloc, unsigned cpus)
{
    bench_record_shared(x, run, phase, ticks, first_alloc, cpus, NULL);
}

void bench_record_shared(const struct series *x, unsigned run, const char *phase, uint64_t ticks,
                         uint64_t first_alloc, unsigned cpus, const struct series *from)
{
    struct record r;
    uint64_t v = bench_units(ticks);

    record_begin(&r, "result");
    record_str(&r, "strategy", x->name);
    record_u64(&r, "run", run);
    record_str(&r, "phase", phase);
    record_u64(&r, "pages", pages);
    record_str(&r, "xen_costs", cost_model);
    record_u64(&r, "cpus", cpus);
    record_u64(&r, "ticks", ticks);
    bench_record_ns(&r, "ns", v);
    if (calibrated)
        record_fixed(&r, "ns_per_page", (int64_t)stat_per_page_milli(v, pages), 3);
    else
        record_null(&r, "ns_per_page");
    if (!x->s && !x->p) {
        record_u64(&r, "bytes", x->layout == FLOOR_XEN ? heap_floor_bytes() : peer_floor_bytes(x->layout));
        /* The floor is the fastest way of filling its bytes this run: each way's figure beside it. */
        if (x->nways) {
            record_str(&r, "way", x->way);
            record_obj_begin(&r, "ways_ns");
            for (unsigned i = 0; i < x->nways; i++)
                bench_record_ns(&r, x->way_names[i], bench_units(x->way_ticks[i]));
            record_obj_end(&r);
        }
    }
    if ((x->s || x->p) && !strcmp(phase, "init") && (x->p || run < touch_runs))
        bench_record_ns(&r, "first_alloc_ns", first_alloc);
    if (from && from != x)
        record_str(&r, "shared_from", from->name);
    record_end(&r);
}
