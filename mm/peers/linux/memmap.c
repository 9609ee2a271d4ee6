// SPDX-License-Identifier: MIT
// Linux's memmap init on the handed-over pages, and the state every run
// starts from: 6.1's mm/page_alloc.c and 6.12's mm/mm_init.c (memmap_init(),
// memmap_init_zone_range(), memmap_init_range(), __init_single_page(),
// defer_init(), overlap_memmap_init()), with pfn_valid() and
// set_pageblock_migratetype() beside them.
#include "mm/peers/linux/linux.h"

#include "kernel/lib/libc.h"

struct lx_pgdat lx_nodes[MAX_NUMNODES];
struct lx_pgdat *lx_node_data[MAX_NUMNODES];
uint64_t lx_node_online[(MAX_NUMNODES + 63) / 64];
struct lx_page *lx_vmemmap_base;
int64_t lx_vm_zone_stat_free;
struct lx_percpu lx_percpu[HEAP_PAR_MAX_CPUS];
#ifndef BOOTHEAP_HOST
uint64_t *lx_pageblock_flags;
#endif

/* page_group_by_mobility_disabled: only on machines with very little memory. */
static bool page_group_by_mobility_disabled;
/* mm/page_alloc.c's highest_memmap_pfn, and kernelcore=mirror (off). */
static uint64_t highest_memmap_pfn;
static bool mirrored_kernelcore;
/* early_page_ext_enabled() (mm/page_ext.c): early_page_ext, off without its boot option. */
static bool early_page_ext;
/* 6.12's deferred_struct_pages: set when memmap init stops early. */
static bool deferred_struct_pages;
/* defer_init()'s statics: the zone it last saw, and the pages it let through there. */
static uint64_t defer_prev_end_pfn, defer_nr_initialised;
/* need_resched() at boot: nothing else is runnable. */
static volatile bool resched_wanted;

/*
 * mem_section[] under SPARSEMEM_EXTREME: roots of 128 sections of 128 MiB
 * (a root is a page of 32-byte mem_sections in Linux), a root pointer NULL
 * where no section has memory. Each section here is its map's flags only.
 */
#define SECTIONS_PER_ROOT   128
uint8_t lx_section_flags[LX_NR_MEM_SECTIONS];
static uint8_t *mem_section[LX_NR_MEM_SECTIONS / SECTIONS_PER_ROOT];

static const uint64_t zone_limit[LX_NR_ZONES] = { LX_DMA_END_PFN, LX_DMA32_END_PFN, UINT64_MAX };

static void list_init(struct lx_list *l)
{
    l->next = l->prev = l;
}

/* The sections holding handed-over pages have a memory map, made at boot (early). */
static void sections_reset(void)
{
    memset(mem_section, 0, sizeof(mem_section));
    memset(lx_section_flags, 0, sizeof(lx_section_flags));
    for (unsigned i = 0; i < peer_nruns; i++)
        for (uint64_t nr = peer_runs[i].s / LX_SECTION_PAGES; nr <= (peer_runs[i].e - 1) / LX_SECTION_PAGES;
             nr++) {
            lx_section_flags[nr] = LX_SECTION_HAS_MEM_MAP | LX_SECTION_IS_EARLY;
            mem_section[nr / SECTIONS_PER_ROOT] = &lx_section_flags[nr / SECTIONS_PER_ROOT * SECTIONS_PER_ROOT];
        }
}

