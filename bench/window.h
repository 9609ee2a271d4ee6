/* SPDX-License-Identifier: MIT */
/*
 * The hooks at the edges of the benchmark's timed windows (bench/bench.c,
 * bench/peer_run.c), which a platform fills in: its own measurements in
 * user space, nothing in the kernel.
 */
#ifndef BENCH_WINDOW_H
#define BENCH_WINDOW_H

#include <stdbool.h>

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
