/* SPDX-License-Identifier: MIT */
/*
 * One series of figures per strategy and floor: what the benchmark's driver
 * (bench/bench.c), its choice of strategies (bench/pick.c), a peer's run
 * (bench/peer_run.c) and the records of a timed window (bench/result.c)
 * all hold.
 */
#ifndef BENCH_SERIES_H
#define BENCH_SERIES_H

#include <stdint.h>

#include "mm/heap.h"
#include "mm/peers/peer.h"

#define BENCH_MAX_RUNS 100
#define BENCH_MAX_STRATEGIES 10
#define BENCH_MAX_FLOORS (1 + PEER_LAYOUTS)
#define BENCH_MAX_WAYS 5

/*
 * The sweep's index of this boot's first run (run0=): a hosted sweep spreads
 * its runs over passes of one boot a size each, and each pass's runs rotate
 * the order of the strategies and of the floor's ways as the sweep's runs
 * of that index would.
 */
unsigned bench_run0(void);

/* The floor of Xen's page_info (and M2P), beside the peers' (enum peer_layout). */
#define FLOOR_XEN (-1)

/* One strategy's runs, or a floor's (s and p NULL). Figures in ns, or ticks when uncalibrated. */
struct series {
    const struct heap_strategy *s;          /* a strategy of Xen's heap */
    const struct peer_strategy *p;          /* or a peer */
    int layout;                             /* a floor's: FLOOR_XEN or its peer layout */
    const char *name;
    uint64_t init[BENCH_MAX_RUNS];
    uint64_t touch[BENCH_MAX_RUNS];         /* Xen's heap: the first touch */
    uint64_t later[BENCH_MAX_RUNS];         /* a peer: its deferred part or drain */
    uint64_t first_alloc[BENCH_MAX_RUNS];
    uint64_t digest;                        /* the last audit's block digest */
    uint64_t page_digest;                   /* ... and page digest */
    unsigned cpus;                          /* CPUs its init runs on */
    unsigned later_cpus;                    /* CPUs its later part runs on */
    /* This run's ticks: the init, the first allocation and the whole first touch. */
    uint64_t init_ticks, first_ticks, touch_ticks;
    const struct series *touch_from;        /* whose first touch this run's is */
    /* A floor's ways of filling (bench/measure.h): this run's ticks of each, and the fastest. */
    unsigned nways;
    const char *way_names[BENCH_MAX_WAYS];
    uint64_t way_ticks[BENCH_MAX_WAYS];
    const char *way;
};

#endif
