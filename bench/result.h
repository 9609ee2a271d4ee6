/* SPDX-License-Identifier: MIT */
/*
 * What a timed window of the benchmark leaves: its ticks in the unit every
 * figure uses, its `result` record, and the check that a run's free pages
 * are every strategy's. The driver (bench/bench.c) and a peer's run
 * (bench/peer_run.c) both record through it; it calls neither.
 */
#ifndef BENCH_RESULT_H
#define BENCH_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/series.h"
#include "kernel/lib/errno.h"
#include "mm/heap.h"

struct record;

/*
 * What every `result` record says of the whole benchmark, given once before
 * the first run: the pages handed over, whether the TSC is calibrated
 * (figures in ns, else in ticks), xen_costs= as it ran (kept, not copied),
 * and touch_runs (the first touch is timed in runs [0, touch_runs)).
 */
void bench_result_setup(uint64_t pages, bool calibrated, const char *xen_costs, unsigned touch_runs);

/* Ticks to the unit every figure uses: ns when calibrated, else ticks. */
uint64_t bench_units(uint64_t ticks);

/* v under key when the TSC is calibrated (v in ns), else null. */
void bench_record_ns(struct record *r, const char *key, uint64_t v);

/* A `result` record: phase "init", "first_touch", or a peer's later part; cpus it ran on. */
void bench_record_result(const struct series *x, unsigned run, const char *phase, uint64_t ticks,
                         uint64_t first_alloc, unsigned cpus);

/* The same, for a first touch timed after another strategy's same heap: it names from. */
void bench_record_shared(const struct series *x, unsigned run, const char *phase, uint64_t ticks,
                         uint64_t first_alloc, unsigned cpus, const struct series *from);

/*
 * 0 when audit a holds the pages of digest ref (0: nothing to compare yet),
 * else -EINVAL with e saying so. Inline, as it was when the driver held it:
 * an out-of-line call changes how the compiler allocates registers in the
 * driver's run_strategy(), whose first-touch loop is timed.
 */
static inline int bench_check_pages(const struct series *x, unsigned run, const struct heap_audit *a,
                                    uint64_t ref, struct err *e)
{
    if (!ref || a->page_digest == ref)
        return 0;
    return err_set(e, -EINVAL, "%s run %u: its free pages (digest 0x%016llx) differ from the first "
                   "strategy's (0x%016llx)", x->name, run, (unsigned long long)a->page_digest,
                   (unsigned long long)ref);
}

#endif
