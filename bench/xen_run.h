/* SPDX-License-Identifier: MIT */
/*
 * One run of a strategy of Xen's heap or of a floor (bench/xen_run.c), and
 * the digests every run is held to; bench/peer_run.c is a peer's.
 */
#ifndef BENCH_XEN_RUN_H
#define BENCH_XEN_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/series.h"
#include "kernel/lib/errno.h"

/*
 * Builds the heap with x from its prelude, timing the init (repeated while
 * short), audits it, and times its first touch when touch; pages is what
 * the heap must hold. Records are the caller's. Returns 0, or -EINVAL with
 * e naming what failed: the audit, a digest, the first touch.
 */
int bench_run_strategy(struct series *x, unsigned run, bool touch, uint64_t pages, struct err *e);

/*
 * Times floor f once with every way of filling its bytes (bench_floor_ways()),
 * each from the prelude and repeated while short, starting at way `turn`
 * (modulo their number: the index of the run among its size's, so that the turn moves
 * from run to run across passes); the fastest is the run's floor
 * (f->init_ticks, f->way). Returns 0, or a peer floor's error with e set.
 */
int bench_run_floor(struct series *f, unsigned run, unsigned turn, struct err *e);

/* The block digest of the first Xen heap built, and the page digest every strategy shares (0: none yet). */
uint64_t bench_xen_ref(void);
uint64_t bench_page_ref(void);
void bench_set_page_ref(uint64_t digest);

#endif
