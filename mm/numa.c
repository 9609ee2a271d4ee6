// SPDX-License-Identifier: MIT
// The node map: Xen's memnodemap and memnode_shift, built from node ranges.
#include "mm/numa.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

static uint8_t static_map[MEMNODEMAP_STATIC];
uint8_t memnodemap_fixed[MEMNODEMAP_STATIC];
bool memnodemap_fixed_ok = true;

uint8_t *memnodemap = static_map;
unsigned memnode_shift = 18;
uint64_t memnodemapsize = MEMNODEMAP_STATIC;

unsigned numa_hash_shift(const struct node_range *b, unsigned n, uint64_t *entries)
{
    uint64_t bits = 0, top = 0;
    unsigned nodes_used = 0, shift;

    for (unsigned i = 0; i < n; i++) {
        bool change = i == 0 || b[i].node != b[i - 1].node;

        if (b[i].s >= b[i].e)
            continue;
        /* A start where the node changes must begin a granule; the first
         * range's start and a same-node continuation need not. */
        if (i && change)
            bits |= b[i].s;
        nodes_used += change;
        top = MAX(top, b[i].e);
    }
    shift = nodes_used <= 1 || !bits ? MEMNODE_SHIFT_ONE : ffs64(bits) - 1;
    *entries = top ? ((top - 1) >> shift) + 1 : 1;
    return shift;
}

int numa_populate(uint8_t *map, uint64_t entries, const struct node_range *b, unsigned n,
                  unsigned shift, struct err *e)
{
    memset(map, NUMA_NO_NODE, entries);
    for (unsigned i = 0; i < n; i++) {
        if (b[i].s >= b[i].e)
            continue;
        /* Granule by granule from the start's to the last frame's. Xen steps
         * the frame number by the granule instead, which is the same walk
         * whenever the start is aligned, and never leaves the last granule
         * out when it is not. */
        uint64_t g = b[i].s >> shift, last = (b[i].e - 1) >> shift;
        if (last >= entries)
            return err_set(e, -EINVAL, "node map: range [0x%llx, 0x%llx) reaches past %llu "
                           "entries", (unsigned long long)b[i].s, (unsigned long long)b[i].e,
                           (unsigned long long)entries);
        for (; g <= last; g++) {
            if (map[g] != NUMA_NO_NODE && map[g] != b[i].node)
                return err_set(e, -EINVAL, "node map: granule %llu of 2^%u frames holds nodes "
                               "%u and %u", (unsigned long long)g, shift, map[g], b[i].node);
            map[g] = (uint8_t)b[i].node;
        }
    }
    return 0;
}

/*
 * The fixed copy (1 GiB granules) can stand for a map whose granules are
 * 1 GiB or coarser; a finer map has nodes that change inside a gigabyte.
 */
static void fill_fixed(void)
{
    memnodemap_fixed_ok = memnode_shift >= MEMNODE_FIXED_SHIFT;
    for (uint64_t g = 0; g < MEMNODEMAP_STATIC; g++) {
        uint64_t i = memnode_shift >= 63 ? 0 : (g << MEMNODE_FIXED_SHIFT) >> memnode_shift;
        memnodemap_fixed[g] = memnodemap_fixed_ok && i < memnodemapsize ? memnodemap[i] : NUMA_NO_NODE;
    }
}

void numa_install(uint8_t *map, uint64_t entries, unsigned shift)
{
    memnodemap = map;
    memnodemapsize = entries;
    memnode_shift = shift;
    fill_fixed();
}

uint8_t *numa_static_map(void)
{
    return static_map;
}

void numa_reset(void)
{
    memset(static_map, 0, sizeof(static_map));
    numa_install(static_map, MEMNODEMAP_STATIC, 18);
}

void numa_set_range(uint64_t s, uint64_t e, unsigned node)
{
    for (uint64_t g = s >> memnode_shift; g < (e >> memnode_shift) && g < memnodemapsize; g++)
        memnodemap[g] = (uint8_t)node;
    fill_fixed();
}

unsigned numa_ranges(uint64_t s, uint64_t e, struct node_range *out, unsigned max)
{
    unsigned n = 0;

    while (s < e && n < max) {
        unsigned node = mfn_to_nid(s);
        /* Granules are the unit of the map: step granule by granule. */
        uint64_t end = memnode_shift >= 63 ? e : ALIGN_UP(s + 1, 1ull << memnode_shift);
        while (end < e && mfn_to_nid(end) == node)
            end += 1ull << memnode_shift;
        out[n++] = (struct node_range){ s, MIN(end, e), node };
        s = MIN(end, e);
    }
    return n;
}
