/* SPDX-License-Identifier: MIT */
/*
 * How every timed window of the benchmark is opened and repeated, one set
 * of rules for all (docs/hosted-speeds.md, "One prelude for every window"):
 * the prelude that puts the tables and the caches in one state, the ways a
 * floor is timed, and the repetition of a window shorter than repeat_us=.
 */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/series.h"
#include "kernel/lib/errno.h"
#include "mm/heap.h"

/*
 * The prelude of a window of series x (a Xen strategy, a peer, or a
 * floor): the tables it writes reset (Xen's page_info and M2P, or its peer
 * layout's array) and the caches settled by the platform
 * (bench_window_settle()). Returns 0, or a peer's reset error with e set.
 */
int bench_prelude(const struct series *x, struct err *e);

/* The ways a floor is timed (the fastest counts): names[i] fills with fills[i]. Returns how many. */
unsigned bench_floor_ways(const char **names, heap_fill_fn **fills, unsigned max);

/* One window's repetitions: the timed ticks, their count, the ticks the preludes between them took. */
struct reps {
    uint64_t ticks;
    unsigned n;
    uint64_t prelude_ticks;
};

/*
 * Whether another repetition follows one that took ticks (added to r):
 * while the total, with also (ticks timed beside them, a first allocation
 * say), is under repeat_us= and the repetitions under their cap;
 * with_prelude when each needs a full prelude, which a budget bounds.
 */
bool bench_repeat(struct reps *r, uint64_t ticks, bool with_prelude, uint64_t also);

/* The ticks of one repetition, on the mean: r's total over its count. */
static inline uint64_t reps_mean(const struct reps *r)
{
    return r->n ? r->ticks / r->n : 0;
}

#endif
