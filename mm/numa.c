// SPDX-License-Identifier: MIT
// The node map: one byte per 1 GiB granule of physical memory.
#include "mm/numa.h"

#include "kernel/compiler.h"

uint8_t memnodemap[MEMNODEMAP_SIZE];

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
