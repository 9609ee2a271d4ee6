/* SPDX-License-Identifier: MIT */
/* scaling: each eager strategy and the floor timed at 1 .. N CPUs (README.md, "Parallel init"). */
#ifndef BENCH_SCALING_H
#define BENCH_SCALING_H

#include <stdbool.h>

#include "kernel/errno.h"
#include "mm/heap.h"

/* Whether the scaling option asks for the table. */
bool scaling_wanted(void);

/*
 * Times every eager strategy of s[0..n) and the floor, runs times each, on
 * 1, 2, .. heap_par_cpus() CPUs, interleaved; every heap is audited and must
 * have digest (the serial heap's). Prints the table and a `scaling` record
 * per strategy and CPU count. Returns 0, or a negative errno with e set.
 */
int scaling_run(const struct heap_strategy *const *s, unsigned n, unsigned runs, uint64_t digest,
                struct err *e);

#endif
