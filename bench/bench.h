/* SPDX-License-Identifier: MIT */
/* The in-kernel benchmark driver (runs=, strategies= on the command line). */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include "kernel/lib/errno.h"

/*
 * Runs every selected strategy runs= times, interleaved, with a warm-up, the
 * audit after each run, the first-touch phase and the memset floor; prints
 * the records and the report. Returns 0, or a negative errno with e saying
 * which option, strategy, audit or first touch failed.
 */
int bench_main(struct err *e);

#endif