int lx_reset(struct err *e)
{
    (void)e;
    peer_runs_build();
    lx_vmemmap_base = (struct lx_page *)peer_array(PEER_LINUX);
    for (unsigned i = 0; i < heap_regions.nr; i++)
        memset(lx_pfn_to_page(heap_regions.r[i].s), 0,
               (heap_regions.r[i].e - heap_regions.r[i].s) * sizeof(struct lx_page));
    memset(lx_pageblock_flags, 0, LX_PAGEBLOCK_BYTES(max_pfn));
    memset(lx_nodes, 0, sizeof(lx_nodes));
    sections_reset();
    /* A node spans its first to its last handed-over page (Linux: its memblock memory). */
    for (unsigned n = 0; n < MAX_NUMNODES; n++) {
        lx_nodes[n].node_start_pfn = UINT64_MAX;
        lx_nodes[n].first_deferred_pfn = UINT64_MAX;
        lx_node_data[n] = &lx_nodes[n];
    }
    memset(lx_node_online, 0, sizeof(lx_node_online));
    for (unsigned i = 0; i < peer_nruns; i++) {
        struct lx_pgdat *pgdat = &lx_nodes[peer_runs[i].node];
        lx_node_online[peer_runs[i].node / 64] |= 1ull << (peer_runs[i].node % 64);
        pgdat->node_start_pfn = MIN(pgdat->node_start_pfn, peer_runs[i].s);
        pgdat->node_end_pfn = MAX(pgdat->node_end_pfn, peer_runs[i].e);
    }
    for (unsigned n = 0; n < MAX_NUMNODES; n++) {
        struct lx_pgdat *pgdat = &lx_nodes[n];
        uint64_t lo = 0;
        pgdat->node_spanned_pages = pgdat->node_end_pfn > pgdat->node_start_pfn ?
                                    pgdat->node_end_pfn - pgdat->node_start_pfn : 0;
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
    highest_memmap_pfn = 0;
    /* Boot options in Linux (kernelcore=mirror, early_page_ext): off, and read on every page. */
    mirrored_kernelcore = false;
    early_page_ext = false;
    deferred_struct_pages = false;
    return 0;
}

__attribute__((cold, noipa)) void lx_init_single_page(struct lx_page *pg, uint64_t pfn, unsigned long zone,
                                                         int nid)
{
    (void)pfn;
    lx_init_single_page_inline(pg, zone, nid);
}

/* The same function as 6.1's memmap init runs it, before alternatives: its return through the thunk. */
static __attribute__((cold, noipa)) LX_RETHUNK void init_single_page_boot(struct lx_page *pg, uint64_t pfn,
                                                                             unsigned long zone, int nid)
{
    (void)pfn;
    lx_init_single_page_inline(pg, zone, nid);
}

/* __x86_return_thunk (arch/x86/lib/retpoline.S) as it is before alternatives: a return. */
__asm__(".pushsection .text\n"
        ".globl __x86_return_thunk\n"
        ".type __x86_return_thunk, @function\n"
        "__x86_return_thunk:\n"
        "\tret\n"
        "\tint3\n"
        ".size __x86_return_thunk, . - __x86_return_thunk\n"
        ".popsection");

__attribute__((noipa)) int lx_pfn_valid(uint64_t pfn, unsigned cpu)
{
    uint64_t nr = pfn / LX_SECTION_PAGES;
    const uint8_t *root;
    int ret;

    if (((pfn << PAGE_SHIFT) >> PAGE_SHIFT) != pfn)          /* PHYS_PFN(PFN_PHYS(pfn)) */
        return 0;
    if (nr >= LX_NR_MEM_SECTIONS)
        return 0;
    root = mem_section[nr / SECTIONS_PER_ROOT];             /* __nr_to_section() */
    if (!root)
        return 0;
    /* rcu_read_lock_sched(): the preempt count raised around the look-up. */
    ((volatile struct lx_percpu *)&lx_percpu[cpu])->preempt_count++;
    ret = (root[nr % SECTIONS_PER_ROOT] & LX_SECTION_HAS_MEM_MAP) &&    /* valid_section() */
          (root[nr % SECTIONS_PER_ROOT] & LX_SECTION_IS_EARLY);         /* early_section() */
    ((volatile struct lx_percpu *)&lx_percpu[cpu])->preempt_count--;
    return ret;
}

__attribute__((noinline)) void lx_cond_resched(void)
{
    if (__builtin_expect(resched_wanted, 0))
        resched_wanted = false;
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
 * overlap_memmap_init(): with kernelcore=mirror, ZONE_MOVABLE skips the
 * mirrored regions. Off here (no mirrored memory), so the test is the cost.
 */
static inline bool overlap_memmap_init(unsigned long zone, uint64_t *pfn)
{
    (void)pfn;
    return __builtin_expect(mirrored_kernelcore && zone == LX_ZONE_MOVABLE, 0);
}

/*
 * defer_init(): lower zones always whole; in the node's highest zone the
 * first section's worth of pages, up to a section boundary, then nothing.
 * 6.1 (mm/page_alloc.c) resets its counters on a new zone before the
 * lower-zone test; 6.12 (mm/mm_init.c) only once that test has passed.
 */
static inline __attribute__((always_inline)) bool defer_init(enum lx_version v, int nid, uint64_t pfn,
                                                             uint64_t end_pfn)
{
    if (early_page_ext)
        return false;
    if (v == LX_V6_1 && defer_prev_end_pfn != end_pfn) {
        defer_prev_end_pfn = end_pfn;
        defer_nr_initialised = 0;
    }
    /* Always populate low zones for address-constrained allocations: pgdat_end_pfn(NODE_DATA(nid)). */
    if (end_pfn < lx_node_data[nid]->node_start_pfn + lx_node_data[nid]->node_spanned_pages)
        return false;
    if (lx_node_data[nid]->first_deferred_pfn != UINT64_MAX)
        return true;
    if (v == LX_V6_12 && defer_prev_end_pfn != end_pfn) {
        defer_prev_end_pfn = end_pfn;
        defer_nr_initialised = 0;
    }
    defer_nr_initialised++;
    if (defer_nr_initialised > LX_SECTION_PAGES && (pfn & (LX_SECTION_PAGES - 1)) == 0) {
        lx_node_data[nid]->first_deferred_pfn = pfn;
        return true;
    }
    return false;
}

/*
 * memmap_init_range(), the loop of both kernels. altmap is ZONE_DEVICE's
 * (never here). 6.1 calls __init_single_page() per page; Debian's 6.12,
 * whose __meminit is empty under MEMORY_HOTPLUG, inlines it.
 */
static inline __attribute__((always_inline)) void
memmap_init_range(enum lx_version v, bool deferred, uint64_t size, int nid, unsigned long zone,
                  uint64_t start_pfn, uint64_t zone_end_pfn, enum lx_meminit_context context, void *altmap,
                  int migratetype)
{
    uint64_t pfn, end_pfn = start_pfn + size;

    if (highest_memmap_pfn < end_pfn - 1)
        highest_memmap_pfn = end_pfn - 1;
    if (zone == LX_ZONE_DEVICE && !altmap)
        return;
    for (pfn = start_pfn; pfn < end_pfn;) {
        if (context == LX_MEMINIT_EARLY) {
            if (overlap_memmap_init(zone, &pfn))
                continue;
            if (deferred && defer_init(v, nid, pfn, zone_end_pfn)) {
                if (v == LX_V6_12)
                    deferred_struct_pages = true;
                break;
            }
        }
        struct lx_page *page = lx_pfn_to_page(pfn);
        if (v == LX_V6_1)
            init_single_page_boot(page, pfn, zone, nid);
        else
            lx_init_single_page_inline(page, zone, nid);
        if (context == LX_MEMINIT_HOTPLUG)
            page->flags |= 1ul << LX_PG_reserved;          /* __SetPageReserved() */
        /* Each aligned pageblock movable, so unmovable allocations stay together. */
        if (IS_ALIGNED(pfn, LX_PAGEBLOCK_PAGES)) {
            lx_set_pageblock_migratetype(pfn, (unsigned)migratetype);
            lx_cond_resched();
        }
        pfn++;
    }
}

/* One copy of the loop per kernel and config, as each kernel has its own (__meminit: cold in 6.1). */
static __attribute__((cold, noipa)) void memmap_range_61(uint64_t size, int nid, unsigned long zone,
                                                            uint64_t start, uint64_t zone_end,
                                                            enum lx_meminit_context context, void *altmap,
                                                            int migratetype)
{
    memmap_init_range(LX_V6_1, false, size, nid, zone, start, zone_end, context, altmap, migratetype);
}

static __attribute__((cold, noipa)) void memmap_range_61_deferred(uint64_t size, int nid, unsigned long zone,
                                                                     uint64_t start, uint64_t zone_end,
                                                                     enum lx_meminit_context context,
                                                                     void *altmap, int migratetype)
{
    memmap_init_range(LX_V6_1, true, size, nid, zone, start, zone_end, context, altmap, migratetype);
}

static __attribute__((noipa)) void memmap_range_612_deferred(uint64_t size, int nid, unsigned long zone,
                                                                uint64_t start, uint64_t zone_end,
                                                                enum lx_meminit_context context,
                                                                void *altmap, int migratetype)
{
    memmap_init_range(LX_V6_12, true, size, nid, zone, start, zone_end, context, altmap, migratetype);
}

void lx_memmap_init(enum lx_version v, bool deferred)
{
    /* memmap_init(): each range of one node, each zone it meets (memmap_init_zone_range()). */
    for (unsigned i = 0; i < peer_nruns; i++) {
        const struct peer_run *r = &peer_runs[i];
        for (unsigned z = 0; z < LX_NR_ZONES; z++) {
            const struct lx_zone *zone = &lx_nodes[r->node].zones[z];
            uint64_t s = MAX(r->s, zone->zone_start_pfn), e = MIN(r->e, zone->zone_end_pfn);
            if (s >= e)
                continue;
            /*
             * Linux also inits the reserved pages before a range, which
             * mark a pageblock the range starts inside; bootheap inits the
             * handed-over pages only, so it marks that pageblock here (in
             * the deferred zone Linux marks aligned pageblocks only).
             */
            if (!IS_ALIGNED(s, LX_PAGEBLOCK_PAGES) && (!deferred || s < lx_nodes[r->node].first_deferred_pfn))
                lx_set_pageblock_migratetype(s, LX_MIGRATE_MOVABLE);
            (v == LX_V6_12 ? memmap_range_612_deferred : deferred ? memmap_range_61_deferred : memmap_range_61)(
                e - s, (int)r->node, z, s, zone->zone_end_pfn, LX_MEMINIT_EARLY, NULL, LX_MIGRATE_MOVABLE);
        }
    }
}
