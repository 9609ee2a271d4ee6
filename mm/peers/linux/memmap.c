// SPDX-License-Identifier: MIT
// Linux 6.1's memmap init (mm/page_alloc.c: memmap_init(),
// memmap_init_zone_range(), memmap_init_range(), __init_single_page(),
// defer_init(), set_pageblock_migratetype()), on the handed-over pages, and
// the state every run starts from.
#include "mm/peers/linux/linux.h"

#include "kernel/lib/libc.h"

struct lx_pgdat lx_nodes[MAX_NUMNODES];
int64_t lx_vm_zone_stat_free;
struct lx_percpu lx_percpu[HEAP_PAR_MAX_CPUS];
#ifndef BOOTHEAP_HOST
uint64_t *lx_pageblock_flags;
#endif

/* page_group_by_mobility_disabled: only on machines with very little memory. */
static bool page_group_by_mobility_disabled;
/* defer_init()'s statics: the zone it last saw, and the pages it let through there. */
static uint64_t defer_prev_end_pfn, defer_nr_initialised;

static const uint64_t zone_limit[LX_NR_ZONES] = { LX_DMA_END_PFN, LX_DMA32_END_PFN, UINT64_MAX };

static void list_init(struct lx_list *l)
{
    l->next = l->prev = l;
}

int lx_reset(struct err *e)
{
    (void)e;
    peer_runs_build();
    for (unsigned i = 0; i < heap_regions.nr; i++)
        memset(lx_pfn_to_page(heap_regions.r[i].s), 0,
               (heap_regions.r[i].e - heap_regions.r[i].s) * sizeof(struct lx_page));
    memset(lx_pageblock_flags, 0, LX_PAGEBLOCK_BYTES(max_pfn));
    memset(lx_nodes, 0, sizeof(lx_nodes));
    /* A node spans its first to its last handed-over page (Linux: its memblock memory). */
    for (unsigned n = 0; n < MAX_NUMNODES; n++) {
        lx_nodes[n].node_start_pfn = UINT64_MAX;
        lx_nodes[n].first_deferred_pfn = UINT64_MAX;
    }
    for (unsigned i = 0; i < peer_nruns; i++) {
        struct lx_pgdat *pgdat = &lx_nodes[peer_runs[i].node];
        pgdat->node_start_pfn = MIN(pgdat->node_start_pfn, peer_runs[i].s);
        pgdat->node_end_pfn = MAX(pgdat->node_end_pfn, peer_runs[i].e);
    }
    for (unsigned n = 0; n < MAX_NUMNODES; n++) {
        struct lx_pgdat *pgdat = &lx_nodes[n];
        uint64_t lo = 0;
        for (unsigned z = 0; z < LX_NR_ZONES; z++) {
            struct lx_zone *zone = &pgdat->zones[z];
            zone->zone_start_pfn = MAX(pgdat->node_start_pfn, lo);
            zone->zone_end_pfn = MAX(MIN(pgdat->node_end_pfn, zone_limit[z]), zone->zone_start_pfn);
            lo = zone_limit[z];
            for (unsigned o = 0; o < LX_MAX_ORDER; o++)
                for (unsigned t = 0; t < LX_MIGRATE_TYPES; t++)
                    list_init(&zone->free_area[o].free_list[t]);
        }
    }
    for (unsigned i = 0; i < peer_nruns; i++)
        for (unsigned z = 0; z < LX_NR_ZONES; z++) {
            struct lx_zone *zone = &lx_nodes[peer_runs[i].node].zones[z];
            uint64_t s = MAX(peer_runs[i].s, zone->zone_start_pfn), e = MIN(peer_runs[i].e, zone->zone_end_pfn);
            zone->present += s < e ? e - s : 0;
        }
    lx_vm_zone_stat_free = 0;
    memset(lx_percpu, 0, sizeof(lx_percpu));
    defer_prev_end_pfn = defer_nr_initialised = 0;
    return 0;
}

