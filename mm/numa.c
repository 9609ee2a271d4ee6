// SPDX-License-Identifier: MIT
// The node map: one byte per 1 GiB granule of physical memory.
#include "mm/numa.h"

#include "kernel/compiler.h"

uint8_t memnodemap[MEMNODEMAP_SIZE];

/*
 * Xen's memnode_shift and memnodemap pointer, which phys_to_nid() reads on
 * every call when the memnode cost is modelled (mm/xen_costs.h). Xen sets
 * them from the SRAT (compute_hash_shift()), or to 63 and a one-entry map
 * without one; the granule here stays 1 GiB, the cost is the same loads.
 */
unsigned memnode_shift = MEMNODE_SHIFT;
uint8_t *memnodemap_ptr = memnodemap;

void numa_set_range(uint64_t s, uint64_t e, unsigned node)
{
    for (uint64_t g = s >> MEMNODE_SHIFT; g < (e >> MEMNODE_SHIFT) && g < MEMNODEMAP_SIZE; g++)
        memnodemap[g] = (uint8_t)node;
}

unsigned numa_ranges(uint64_t s, uint64_t e, struct node_range *out, unsigned max)
{
    unsigned n = 0;

    while (s < e && n < max) {
        unsigned node = mfn_to_nid(s);
        /* Granules are the unit of the map: step granule by granule. */
        uint64_t end = ALIGN_UP(s + 1, 1ull << MEMNODE_SHIFT);
        while (end < e && mfn_to_nid(end) == node)
            end += 1ull << MEMNODE_SHIFT;
        out[n++] = (struct node_range){ s, MIN(end, e), node };
        s = MIN(end, e);
    }
    return n;
}
