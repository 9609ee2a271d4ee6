/* SPDX-License-Identifier: MIT */
/*
 * One side of the tester: a tree's page_alloc.c, cut at build time
 * (XH_EXTRACT), driven through a sequence and its state written out as
 * records. XH_SIDE (0 or 1) names its two entry points; XH_HEAP_INIT is
 * given when the tree has the heap-init= option, whose variant it sets
 * (in the stock-against-series build, XH_PAIR, the tree's default stays).
 */
#include "xen_stand.h"
#include "tester.h"

#ifndef XH_SIDE
#define XH_SIDE 0
#endif
#define XH_SIDE_FN_(name, n) name##_##n
#define XH_SIDE_FN(name, n) XH_SIDE_FN_(name, n)

/* Up to 4.20 first_valid_mfn is not static: each side keeps its own. */
#define first_valid_mfn XH_SIDE_FN(first_valid_mfn, XH_SIDE)
#include XH_EXTRACT

/* page_alloc.c's own macros are gone after preprocessing: its types give them back. */
#define XH_NR_ZONES (sizeof(heap_by_zone_and_order_t) / sizeof((*(heap_by_zone_and_order_t *)0)[0]))
#define xh_heap(node, zone, order) ((*_heap[node])[zone][order])

#if defined(XH_HEAP_INIT) && !defined(XH_PAIR)
/* The variants in the driver's order (tester.c's VARIANT[]). */
static const enum heap_init VARIANT_VALUE[] = {
    HEAP_INIT_PAGE, HEAP_INIT_CHUNK_72B02BC, HEAP_INIT_CHUNK, HEAP_INIT_SWEEP,
};
#endif

void XH_SIDE_FN(xh_run, XH_SIDE)(const struct sequence *q, unsigned int variant)
{
    unsigned int i;

#if defined(XH_HEAP_INIT) && !defined(XH_PAIR)
    opt_heap_init = VARIANT_VALUE[variant];
#else
    (void)variant;
#endif
    opt_bootscrub = q->bootscrub ? BOOTSCRUB_IDLE : BOOTSCRUB_OFF;
    system_state = SYS_STATE_boot;
    machine_to_phys_mapping_valid = false;
    for ( i = 0; i < q->calls; i++ )
    {
        if ( q->call[i].after_boot )
        {
            system_state = SYS_STATE_active;
            machine_to_phys_mapping_valid = true;
        }
        xh_tlbflush_clock = 100 + i;
        init_heap_pages(mfn_to_page(_mfn(q->call[i].s)), q->call[i].n);
    }
    ASSERT(!spin_is_locked(&heap_lock));
}

static void put(struct record *r, unsigned long *n, uint32_t kind, uint32_t a, uint32_t b, uint32_t c,
                uint64_t value)
{
    if ( *n >= MAX_RECORDS )
        xh_fail(__FILE__, __LINE__, "more records than a slot holds");
    r[(*n)++] = (struct record){ kind, a, b, c, value };
}

static void put_list(struct record *r, unsigned long *n, uint32_t kind, uint32_t a, uint32_t b,
                     const struct page_list_head *h)
{
    const struct page_info *p;
    uint32_t i = 0;

    for ( p = h->next; p; p = p->list.next, i++ )
    {
        put(r, n, kind, a, b, i, page_to_mfn(p).mfn);
        xh_listed[page_to_mfn(p).mfn] = 1;
    }
    if ( kind == R_LIST )
        put(r, n, R_LIST_LEN, a, b, 0, i);
}

void XH_SIDE_FN(xh_snapshot, XH_SIDE)(const struct sequence *q, struct record *r, unsigned long *n)
{
    unsigned long i;
    unsigned int node, zone, order;

    *n = 0;
    memset(xh_listed, 0, sizeof(xh_listed));
    for ( node = 0; node < MAX_NUMNODES; node++ )
    {
        put(r, n, R_SCRUB, node, 0, 0, node_need_scrub[node]);
#ifdef XH_NODE_AVAIL
        put(r, n, R_NODE_AVAIL, node, 0, 0, node_avail_pages[node]);
#endif
        if ( !avail[node] )
        {
            put(r, n, R_META, node, 0, 0, ~0ULL);
            continue;
        }
        put(r, n, R_META, node, 0, 0, (char *)_heap[node] >= xh_ram &&
            (char *)_heap[node] < xh_ram + MAX_FRAMES * PAGE_SIZE ?
            (uint64_t)((char *)_heap[node] - xh_ram) / PAGE_SIZE : ~1ULL);
        for ( zone = 0; zone < XH_NR_ZONES; zone++ )
        {
            put(r, n, R_AVAIL, node, zone, 0, avail[node][zone]);
            for ( order = 0; order <= MAX_ORDER; order++ )
                put_list(r, n, R_LIST, node, zone * 100 + order, &xh_heap(node, zone, order));
        }
    }
    put(r, n, R_TOTAL, 0, 0, 0, total_avail_pages);
    put_list(r, n, R_OFFLINED, 0, 0, &page_offlined_list);
    put_list(r, n, R_BROKEN, 0, 0, &page_broken_list);
    put(r, n, R_FIRST_VALID, 0, 0, 0, first_valid_mfn.mfn);
    put(r, n, R_PRINTK, 0, 0, 0, xh_printks);
    put(r, n, R_XENHEAP, 0, 0, 0, xh_xenheap_allocs);
    for ( i = 0; i < q->frames; i++ )
    {
        const struct page_info *pg = &xh_frame_table[i];

        put(r, n, R_COUNT, i, 0, 0, pg->count_info);
        /* c = 1: a free page inside a block, whose u and v no path reads. */
        bool inside = page_state_is(pg, free) && !xh_listed[i];

        put(r, n, R_U, i, 0, inside, pg->u.free.val);
        put(r, n, R_V, i, 0, inside, pg->v.free.order);
        put(r, n, R_TLB, i, 0, 0, pg->tlbflush_timestamp);
        put(r, n, R_M2P, i, 0, 0, xh_m2p[i]);
    }
    put(r, n, R_END, 0, 0, 0, 0);
}