void lx_init_single_page(struct lx_page *pg, uint64_t pfn, unsigned zone, unsigned nid)
{
    (void)pfn;
    /* mm_zero_struct_page(): inline stores, as Linux's memset of a constant 64 bytes compiles. */
    __builtin_memset(pg, 0, sizeof(*pg));
    /* set_page_links(): zone and node; the section bits are compiled out under VMEMMAP. */
    pg->flags &= ~(7ul << LX_ZONES_PGSHIFT);
    pg->flags |= (uint64_t)zone << LX_ZONES_PGSHIFT;
    pg->flags &= ~(LX_NODES_MASK << LX_NODES_PGSHIFT);
    pg->flags |= ((uint64_t)nid & LX_NODES_MASK) << LX_NODES_PGSHIFT;
    pg->refcount = 1;                                       /* init_page_count() */
    pg->mapcount = UINT32_MAX;                              /* page_mapcount_reset(): -1 */
    pg->flags |= LX_CPUPID_MASK << LX_CPUPID_PGSHIFT;       /* page_cpupid_reset_last() */
    pg->lru.next = pg->lru.prev = &pg->lru;                 /* INIT_LIST_HEAD() */
}

void lx_set_pageblock_migratetype(uint64_t pfn, unsigned mt)
{
    uint64_t bit = (pfn >> LX_PAGEBLOCK_ORDER) * LX_PAGEBLOCK_BITS;
    uint64_t *word = &lx_pageblock_flags[bit / 64];
    uint64_t mask = LX_MIGRATETYPE_MASK << (bit % 64), flags;

    if (__builtin_expect(page_group_by_mobility_disabled && mt < LX_MIGRATE_PCPTYPES, 0))
        mt = LX_MIGRATE_UNMOVABLE;
    flags = (uint64_t)mt << (bit % 64);
    /* set_pfnblock_flags_mask(): a cmpxchg loop, the word being shared by 16 pageblocks. */
    uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(word, &old, (old & ~mask) | flags, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
        ;
}

/*
 * defer_init(): lower zones always whole; in the node's highest zone the
 * first section's worth of pages, up to a section boundary, then nothing.
 */
static bool defer_init(unsigned nid, uint64_t pfn, uint64_t end_pfn)
{
    struct lx_pgdat *pgdat = &lx_nodes[nid];

    if (defer_prev_end_pfn != end_pfn) {
        defer_prev_end_pfn = end_pfn;
        defer_nr_initialised = 0;
    }
    if (end_pfn < pgdat->node_end_pfn)
        return false;
    if (pgdat->first_deferred_pfn != UINT64_MAX)
        return true;
    defer_nr_initialised++;
    if (defer_nr_initialised > LX_SECTION_PAGES && (pfn & (LX_SECTION_PAGES - 1)) == 0) {
        pgdat->first_deferred_pfn = pfn;
        return true;
    }
    return false;
}

/* memmap_init_range() for MEMINIT_EARLY and MIGRATE_MOVABLE. */
static __attribute__((noinline)) void memmap_init_range(uint64_t size, unsigned nid, unsigned zone,
                                                        uint64_t start_pfn, uint64_t zone_end_pfn,
                                                        bool deferred)
{
    uint64_t end_pfn = start_pfn + size;

    for (uint64_t pfn = start_pfn; pfn < end_pfn;) {
        if (deferred && defer_init(nid, pfn, zone_end_pfn))
            break;
        struct lx_page *pg = lx_pfn_to_page(pfn);
        lx_init_single_page(pg, pfn, zone, nid);
        /*
         * Each pageblock's type at its first page. Linux also inits the
         * reserved pages before a range, which mark a pageblock a range
         * starts inside; bootheap inits handed-over pages only, so its
         * first page marks it.
         */
        if (IS_ALIGNED(pfn, LX_PAGEBLOCK_PAGES) || pfn == start_pfn)
            lx_set_pageblock_migratetype(pfn, LX_MIGRATE_MOVABLE);
        pfn++;
    }
}

void lx_memmap_init(bool deferred)
{
    /* memmap_init(): each range of one node, each zone it meets (memmap_init_zone_range()). */
    for (unsigned i = 0; i < peer_nruns; i++) {
        const struct peer_run *r = &peer_runs[i];
        for (unsigned z = 0; z < LX_NR_ZONES; z++) {
            const struct lx_zone *zone = &lx_nodes[r->node].zones[z];
            uint64_t s = MAX(r->s, zone->zone_start_pfn), e = MIN(r->e, zone->zone_end_pfn);
            if (s < e)
                memmap_init_range(e - s, r->node, z, s, zone->zone_end_pfn, deferred);
        }
    }
}

void lx_boot(bool deferred, struct peer_boot_stats *st)
{
    uint64_t t0 = heap_par_platform_now();
    lx_memmap_init(deferred);
    uint64_t t1 = heap_par_platform_now();
    lx_memblock_free_all(deferred);
    st->init_ticks = t1 - t0;
    st->free_ticks = heap_par_platform_now() - t1;
}
