// SPDX-License-Identifier: MIT
// The heap's allocation path: Xen's alloc_heap_pages() and get_free_buddy(),
// and the lazy strategy's deferred initialisation of the pages they take.
#include "mm/heap_priv.h"

#include "kernel/panic.h"

/*
 * Turns a page the lazy strategy left uninitialised into the free page that
 * an eager strategy would have made of it: the deferred half of
 * mark_page_free().
 */
static void lazy_make_free(struct page_info *pg)
{
    pg->count_info = PGC_state_free | (heap_lazy_dirty ? PGC_need_scrub : 0);
    pg->u.free.need_tlbflush = 0;
    pg->v.owner = 0;
    m2p[page_to_mfn(pg)] = INVALID_M2P_ENTRY;
}

struct page_info *heap_alloc_pages(unsigned order, unsigned node)
{
    struct page_info *pg = NULL;
    unsigned n = 0, zone = 0, j = 0;

    if (order > MAX_ORDER)
        return NULL;
    spin_lock(&heap_lock);
    /* The requested node first, then the others; high zones before low ones. */
    for (unsigned k = 0; k < MAX_NUMNODES && !pg; k++) {
        n = node == NUMA_NO_NODE ? k : (node + k) % MAX_NUMNODES;
        for (zone = NR_ZONES - 1; zone > 0 && !pg; zone--) {
            /* Skip zones that cannot hold the block, as Xen's get_free_buddy(). */
            if (avail[n][zone] < (1ull << order))
                continue;
            for (j = order; j <= MAX_ORDER; j++) {
                if ((pg = heap(n, zone, j).next))
                    break;
            }
            if (pg)
                break;
        }
    }
    if (!pg) {
        spin_unlock(&heap_lock);
        return NULL;
    }
    page_list_del(pg, &heap(n, zone, j));
    uint32_t first_dirty = pg->u.free.first_dirty;

    /* Halve as often as needed: the lower half goes back, the upper goes on. */
    while (j != order) {
        j--;
        page_list_add_scrub(pg, n, zone, j, (1u << j) > first_dirty ? first_dirty : INVALID_DIRTY_IDX);
        pg += 1u << j;
        if (first_dirty != INVALID_DIRTY_IDX)
            first_dirty = first_dirty >= (1u << j) ? first_dirty - (1u << j) : 0;
        /* The new head may be a lazy tail: it needs its entry now. */
        if (page_state_is(pg, uninit))
            lazy_make_free(pg);
    }
    avail[n][zone] -= 1ull << order;
    total_avail_pages -= 1ull << order;
    heap_inuse_pages += 1ull << order;

    uint64_t dirty = 0, mfn = page_to_mfn(pg);
    bool lazy_dirty = heap_lazy_dirty;
    for (uint64_t i = 0; i < (1ull << order); i++) {
        struct page_info *p = &pg[i];
        if (page_state_is(p, uninit)) {
            /* A lazy tail goes straight to in use: only the deferred part of
             * freeing (the M2P entry, the dirty count) is left to do. */
            m2p[mfn + i] = INVALID_M2P_ENTRY;
            dirty += lazy_dirty;
        } else if (page_state_is(p, free)) {
            dirty += (p->count_info & PGC_need_scrub) != 0;
        } else {
            panic("allocating MFN 0x%llx, which is not free (count_info 0x%llx)",
                  (unsigned long long)(mfn + i), (unsigned long long)p->count_info);
        }
        /* Scrubbing the contents is left out; the accounting stays. */
        p->count_info = PGC_state_inuse;
        p->u.type_info = 0;
        p->v.owner = 0;
    }
    node_need_scrub[n] -= dirty;
    spin_unlock(&heap_lock);
    return pg;
}
