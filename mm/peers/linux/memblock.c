// SPDX-License-Identifier: MIT
// Linux's memblock_free_all() (mm/memblock.c: memblock_free_all(),
// free_low_memory_core_early(), __free_memory_core(), __free_pages_memory();
// mm/page_alloc.c, 6.12 mm/mm_init.c: memblock_free_pages(),
// early_pfn_to_nid()): every free range to the buddy allocator (buddy.c) in
// the largest aligned blocks, the deferred ones skipped, block by block.
#include "mm/peers/linux/linux.h"

/*
 * _raw_spin_lock() and _raw_spin_unlock() (kernel/locking/spinlock.c): out of
 * line in Debian's builds, so each early_pfn_to_nid() makes two more calls.
 */
static __attribute__((noipa)) LX_RETHUNK void raw_spin_lock(peer_lock_t *l)
{
    peer_lock(l);
}

static __attribute__((noipa)) LX_RETHUNK void raw_spin_unlock(peer_lock_t *l)
{
    peer_unlock(l);
}

/*
 * early_pfn_to_nid() (mm/page_alloc.c; 6.12: mm/mm_init.c), out of line:
 * under its lock, the last range's node or a look-up.
 */
static __attribute__((noipa)) LX_RETHUNK unsigned early_pfn_to_nid(uint64_t pfn)
{
    static peer_lock_t early_pfn_lock;
    static uint64_t last_start, last_end;
    static unsigned last_nid;
    unsigned nid;

    raw_spin_lock(&early_pfn_lock);
    if (last_start <= pfn && pfn < last_end) {
        nid = last_nid;
    } else {
        struct node_range r;
        numa_ranges(pfn, pfn + 1, &r, 1);
        nid = last_nid = r.node;
        last_start = pfn;
        last_end = pfn + 1;
        /* memblock_search_pfn_nid() gives the whole region: the run holding pfn. */
        for (unsigned i = 0; i < peer_nruns; i++)
            if (peer_runs[i].s <= pfn && pfn < peer_runs[i].e) {
                last_start = peer_runs[i].s;
                last_end = peer_runs[i].e;
            }
    }
    raw_spin_unlock(&early_pfn_lock);
    return nid;
}

/*
 * memblock_free_pages() (mm/page_alloc.c, called from mm/memblock.c: a
 * call for every block, the deferred ones too): a deferred page waits for
 * its node's thread (6.1's early_page_uninitialised(), 6.12's
 * early_page_initialised(): node_online() and first_deferred_pfn).
 */
static __attribute__((noipa)) LX_RETHUNK void memblock_free_pages(enum lx_version v, struct lx_page *pg,
                                                                 uint64_t pfn, unsigned order, bool deferred)
{
    if (deferred) {
        unsigned nid = early_pfn_to_nid(pfn);
        if (((lx_node_online[nid / 64] >> (nid % 64)) & 1) && pfn >= lx_node_data[nid]->first_deferred_pfn)
            return;
    }
    lx_free_pages_core(v, pg, order, 0);
}

/* __free_pages_memory(): the largest naturally aligned blocks, at most order 10 in both kernels. */
static void free_pages_memory(enum lx_version v, uint64_t start, uint64_t end, bool deferred)
{
    while (start < end) {
        unsigned order = MIN((unsigned)LX_MAX_ORDER - 1, ffs64(start) - 1);
        while (start + (1ul << order) > end)
            order--;
        memblock_free_pages(v, lx_pfn_to_page(start), start, order, deferred);
        start += 1ul << order;
    }
}

void lx_memblock_free_all(enum lx_version v, bool deferred)
{
    /* free_low_memory_core_early(): every free range, in address order. */
    for (unsigned i = 0; i < peer_nruns; i++)
        free_pages_memory(v, peer_runs[i].s, peer_runs[i].e, deferred);
}

