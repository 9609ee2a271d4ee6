/* SPDX-License-Identifier: MIT */
/*
 * The Linux 6.1 x86-64 model (Debian's config: SPARSEMEM_VMEMMAP, NUMA,
 * MEMCG, DEFERRED_STRUCT_PAGE_INIT when asked): struct page, zones and
 * their free areas, the pageblock migratetype bits, and the steps of its
 * boot hand-over. Shared by the files of this folder only: the model and its
 * two strategies (init_*.c). Field and function names follow Linux's, so
 * that a reader can hold the two side by side; the code is bootheap's.
 */
#ifndef MM_PEERS_LINUX_LINUX_H
#define MM_PEERS_LINUX_LINUX_H

#include "mm/peers/peer_priv.h"

#define LX_MAX_ORDER        11          /* orders 0 .. 10: 4 MiB blocks (6.1's MAX_ORDER) */
#define LX_PAGEBLOCK_ORDER  9           /* HUGETLB_PAGE_ORDER on x86-64 */
#define LX_PAGEBLOCK_PAGES  (1ul << LX_PAGEBLOCK_ORDER)
#define LX_SECTION_PAGES    (1ul << 15) /* SECTION_SIZE_BITS 27: 128 MiB */
#define LX_MAX_ORDER_PAGES  (1ul << (LX_MAX_ORDER - 1))

/* Migrate types with CONFIG_CMA and CONFIG_MEMORY_ISOLATION. */
enum {
    LX_MIGRATE_UNMOVABLE, LX_MIGRATE_MOVABLE, LX_MIGRATE_RECLAIMABLE,
    LX_MIGRATE_PCPTYPES, LX_MIGRATE_HIGHATOMIC = LX_MIGRATE_PCPTYPES,
    LX_MIGRATE_CMA, LX_MIGRATE_ISOLATE, LX_MIGRATE_TYPES
};
#define LX_PAGEBLOCK_BITS   4           /* NR_PAGEBLOCK_BITS: 3 for the type, 1 for compaction */
#define LX_MIGRATETYPE_MASK 7ul

/* The zones an x86-64 node has at boot: ZONE_DMA below 16 MiB, ZONE_DMA32 below 4 GiB. */
enum { LX_ZONE_DMA, LX_ZONE_DMA32, LX_ZONE_NORMAL, LX_NR_ZONES };
#define LX_DMA_END_PFN      0x1000ul
#define LX_DMA32_END_PFN    0x100000ul

/*
 * page->flags as Debian's 6.1 lays it out (page-flags-layout.h with
 * NODES_SHIFT 10, NR_CPUS 8192, LRU_GEN, no section bits under VMEMMAP):
 * zone in the top 3 bits, node in the 10 below, the LRU generation, the
 * last CPU and PID (21 bits, which fit: LAST_CPUPID is in the flags), and
 * the page flags at the bottom. Bit numbers of the flags are 6.1's enum.
 */
#define LX_ZONES_PGSHIFT    61
#define LX_NODES_PGSHIFT    51
#define LX_NODES_MASK       0x3fful
#define LX_LRU_GEN_PGOFF    48
#define LX_CPUPID_PGSHIFT   27
#define LX_CPUPID_MASK      ((1ul << 21) - 1)
#define LX_NR_PAGEFLAGS     26
#define LX_PG_locked        0
#define LX_PG_lru           4
#define LX_PG_active        5
#define LX_PG_slab          9
#define LX_PG_reserved      12
#define LX_PG_private       13
#define LX_PG_private_2     14
#define LX_PG_writeback     15
#define LX_PG_unevictable   20
#define LX_PG_mlocked       21
#define LX_PG_hwpoison      23
#define LX_LRU_GEN_MASK     (7ul << LX_LRU_GEN_PGOFF)
/* What must be clear when a page is freed, and what freeing clears (page-flags.h). */
#define LX_FLAGS_CHECK_AT_FREE                                                          \
    (1ul << LX_PG_lru | 1ul << LX_PG_locked | 1ul << LX_PG_private | 1ul << LX_PG_private_2 | \
     1ul << LX_PG_writeback | 1ul << LX_PG_reserved | 1ul << LX_PG_slab | 1ul << LX_PG_active | \
     1ul << LX_PG_unevictable | 1ul << LX_PG_mlocked | LX_LRU_GEN_MASK)
#define LX_FLAGS_CHECK_AT_PREP \
    ((((1ul << LX_NR_PAGEFLAGS) - 1) & ~(1ul << LX_PG_hwpoison)) | LX_LRU_GEN_MASK)

/* page_type lives in _mapcount: PageBuddy is PG_buddy cleared under PAGE_TYPE_BASE. */
#define LX_PAGE_TYPE_BASE   0xf0000000u
#define LX_PG_buddy         0x00000080u

struct lx_list {
    struct lx_list *next, *prev;
};

/* struct page, 64 bytes with CONFIG_MEMCG (include/linux/mm_types.h). */
struct lx_page {
    uint64_t flags;
    struct lx_list lru;             /* a free block's head: its free_list links */
    uint64_t mapping;
    uint64_t index;
    uint64_t private;               /* a free block's head: its order */
    uint32_t mapcount;              /* _mapcount, or page_type; -1 when unmapped */
    int32_t refcount;               /* _refcount */
    uint64_t memcg_data;
};
_Static_assert(sizeof(struct lx_page) == 64, "struct page is 64 bytes on x86-64 with MEMCG");

#define lx_vmemmap ((struct lx_page *)peer_array(PEER_LINUX))
#define lx_pfn_to_page(pfn) (lx_vmemmap + (pfn))
#define lx_page_to_pfn(pg) ((uint64_t)((pg) - lx_vmemmap))

