/* SPDX-License-Identifier: MIT */
/*
 * The Linux x86-64 model, 6.1 (Debian 12) and 6.12 (Debian 13) where their
 * hand-overs differ (Debian's configs: SPARSEMEM_VMEMMAP, NUMA, MEMCG,
 * DEFERRED_STRUCT_PAGE_INIT when asked): struct page, zones and their free
 * areas, the pageblock migratetype bits, and the steps of its boot
 * hand-over. Shared by the files of this folder only: the model and its
 * strategies (init_*.c). Field and function names follow Linux's, so that a
 * reader can hold the two side by side; the code is bootheap's.
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

/*
 * The zones an x86-64 node has at boot: ZONE_DMA below 16 MiB, ZONE_DMA32
 * below 4 GiB, ZONE_NORMAL. ZONE_MOVABLE and ZONE_DEVICE follow in Linux's
 * enum; memmap_init_range() tests for them, and they are never populated here.
 */
enum { LX_ZONE_DMA, LX_ZONE_DMA32, LX_ZONE_NORMAL, LX_NR_ZONES };
#define LX_ZONE_MOVABLE     3
#define LX_ZONE_DEVICE      4

/* The two kernels: where their hand-overs differ, the code says which does what. */
enum lx_version { LX_V6_1, LX_V6_12 };

/* enum meminit_context (include/linux/mmzone.h). */
enum lx_meminit_context { LX_MEMINIT_EARLY, LX_MEMINIT_HOTPLUG };
#define LX_DMA_END_PFN      0x1000ul
#define LX_DMA32_END_PFN    0x100000ul

/*
 * page->flags as Debian's 6.1 and 6.12 lay it out (page-flags-layout.h and
 * mmzone.h's *_PGOFF with NODES_SHIFT 10, NR_CPUS 8192, LRU_GEN, no section
 * bits under VMEMMAP), from the top: the node (10 bits), the zone (3), the
 * last CPU and PID (21: LAST_CPUPID is in the flags), the LRU generation
 * (3), then the page flags. Both kernels' __init_single_page() shift by 54,
 * 51 and 30 (objdump of Debian's builds). Bit numbers of the flags are 6.1's.
 */
#define LX_NODES_PGSHIFT    54
#define LX_ZONES_PGSHIFT    51
#define LX_NODES_MASK       0x3fful
#define LX_CPUPID_PGSHIFT   30
#define LX_LRU_GEN_PGOFF    27
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
#define LX_PG_head          16
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

/*
 * vmemmap_base (arch/x86/mm/kaslr.c): a variable under KASLR, so every
 * pfn_to_page() and page_to_pfn() loads it, and again after any call.
 */
extern struct lx_page *lx_vmemmap_base;
#define lx_pfn_to_page(pfn) (lx_vmemmap_base + (pfn))
#define lx_page_to_pfn(pg) ((uint64_t)((pg) - lx_vmemmap_base))

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
    unsigned preempt_count;                         /* pcpu_hot.preempt_count */
} __attribute__((aligned(64)));

struct lx_pgdat {
    struct lx_zone zones[LX_NR_ZONES];
    uint64_t node_start_pfn, node_end_pfn;
    uint64_t node_spanned_pages;    /* pgdat_end_pfn() = node_start_pfn + this */
    uint64_t first_deferred_pfn;    /* UINT64_MAX: nothing deferred */
    uint64_t deferred_pages;        /* free pages past first_deferred_pfn */
};

extern struct lx_pgdat lx_nodes[MAX_NUMNODES];
/* node_data[] (arch/x86/mm/numa.c): NODE_DATA(nid) is a load through it. */
extern struct lx_pgdat *lx_node_data[MAX_NUMNODES];
/* node_states[N_ONLINE]: node_online() tests a bit of it. */
extern uint64_t lx_node_online[(MAX_NUMNODES + 63) / 64];
extern int64_t lx_vm_zone_stat_free;         /* vm_zone_stat[NR_FREE_PAGES] */
extern struct lx_percpu lx_percpu[HEAP_PAR_MAX_CPUS];
/* The pageblock bits, 4 per pageblock of every PFN (Linux keeps them per section). */
extern uint64_t *lx_pageblock_flags;
/* Bytes of them for PFNs below max_pfn, whole words. */
#define LX_PAGEBLOCK_BYTES(max_pfn) (ALIGN_UP(((max_pfn) + LX_PAGEBLOCK_PAGES - 1) >> LX_PAGEBLOCK_ORDER, 16) / 2)

