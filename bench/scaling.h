/* SPDX-License-Identifier: MIT */
/*
 * scaling: each eager strategy, each peer's parallel later part and the
 * floors timed at 1 .. N CPUs (docs/design.md, "Parallel init"), with a table in
 * the format of Linux's padata series per node.
 */
#ifndef BENCH_SCALING_H
#define BENCH_SCALING_H

#include <stdbool.h>

#include "kernel/lib/errno.h"
#include "mm/heap.h"
#include "mm/peers/peer.h"

/* Whether the scaling option asks for the table. */
bool scaling_wanted(void);

/*
 * Times every eager strategy of s[0..n), the later part of every peer of
 * p[0..np) that has one, Xen's floor and the floor of each peer layout,
 * runs times each, on 1, 2, .. heap_par_cpus() CPUs, interleaved; every
 * Xen heap is audited and must have digest (the serial heap's), every peer
 * must hold the pages of page_digest. Prints the tables and a `scaling`
 * record per row and CPU count, and a `scaling_node` record per node of a
 * peer. Returns 0, or a negative errno with e set.
 */
int scaling_run(const struct heap_strategy *const *s, unsigned n, const struct peer_strategy *const *p,
                unsigned np, unsigned runs, uint64_t digest, uint64_t page_digest, struct err *e);

#endif
