/* SPDX-License-Identifier: MIT */
/* The in-kernel benchmark driver (runs=, strategies= on the command line). */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdbool.h>

/*
 * Runs every selected strategy runs= times, interleaved, with a warm-up, the
 * audit after each run, the first-touch phase and the memset floor; prints
 * the records and the report. Returns false when a strategy, an audit or
 * the options failed; bench_failure() then says why.
 */
bool bench_main(void);
const char *bench_failure(void);

#endif
