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

/*
 * The edges of every timed window, just outside its two TSC reads: open
 * names what is timed (timed false for the warm-up), close ends it. Nothing
 * in the kernel; the hosted runner reads its thread's CPU time there, and
 * counts instructions and simulated cache misses between them when it runs
 * under callgrind (hosted/platform/window.c).
 */
#ifdef BOOTHEAP_HOSTED
void bench_window_open(const char *strategy, const char *phase, unsigned run, bool timed);
void bench_window_close(void);
#else
static inline void bench_window_open(const char *strategy, const char *phase, unsigned run,
                                     bool timed)
{
    (void)strategy, (void)phase, (void)run, (void)timed;
}
static inline void bench_window_close(void) { }
#endif

#endif