struct lx_free_area {
    struct lx_list free_list[LX_MIGRATE_TYPES];
    uint64_t nr_free;
};

struct lx_zone {
    peer_lock_t lock;               /* zone->lock */
    uint64_t zone_start_pfn, zone_end_pfn;   /* its span on the node; empty when equal */
    uint64_t present;               /* handed-over pages in the span */
    struct lx_free_area free_area[LX_MAX_ORDER];
    int64_t managed_pages;          /* atomic_long */
    int64_t vm_stat_free;           /* zone->vm_stat[NR_FREE_PAGES] */
    uint64_t nr_isolate_pageblock;
    int8_t stat_threshold;          /* 0 at boot (boot_zonestats); set for the deferred part */
};

/* What Linux keeps per CPU: the zones' pending NR_FREE_PAGES deltas, the PGFREE events. */
struct lx_percpu {
    int8_t stat_diff[MAX_NUMNODES][LX_NR_ZONES];    /* per_cpu_zonestats.vm_stat_diff */
    uint64_t pgfree;                                /* vm_event_states.event[PGFREE] */
} __attribute__((aligned(64)));

struct lx_pgdat {
    struct lx_zone zones[LX_NR_ZONES];
    uint64_t node_start_pfn, node_end_pfn;
    uint64_t first_deferred_pfn;    /* UINT64_MAX: nothing deferred */
    uint64_t deferred_pages;        /* free pages past first_deferred_pfn */
};

extern struct lx_pgdat lx_nodes[MAX_NUMNODES];
extern int64_t lx_vm_zone_stat_free;         /* vm_zone_stat[NR_FREE_PAGES] */
extern struct lx_percpu lx_percpu[HEAP_PAR_MAX_CPUS];
/* The pageblock bits, 4 per pageblock of every PFN (Linux keeps them per section). */
extern uint64_t *lx_pageblock_flags;
/* Bytes of them for PFNs below max_pfn, whole words. */
#define LX_PAGEBLOCK_BYTES(max_pfn) (ALIGN_UP(((max_pfn) + LX_PAGEBLOCK_PAGES - 1) >> LX_PAGEBLOCK_ORDER, 16) / 2)

static inline unsigned lx_page_zonenum(const struct lx_page *pg)
{
    return (unsigned)(pg->flags >> LX_ZONES_PGSHIFT);
}

static inline unsigned lx_page_to_nid(const struct lx_page *pg)
{
    return (unsigned)(pg->flags >> LX_NODES_PGSHIFT) & LX_NODES_MASK;
}

static inline unsigned lx_page_zone_id(const struct lx_page *pg)
{
    return (unsigned)(pg->flags >> LX_NODES_PGSHIFT);
}

static inline struct lx_zone *lx_page_zone(const struct lx_page *pg)
{
    return &lx_nodes[lx_page_to_nid(pg)].zones[lx_page_zonenum(pg)];
}

static inline bool lx_page_buddy(const struct lx_page *pg)
{
    return (pg->mapcount & (LX_PAGE_TYPE_BASE | LX_PG_buddy)) == LX_PAGE_TYPE_BASE;
}

/* get_pfnblock_flags_mask() for the migrate type of pfn's pageblock. */
static inline unsigned lx_pageblock_migratetype(uint64_t pfn)
{
    uint64_t bit = (pfn >> LX_PAGEBLOCK_ORDER) * LX_PAGEBLOCK_BITS;

    return (unsigned)(__atomic_load_n(&lx_pageblock_flags[bit / 64], __ATOMIC_RELAXED) >> (bit % 64)) &
           LX_MIGRATETYPE_MASK;
}

/* migratetype_is_mergeable(): the types a free may merge across at pageblock order and up. */
static inline bool lx_migratetype_mergeable(unsigned mt)
{
    return mt < LX_MIGRATE_PCPTYPES;
}

/* ---- mm/peers/linux/memmap.c: the boot part ---- */

/* Sets the zones' spans from the runs, empties every free area. Untimed; returns 0. */
int lx_reset(struct err *e);

/* memmap_init(): every run's struct pages; with deferred, stops as 6.1's defer_init() does. */
void lx_memmap_init(bool deferred);

/* __init_single_page() (mm/page_alloc.c in 6.1). */
void lx_init_single_page(struct lx_page *pg, uint64_t pfn, unsigned zone, unsigned nid);

/* The boot part: lx_memmap_init(), then lx_memblock_free_all(), each timed into st. */
void lx_boot(bool deferred, struct peer_boot_stats *st);

/* set_pageblock_migratetype(): the type bits of pfn's pageblock. */
void lx_set_pageblock_migratetype(uint64_t pfn, unsigned mt);

/* ---- mm/peers/linux/buddy.c: the free path and one allocation ---- */

/* memblock_free_all(): every run handed to the buddy allocator, deferred pages skipped. */
void lx_memblock_free_all(bool deferred);

/* __free_pages_core(): the refcounts cleared, then __free_pages_ok(). cpu: the worker's index. */
void lx_free_pages_core(struct lx_page *pg, unsigned order, unsigned cpu);

/* One order-0 page taken from the buddy lists (__rmqueue_smallest()), or PEER_NO_PAGE. */
uint64_t lx_alloc_page(void);

/* The page back through __free_pages_ok(). */
void lx_free_page(uint64_t pfn);

/* ---- mm/peers/linux/deferred.c ---- */

int lx_deferred_init(unsigned cpus, uint64_t window[2], struct peer_later_stats *st, struct err *e);

/* ---- mm/peers/linux/audit.c ---- */

bool lx_audit(struct heap_audit *a);

#endif