static inline unsigned lx_page_zonenum(const struct lx_page *pg)
{
    return (unsigned)(pg->flags >> LX_ZONES_PGSHIFT) & 7;
}

static inline unsigned lx_page_to_nid(const struct lx_page *pg)
{
    return (unsigned)(pg->flags >> LX_NODES_PGSHIFT) & LX_NODES_MASK;
}

/* page_zone_id(): node and zone together, the bits above ZONEID_PGSHIFT. */
static inline unsigned lx_page_zone_id(const struct lx_page *pg)
{
    return (unsigned)(pg->flags >> LX_ZONES_PGSHIFT);
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

/*
 * Debian's builds return through __x86_return_thunk (6.1: CONFIG_RETHUNK;
 * 6.12: CONFIG_MITIGATION_RETHUNK): a jump to a `ret`, until
 * alternative_instructions() patches each return into a plain `ret`. That
 * is after memblock_free_all() and before the deferred init, so the boot
 * part's out-of-line functions that run per page return this way and the
 * deferred init's do not.
 */
#define LX_RETHUNK __attribute__((function_return("thunk-extern")))

/*
 * A static key that is on: Linux compiles static_branch_unlikely() to a
 * no-op at its site and, once static_branch_enable() has run, patches it
 * into a jump to the branch: one instruction each time the site runs.
 */
static inline __attribute__((always_inline)) bool lx_static_key_on(void)
{
    __asm__ goto("jmp %l[on]" :::: on);
    return false;
on:
    return true;
}

/* ---- mm/peers/linux/memmap.c: the boot part ---- */

/* Sets the zones' spans from the runs, empties every free area. Untimed; returns 0. */
int lx_reset(struct err *e);

/* memmap_init(): every run's struct pages; with deferred, stops as defer_init() does. */
void lx_memmap_init(enum lx_version v, bool deferred);

/*
 * __init_single_page() (6.1: mm/page_alloc.c; 6.12: mm/mm_init.c). 6.1
 * marks it __meminit, a cold section GCC optimises for size, and with its
 * five callers it stays out of line: this is that copy, as the deferred
 * init calls it (returns patched). Debian's 6.12 has an empty __meminit
 * (MEMORY_HOTPLUG) and inlines it into both its callers here:
 * lx_init_single_page_inline().
 */
void lx_init_single_page(struct lx_page *pg, uint64_t pfn, unsigned long zone, int nid);

static inline __attribute__((always_inline)) void lx_init_single_page_inline(struct lx_page *pg,
                                                                             unsigned long zone, int nid)
{
    /*
     * mm_zero_struct_page(): x86-64 defines it as eight word stores for a
     * 64-byte struct page (include/linux/mm.h), never a memset.
     */
    uint64_t *w = (uint64_t *)pg;
    w[7] = 0;
    w[6] = 0;
    w[5] = 0;
    w[4] = 0;
    w[3] = 0;
    w[2] = 0;
    w[1] = 0;
    w[0] = 0;
    /* set_page_links(): zone and node; the section bits are compiled out under VMEMMAP. */
    pg->flags &= ~(7ul << LX_ZONES_PGSHIFT);
    pg->flags |= (uint64_t)(zone & 7) << LX_ZONES_PGSHIFT;
    pg->flags &= ~(LX_NODES_MASK << LX_NODES_PGSHIFT);
    pg->flags |= ((uint64_t)nid & LX_NODES_MASK) << LX_NODES_PGSHIFT;
    pg->refcount = 1;                                       /* init_page_count() */
    pg->mapcount = UINT32_MAX;                              /* page_mapcount_reset(): -1 */
    pg->flags |= LX_CPUPID_MASK << LX_CPUPID_PGSHIFT;       /* page_cpupid_reset_last() */
    pg->lru.next = pg->lru.prev = &pg->lru;                 /* INIT_LIST_HEAD() */
}

/* The boot part: lx_memmap_init(), then lx_memblock_free_all(), each timed into st (mm/peers/linux/boot.c). */
void lx_boot(enum lx_version v, bool deferred, struct peer_boot_stats *st);

/* set_pageblock_migratetype(): the type bits of pfn's pageblock. */
void lx_set_pageblock_migratetype(uint64_t pfn, unsigned mt);

/*
 * Each 128 MiB section's mem_section flags (include/linux/mmzone.h):
 * lx_reset() gives every section that holds handed-over pages a memory
 * map made at boot.
 */
#define LX_SECTION_HAS_MEM_MAP  0x2
#define LX_SECTION_IS_EARLY     0x8
#define LX_NR_MEM_SECTIONS      (MAX_PFN_LIMIT / LX_SECTION_PAGES)
extern uint8_t lx_section_flags[LX_NR_MEM_SECTIONS];

/*
 * pfn_valid() of SPARSEMEM (include/linux/mmzone.h), which Debian's builds
 * keep out of line: pfn's section has a memory map. 1 or 0. cpu: the
 * worker's index, whose preempt count it raises and lowers (Linux's is
 * per CPU, through %gs).
 */
int lx_pfn_valid(uint64_t pfn, unsigned cpu);

/* cond_resched(): a static call under PREEMPT_DYNAMIC; nothing asks for a reschedule at boot. */
void lx_cond_resched(void);

/* ---- mm/peers/linux/buddy.c: the free path and one allocation ---- */

/* memblock_free_all(): every run handed to the buddy allocator, deferred pages skipped. */
void lx_memblock_free_all(enum lx_version v, bool deferred);

/*
 * __free_pages_core(): the refcounts cleared, then __free_pages_ok(), as
 * version v does it. cpu: the worker's index.
 */
void lx_free_pages_core(enum lx_version v, struct lx_page *pg, unsigned order, unsigned cpu);

/* One order-0 page taken from the buddy lists (__rmqueue_smallest()), or PEER_NO_PAGE. */
uint64_t lx_alloc_page(void);

/* The page back through __free_pages_ok(). */
void lx_free_page(uint64_t pfn);

/* ---- mm/peers/linux/deferred.c ---- */

/* The deferred init as version v does it (deferred_init_memmap() per node). */
int lx_deferred_init(enum lx_version v, unsigned cpus, uint64_t window[2], struct peer_later_stats *st,
                     struct err *e);

/* ---- mm/peers/linux/padata.c ---- */

/* struct padata_mt_job (include/linux/padata.h): a range of work split into chunks. */
struct lx_padata_job {
    void (*thread_fn)(uint64_t start, uint64_t end, void *arg, unsigned cpu);
    void *fn_arg;
    uint64_t start, size, align, min_chunk;
    unsigned max_threads;
};

/* padata_mt_job_state: the job's chunks as its helpers take them. */
struct lx_padata_state {
    peer_lock_t lock;
    struct lx_padata_job *job;
    uint64_t chunk_size;
    unsigned nworks, nworks_fini;
};

/*
 * padata_do_multithreaded()'s plan for a job (kernel/padata.c, 6.1 and
 * 6.12): the threads it asks for, at least one and at most max_threads;
 * and, when more than one, the chunk size: the job over four chunks a
 * thread, at least min_chunk, rounded up to a multiple of align by
 * roundup(), which is a division: align need not be a power of two.
 * Returns the threads; sets ps->chunk_size (0 when one thread).
 */
unsigned lx_padata_plan(const struct lx_padata_job *job, struct lx_padata_state *ps);

/*
 * padata_mt_helper()'s next chunk: from job->start to the next multiple
 * of chunk_size (roundup(start + 1, chunk_size)), or the job's end. Takes
 * it off the job; returns its size, 0 when the job is done.
 */
uint64_t lx_padata_next(struct lx_padata_job *job, uint64_t chunk_size, uint64_t *start);

/*
 * One job on the workers that serve it: the single-thread path calls
 * thread_fn once over the whole job, without a lock or chunks, as
 * padata_do_multithreaded() does when nworks is 1; otherwise each helper
 * takes chunks under the state's lock. rank: this worker's rank among the
 * job's threads (1 is the caller's); called by every worker of the node.
 */
void lx_padata_run(struct lx_padata_job *job, struct lx_padata_state *ps, unsigned rank, unsigned cpu);

/* ---- mm/peers/linux/audit.c ---- */

bool lx_audit(struct heap_audit *a);

#endif
