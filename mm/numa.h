/* SPDX-License-Identifier: MIT */
/*
 * NUMA node of a page frame, modelled on Xen's memnodemap: one byte per
 * 2^memnode_shift frames, read on every call as Xen's phys_to_nid() does.
 * The map is built from node memory ranges (the SRAT's, or numa_fake's
 * equal runs when there is no SRAT) with the shift Xen's
 * compute_hash_shift() picks: the largest that keeps every place where the
 * node changes on a granule boundary. bootheap has no pdx compression, so
 * the map is indexed by MFN >> memnode_shift.
 */
#ifndef MM_NUMA_H
#define MM_NUMA_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "mm/layout.h"

#define MAX_NUMNODES    8
#define NUMA_NO_NODE    0xffu
/* Entries the map holds without boot memory: 1 GiB granules up to 16 TiB. */
#define MEMNODEMAP_STATIC (MAX_PFN_LIMIT >> 18)
/* The shift for one node: every frame maps to entry 0 (BITS_PER_LONG - 1). */
#define MEMNODE_SHIFT_ONE 63u

/* Xen's memnodemap (a pointer) and memnode_shift (a variable), as it reads them. */
extern uint8_t *memnodemap;
extern unsigned memnode_shift;
extern uint64_t memnodemapsize;

/*
 * The live map again at a shift fixed at compile time (1 GiB granules), in
 * static storage: the node lookup without Xen's two loads, which the cost
 * ablation (xen_costs=-memnode) times. Only valid while
 * memnodemap_fixed_ok: the live granules are 1 GiB or coarser.
 */
#define MEMNODE_FIXED_SHIFT 18
extern uint8_t memnodemap_fixed[MEMNODEMAP_STATIC];
extern bool memnodemap_fixed_ok;

/*
 * Node of mfn (Xen's phys_to_nid); mfn must be below the map's reach. The
 * plain lookup, for code outside Xen's timed path (the audit, the node
 * ranges). The heap's path uses xc_mfn_to_nid(), which models
 * phys_to_nid()'s costs (mm/xen_costs.h).
 */
static inline unsigned mfn_to_nid(uint64_t mfn)
{
    return memnodemap[mfn >> memnode_shift];
}

/* A run of frames on one node: MFNs [s, e). */
struct node_range {
    uint64_t s, e;
    unsigned node;
};

/*
 * Xen's extract_lsb_from_nodes(): the shift for ranges b[0..n) (sorted by
 * s): the lowest set bit of every start where the node changes from the
 * range before, or MEMNODE_SHIFT_ONE when one node holds everything.
 * *entries gets the map size that reaches the highest end.
 */
unsigned numa_hash_shift(const struct node_range *b, unsigned n, uint64_t *entries);

/*
 * Xen's populate_memnodemap(): fills map (entries bytes) with NUMA_NO_NODE,
 * then each range's granules with its node. Returns 0, or -EINVAL when a
 * granule would hold two nodes (ranges overlap or are not aligned to the
 * shift) or a range reaches past the map.
 */
int numa_populate(uint8_t *map, uint64_t entries, const struct node_range *b, unsigned n,
                  unsigned shift, struct err *e);

/* Makes map (entries bytes, filled) the live node map with shift. */
void numa_install(uint8_t *map, uint64_t entries, unsigned shift);

/*
 * The state before any node information: the static map, 1 GiB granules,
 * every frame on node 0. Host tests start from it.
 */
void numa_reset(void);

/* The static storage numa_reset() uses, MEMNODEMAP_STATIC bytes. */
uint8_t *numa_static_map(void);

/* Sets the node of every granule in [s, e) (MFNs, aligned to the shift). */
void numa_set_range(uint64_t s, uint64_t e, unsigned node);

/*
 * Fills out with the node ranges that cover [s, e), at most max of them;
 * returns how many. Built from the map's granules, not per-frame lookups.
 */
unsigned numa_ranges(uint64_t s, uint64_t e, struct node_range *out, unsigned max);

#endif
