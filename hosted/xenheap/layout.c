/* SPDX-License-Identifier: MIT */
/*
 * What a sequence runs on: the frame table's place in pdx space and the
 * PDX compression (xen_stand.h), the node map (nodes of one run or of
 * several, up to MAX_NUMNODES, groups on no node), and the frames as the
 * boot allocator leaves them, with the pages a sequence plants: owned,
 * referenced, pending offline, broken, flagged PGC_extra, and where it
 * plants a stop, in use and broken or a xenheap page.
 */
#include <stdio.h>

#include "xen_stand.h"
#include "tester.h"

unsigned long xh_index_mfn(unsigned long index)
{
    return pdx_to_pfn(xh_base_pdx + index);
}

bool xh_on_node(unsigned long index)
{
    return xh_memnodemap[(xh_base_pdx + index) >> memnode_shift] != NUMA_NO_NODE;
}

/*
 * The pdx and the node map of `q` into the stand-ins' state. Its nodes are
 * node ids in any order, so that the first node initialised is not always
 * node 0; each one run of groups (q->runs 0) or several, with groups on no
 * node among them where q->holes.
 */
void xh_make_layout(struct sequence *q)
{
    unsigned long first = q->base_pdx >> q->shift, last = (q->base_pdx + q->frames - 1) >> q->shift, g;
    unsigned long bounds[MAX_NUMNODES + 1];
    unsigned int perm[MAX_NUMNODES], i, k;

    xh_base_pdx = q->base_pdx;
    xh_pdx_hole_shift = q->hole_bits;
    xh_pdx_offset = q->pdx_offset;
    xh_pdx_bottom_mask = q->hole_bits ? (1UL << q->bottom_bits) - 1 : ~0UL;
    xh_pdx_hole_mask = q->hole_bits ? ((1UL << q->hole_bits) - 1) << q->bottom_bits : 0;
    memnode_shift = q->shift;
    xh_memnodemapsize = last + 1;
    if ( xh_memnodemapsize > XH_MEMNODEMAP )
        xh_fail(__FILE__, __LINE__, "a layout past the tester's memnodemap[]");
    memset(xh_memnodemap, NUMA_NO_NODE, xh_memnodemapsize);
    for ( i = 0; i < MAX_NUMNODES; i++ )
        perm[i] = i;
    for ( i = MAX_NUMNODES - 1; i > 0; i-- )
    {
        unsigned int t, j = xh_below(i + 1);

        t = perm[i], perm[i] = perm[j], perm[j] = t;
    }
    if ( !q->runs )
    {
        bounds[0] = first;
        for ( i = 1; i < q->nodes; i++ )
            bounds[i] = first + xh_below(last - first + 2);
        bounds[q->nodes] = ~0UL;
        for ( i = 1; i < q->nodes; i++ )               /* sorted: each node one run */
            for ( k = i; k > 1 && bounds[k] < bounds[k - 1]; k-- )
            {
                unsigned long t = bounds[k];

                bounds[k] = bounds[k - 1], bounds[k - 1] = t;
            }
        for ( g = first; g <= last; g++ )
        {
            for ( i = 0; g >= bounds[i + 1]; i++ )
                ;
            xh_memnodemap[g] = perm[i];
        }
    }
    else
        for ( g = first; g <= last; )
        {
            unsigned long run = 1 + xh_below(1 + (last - first) / q->nodes);
            unsigned int node = q->holes && !xh_below(5) ? NUMA_NO_NODE : perm[xh_below(q->nodes)];

            for ( ; run && g <= last; run--, g++ )
                xh_memnodemap[g] = node;
        }
    node_online_map.bits[0] = 0;
    for ( g = first; g <= last; g++ )
        if ( xh_memnodemap[g] != NUMA_NO_NODE )
            node_online_map.bits[0] |= 1UL << xh_memnodemap[g];
}

/* The frame table before the calls: as the boot allocator leaves it, with the pages planted. */
void xh_make_frames(const struct sequence *q)
{
    unsigned long i;

    xh_nr_frames = q->frames;
    memset(xh_frame_table, 0, q->frames * sizeof(*xh_frame_table));
    for ( i = 0; i < q->frames; i++ )
    {
        struct page_info *pg = &xh_frame_table[i];

        xh_m2p[i] = xh_next() & 0xfffff;
        if ( q->garbage )
        {
            pg->u.inuse.type_info = xh_next();
            pg->tlbflush_timestamp = xh_next();
            pg->list.next = pg->list.prev = (struct page_info *)(uintptr_t)0x5a5a;
        }
    }
    for ( i = 0; i < q->specials * 4; i++ )
    {
        struct page_info *pg = &xh_frame_table[xh_below(q->frames)];

        switch ( xh_below(8) )
        {
        case 5:                                     /* a domain's page, no reference left */
            pg->count_info = 0;
            pg->v.inuse._domain = 1 + xh_below(3);
            break;
        case 0:                                     /* a domain's page */
            pg->count_info = PGC_allocated | 1;
            pg->v.inuse._domain = 1 + xh_below(3);
            break;
        case 1:                                     /* referenced, no owner */
            pg->count_info = 1 + xh_below(3);
            break;
        case 2:                                     /* pending offline */
            pg->count_info = PGC_state_offlining;
            break;
        case 3:                                     /* broken, pending offline */
            pg->count_info = PGC_state_offlining | PGC_broken;
            break;
        case 6:                                     /* a domain's extra page, perhaps owned */
            pg->count_info = PGC_extra | xh_below(2);
            pg->v.inuse._domain = xh_below(4);
            break;
        case 7:                                     /* an extra page of the domain's, no owner */
            pg->count_info = PGC_extra | PGC_allocated;
            break;
        default:                                    /* a domain's page, being offlined */
            pg->count_info = PGC_state_offlining | PGC_allocated | 1;
            pg->v.inuse._domain = 1 + xh_below(3);
            break;
        }
    }
    /*
     * Where Xen stops: a page in use and broken (BUG_ON()), or a xenheap page
     * (the chunk it heads goes on zone 0's lists, and its merges take a
     * buddy off a list it is not on).
     */
    for ( i = 0; i < q->stops; i++ )
        xh_frame_table[xh_below(q->frames)].count_info = xh_below(2) ? PGC_broken : PGC_xen_heap;
}

/* The pdx and the node map, as a person reads them. */
void xh_show_layout(const struct sequence *q)
{
    unsigned long g, first = q->base_pdx >> q->shift, last = (q->base_pdx + q->frames - 1) >> q->shift;

    printf("  frame table from pdx %#lx (MFN %#lx)", q->base_pdx, xh_index_mfn(0));
    if ( q->hole_bits )
        printf(", PDX compression: %u bits from bit %u left out of the MFN", q->hole_bits, q->bottom_bits);
    if ( q->pdx_offset )
        printf(", PDX offset compression: pdx = MFN - %#lx", q->pdx_offset);
    printf("\n  node map (pdx):");
    for ( g = first; g <= last; g++ )
        if ( g == first || xh_memnodemap[g] != xh_memnodemap[g - 1] )
        {
            if ( xh_memnodemap[g] == NUMA_NO_NODE )
                printf(" %#lx:none", g << q->shift);
            else
                printf(" %#lx:node %u", g << q->shift, xh_memnodemap[g]);
        }
    printf("\n");
}
