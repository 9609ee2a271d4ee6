/* SPDX-License-Identifier: MIT */
/*
 * What the benchmark's driver (bench/bench.c) shares with its peer runs
 * (bench/peer_run.c): one series of figures per strategy and floor, and the
 * records they all write.
 */
#ifndef BENCH_SERIES_H
#define BENCH_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "mm/heap.h"
#include "mm/peers/peer.h"

#define BENCH_MAX_RUNS 100
#define BENCH_MAX_STRATEGIES 10
#define BENCH_MAX_FLOORS (1 + PEER_LAYOUTS)

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
};

/*
 * The strategies strategies= names, in its order (all without it: Xen's,
 * then the peers whose page arrays were backed), into s[0..*n), and the
 * floors they need into f[0..*nf): Xen's, then each peer layout that runs;
 * eager strategies and floors on cpus CPUs. Returns 0, or -errno with e
 * naming the option's fault (an unknown or repeated name, a peer whose page
 * array did not fit).
 */
int bench_pick(struct series *s, unsigned *n, struct series *f, unsigned *nf, unsigned cpus, struct err *e);

/* Ticks to the unit every figure uses: ns when calibrated, else ticks. */
uint64_t bench_units(uint64_t ticks);

/* A `result` record: phase "init", "first_touch", or a peer's later part; cpus it ran on. */
void bench_record_result(const struct series *x, unsigned run, const char *phase, uint64_t ticks,
                         uint64_t first_alloc, unsigned cpus);

/* The same, for a first touch timed after another strategy's same heap: it names from. */
void bench_record_shared(const struct series *x, unsigned run, const char *phase, uint64_t ticks,
                         uint64_t first_alloc, unsigned cpus, const struct series *from);

/* 0 when audit a holds the pages of digest ref (0: nothing to compare yet), else -EINVAL with e saying so. */
int bench_check_pages(const struct series *x, unsigned run, const struct heap_audit *a, uint64_t ref,
                      struct err *e);

/*
 * One run of peer x: reset, boot part (timed), one allocation (timed, then
 * given back), the later part (timed, on x->later_cpus CPUs), the audit;
 * records when timed. ref is the page digest every strategy must reach (0:
 * none yet). Returns 0, or a negative errno with e saying what failed.
 */
int peer_bench_run(struct series *x, unsigned run, bool timed, uint64_t ref, struct err *e);

#endif
