/* SPDX-License-Identifier: MIT */
/*
 * The hooks at the edges of the benchmark's timed windows (bench/bench.c,
 * bench/peer_run.c), which a platform fills in: its own measurements in
 * user space, nothing in the kernel.
 */
#ifndef BENCH_WINDOW_H
#define BENCH_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

#include "mm/heap.h"

/*
 * The edges of every timed window, just outside its two TSC reads: open
 * names what is timed (timed false for the warm-up), close ends it. Between
 * repetitions of one window (bench/measure.h), pause and resume leave the
 * undoing of one repetition out of it; way names how a floor's window
 * filled its bytes ("rep", "plain", "libc"). Nothing in the kernel; the
 * hosted runner reads its thread's CPU time there, and counts instructions
 * and simulated cache misses between them when it runs under callgrind
 * (hosted/platform/window.c).
 *
 * settle is the prelude's last step (bench_prelude()): the hosted runner
 * writes back and evicts every line of the tables from the caches, so that
 * every window opens on them cold; the kernel, timed only under TCG, whose
 * caches are not modelled, does nothing. touched is the same for the lines
 * a rewind zeroed. libc_fill is the C library's memset, a way to fill a
 * floor, where there is one. exact says the windows are counted, not timed
 * (callgrind): each is then run once, and a floor filled one way.
 */
#ifdef BOOTHEAP_HOSTED
void bench_window_open(const char *strategy, const char *phase, unsigned run, bool timed);
void bench_window_pause(void);
void bench_window_resume(void);
void bench_window_way(const char *way);
void bench_window_close(void);
void bench_window_settle(void);
void bench_window_touched(void *p, size_t n);
heap_fill_fn *bench_libc_fill(void);
bool bench_window_exact(void);
#else
static inline void bench_window_open(const char *strategy, const char *phase, unsigned run,
                                     bool timed)
{
    (void)strategy, (void)phase, (void)run, (void)timed;
}
static inline void bench_window_pause(void) { }
static inline void bench_window_resume(void) { }
static inline void bench_window_way(const char *way) { (void)way; }
static inline void bench_window_close(void) { }
static inline void bench_window_settle(void) { }
#define bench_window_touched NULL
static inline heap_fill_fn *bench_libc_fill(void) { return NULL; }
static inline bool bench_window_exact(void) { return false; }
#endif

#endif
