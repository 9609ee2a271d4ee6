/* SPDX-License-Identifier: MIT */
/*
 * NUMA node of a page frame, modelled on Xen's memnodemap: a byte per
 * 2^MEMNODE_SHIFT frames, looked up on every call, as phys_to_nid() does.
 *
 * Where the numbers come from: there is no SRAT parsing yet, so every frame
 * is on node 0 unless the command line asks for fake nodes (numa_fake=N
 * splits RAM into N equal runs of whole 1 GiB granules). The lookup is the
 * same either way, so the per-page cost of the old strategy stays.
 */
#ifndef MM_NUMA_H
#define MM_NUMA_H

#include <stdint.h>

#include "mm/layout.h"

#define MAX_NUMNODES    8
#define NUMA_NO_NODE    0xffu
#define MEMNODE_SHIFT   18          /* 1 GiB granules, a section each */
#define MEMNODEMAP_SIZE (MAX_PFN_LIMIT >> MEMNODE_SHIFT)

extern uint8_t memnodemap[MEMNODEMAP_SIZE];

/*
 * Node of mfn: the plain lookup, for code outside Xen's timed path (the
 * audit, the node ranges). The heap's path uses xc_mfn_to_nid(), which
 * models phys_to_nid()'s costs (mm/xen_costs.h).
 */
static inline unsigned mfn_to_nid(uint64_t mfn)
{
    return memnodemap[mfn >> MEMNODE_SHIFT];
}

/* A run of frames on one node: the node map's ranges, in MFN order. */
struct node_range {
    uint64_t s, e;
    unsigned node;
};

/* Sets the node of every granule in [s, e) (MFNs, granule-aligned). */
void numa_set_range(uint64_t s, uint64_t e, unsigned node);

/*
 * Fills out with the node ranges that cover [s, e), at most max of them;
 * returns how many. Built from the map's granules, not per-frame lookups.
 */
unsigned numa_ranges(uint64_t s, uint64_t e, struct node_range *out, unsigned max);

#endif
