/* SPDX-License-Identifier: MIT */
/* One run of a peer (mm/peers/peer.h) in the benchmark, timed and recorded through bench/window.h. */
#ifndef BENCH_PEER_RUN_H
#define BENCH_PEER_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/series.h"
#include "kernel/lib/errno.h"

/*
 * One run of peer x: reset, boot part (timed), one allocation (timed, then
 * given back), the later part (timed, on x->later_cpus CPUs), the audit;
 * records when timed. ref is the page digest every strategy must reach (0:
 * none yet). Returns 0, or a negative errno with e saying what failed.
 */
int peer_bench_run(struct series *x, unsigned run, bool timed, uint64_t ref, struct err *e);

#endif
