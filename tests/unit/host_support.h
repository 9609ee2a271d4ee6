/* SPDX-License-Identifier: MIT */
/* Host stand-ins for kernel services, shared by the unit tests. */
#ifndef TESTS_UNIT_HOST_SUPPORT_H
#define TESTS_UNIT_HOST_SUPPORT_H

#include <setjmp.h>
#include <stdint.h>

#include "mm/bootmem.h"
#include "mm/heap_par.h"
#include "mm/numa.h"

/* When set, panic() records its message and longjmps here instead of aborting. */
extern jmp_buf *panic_jump;
extern char panic_message[256];

/* The simulated CPUs of the parallel heap init: how many, and each one's node. */
extern unsigned host_par_cpus;
extern unsigned host_par_node[HEAP_PAR_MAX_CPUS];

/*
 * A fresh world of frames page frames: a zeroed frame table and M2P, no
 * valid section, one node. Frees the previous one. Returns the audit's
 * bitmap for it, which host_heap_world() hands to the heap.
 */
uint64_t *host_frames(uint64_t frames);

/*
 * Gives r[0..n) to a fresh boot allocator, marks them valid in the frame
 * table, and sets the heap up for them as mm/ does at boot: boot scrub on,
 * Xen's costs all, the pages the regions hold (less MFN 0) accounted.
 */
void host_heap_world(const struct bootmem_region *r, unsigned n);

/*
 * Installs the node map of ranges nodes[0..n) (sorted), at the shift Xen's
 * rule picks, as the live one.
 */
void host_nodes(const struct node_range *nodes, unsigned n);

/* The tests' deterministic random numbers: Marsaglia's xorshift64, *state seeded nonzero. */
static inline uint64_t host_xorshift64(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif
