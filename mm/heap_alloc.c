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
static inline void lazy_make_free(unsigned xc, struct heap *h, struct page_info *pg)
{
    pg->count_info = PGC_state_free | (h->lazy_dirty ? PGC_need_scrub : 0);
    pg->u.free.need_tlbflush = 0;
    pg->v.owner = 0;
    xc_m2p_invalidate(xc, xc_page_to_mfn(xc, pg));
}

/* Xen's get_free_buddy(): the requested node first, high zones before low; NULL when none. */
static inline __attribute__((always_inline)) struct page_info *take_free_buddy(unsigned xc, struct heap *h, unsigned order, unsigned node,
                                         unsigned *pn, unsigned *pzone, unsigned *pj)
{
    for (unsigned k = 0; k < MAX_NUMNODES; k++) {
        unsigned n = node == NUMA_NO_NODE ? k : (node + k) % MAX_NUMNODES;
        const uint64_t *av = xc_avail(xc, h, n);
        for (unsigned zone = NR_ZONES - 1; zone > 0; zone--) {
            /* Skip nodes never seen and zones that cannot hold the block. */
            if (!av || av[zone] < (1ull << order))
                continue;
            for (unsigned j = order; j <= MAX_ORDER; j++) {
                struct page_list_head *l = xc_heap(xc, h, n, zone, j);
                struct page_info *pg = l->next;
                if (pg) {
                    page_list_del(pg, l);
                    *pn = n;
                    *pzone = zone;
                    *pj = j;
                    return pg;
                }
            }
        }
    }
    return NULL;
}

/* Xen's alloc_heap_pages(), for one set of costs: the block in *out, or NULL. */
static inline __attribute__((always_inline)) void
alloc_pages_body(unsigned xc, struct heap *h, unsigned order, unsigned node, struct page_info **out)
{
    unsigned n, zone, j;

    *out = NULL;
    if (order > MAX_ORDER)
        return;
    xc_spin_lock(xc, &h->lock);
    struct page_info *pg = take_free_buddy(xc, h, order, node, &n, &zone, &j);
    if (!pg) {
        xc_spin_unlock(xc, &h->lock);
        return;
    }
    uint32_t first_dirty = pg->u.free.first_dirty;

    /* Halve as often as needed: the lower half goes back, the upper goes on. */
    while (j != order) {
        j--;
        page_list_add_scrub(xc, h, pg, n, zone, j, (1u << j) > first_dirty ? first_dirty : INVALID_DIRTY_IDX);
        pg += 1u << j;
        if (first_dirty != INVALID_DIRTY_IDX)
            first_dirty = first_dirty >= (1u << j) ? first_dirty - (1u << j) : 0;
        /* The new head may be a lazy tail: it needs its entry now. */
        if (page_state_is(pg, uninit))
            lazy_make_free(xc, h, pg);
    }
    xc_avail(xc, h, n)[zone] -= 1ull << order;
    h->total_avail_pages -= 1ull << order;
    h->inuse_pages += 1ull << order;

    uint64_t dirty = 0, mfn = xc_page_to_mfn(xc, pg);
    bool lazy_dirty = h->lazy_dirty;
    for (uint64_t i = 0; i < (1ull << order); i++) {
        struct page_info *p = &pg[i];
        if (page_state_is(p, uninit)) {
            /* A lazy tail goes straight to in use: only the deferred part of
             * freeing (the M2P entry, the dirty count) is left to do. */
            xc_m2p_invalidate(xc, mfn + i);
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
    h->nodes[n].need_scrub -= dirty;
    xc_spin_unlock(xc, &h->lock);
    *out = pg;
}

XC_VARIANTS(heap_alloc_pages_into, alloc_pages_body,
            (struct heap *h, unsigned order, unsigned node, struct page_info **out),
            (h, order, node, out));

struct page_info *heap_alloc_pages(unsigned order, unsigned node)
{
    struct page_info *pg;

    XC_DISPATCH(heap_alloc_pages_into)(&heap_default, order, node, &pg);
    return pg;
}
