/* SPDX-License-Identifier: MIT */
/*
 * How every timed window of the benchmark is opened and repeated, one set
 * of rules for all (docs/hosted-windows.md, "One prelude for every window"):
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

/* 0, or with rewind_check, -EINVAL with e set when x's rewind left an entry a reset would zero. */
int bench_rewound(const struct series *x, struct err *e);

/*
 * One window's repetitions: the timed ticks of all of them and of the first,
 * their count, the ticks the preludes or rewinds between them took. The
 * first opens on the prelude; the others on a rewind, or a prelude again.
 */
struct reps {
    uint64_t ticks, first;
    uint64_t also, also_first;      /* bench_repeat()'s also, likewise */
    unsigned n;
    uint64_t prelude_ticks;
};

/*
 * Whether another repetition follows one that took ticks (added to r):
 * while the repetitions after the first, with what each timed beside them
 * (also: the first allocation after an init, say, or the init before a first
 * allocation), total under repeat_us= and number under
 * their cap; with_prelude when each needs a full prelude, which a budget
 * bounds. A window whose first repetition passes repeat_us= is not repeated
 * unless a rewind undoes it.
 */
bool bench_repeat(struct reps *r, uint64_t ticks, bool with_prelude, uint64_t also);

/*
 * The ticks of one repetition: the mean of those after the first, when
 * there are any. The first pays whatever the window's first accesses to far
 * pages cost the host beyond the strategy's own work (on the Xeon guest of
 * docs/hosted-speeds.md, up to 0.1 ms a 2 MiB page); it is recorded apart.
 */
static inline uint64_t reps_mean(const struct reps *r)
{
    return r->n > 1 ? (r->ticks - r->first) / (r->n - 1) : r->ticks;
}

#endif
