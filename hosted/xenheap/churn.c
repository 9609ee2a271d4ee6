/* SPDX-License-Identifier: MIT */
/*
 * The concurrent phase's other callers: a thread that allocates blocks of
 * the heap (alloc_heap_pages(), Xen's own, through the side) and frees
 * them again (free_heap_pages()) while hot-add runs on another thread,
 * each request drawn from the thread's own seed, everything it holds
 * freed before it ends.
 */
#include <sched.h>

#include "xen_stand.h"
#include "tester.h"

#define HELD 64

void xh_churn(const struct xh_ops *ops, uint64_t seed, unsigned int rounds)
{
    struct { struct page_info *pg; unsigned int order; } held[HELD];
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 7;
    unsigned int n = 0, i;

    for ( i = 0; i < rounds; i++ )
    {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if ( n < HELD && (!n || x % 3) )
        {
            unsigned int order = (x >> 8) % (min(MAX_ORDER, 4) + 1);
            unsigned int flags = ((x >> 16) & 1 ? MEMF_no_scrub : 0) |
                                 ((x >> 17) & 1 ? MEMF_node((x >> 20) % MAX_NUMNODES) : 0);
            struct page_info *pg = ops->alloc(order, flags);

            if ( pg )
                held[n].pg = pg, held[n++].order = order;
        }
        else
        {
            unsigned int k = (x >> 24) % n;

            ops->free(held[k].pg, held[k].order);
            held[k] = held[--n];
        }
        if ( !((x >> 32) & 7) )
            sched_yield();
    }
    while ( n-- )
        ops->free(held[n].pg, held[n].order);
}
