// SPDX-License-Identifier: MIT
// Linux's buddy free path, 6.1's and 6.12's where they differ
// (mm/page_alloc.c: __free_pages_core(), __free_pages_ok(),
// free_pages_prepare(), free_one_page(), split_large_buddy() (6.12),
// __free_one_page()), and one allocation (__rmqueue_smallest(), expand()).
// memblock.c beside this file drives it at boot.
#include "mm/peers/linux/linux.h"

#include "kernel/panic.h"

#define LIST_POISON1 ((struct lx_list *)0xdead000000000100ull)
#define LIST_POISON2 ((struct lx_list *)0xdead000000000122ull)

static inline void list_add(struct lx_list *n, struct lx_list *head)
{
    struct lx_list *next = head->next;

    next->prev = n;
    n->next = next;
    n->prev = head;
    head->next = n;
}

static inline void list_add_tail(struct lx_list *n, struct lx_list *head)
{
    struct lx_list *prev = head->prev;

    n->next = head;
    n->prev = prev;
    prev->next = n;
    head->prev = n;
}

static inline void list_del(struct lx_list *e)
{
    e->next->prev = e->prev;
    e->prev->next = e->next;
    e->next = LIST_POISON1;
    e->prev = LIST_POISON2;
}

/* spin_lock_irqsave(): the flags saved (cli itself is privileged: see docs/fidelity-linux.md). */
static inline uint64_t zone_lock(struct lx_zone *zone)
{
    uint64_t flags;

    __asm__ volatile("pushf; pop %0" : "=r"(flags) :: "memory");
    peer_lock(&zone->lock);
    return flags;
}

static inline void zone_unlock(struct lx_zone *zone, uint64_t flags)
{
    peer_unlock(&zone->lock);
    /* spin_unlock_irqrestore(): sti only when interrupts were on, which boot code never has. */
    __asm__ volatile("" :: "r"(flags) : "memory");
}

/*
 * __mod_zone_page_state() for NR_FREE_PAGES (mm/vmstat.c, out of line in
 * both kernels): a per-CPU delta, folded past the threshold.
 */
static __attribute__((noipa)) void mod_zone_free(struct lx_zone *zone, unsigned nid, unsigned zid,
                                                    int64_t delta, unsigned cpu)
{
    int8_t *p = &lx_percpu[cpu].stat_diff[nid][zid];
    int64_t x = delta + *p;

    if (__builtin_expect(x > zone->stat_threshold || x < -zone->stat_threshold, 0)) {
        __atomic_fetch_add(&zone->vm_stat_free, x, __ATOMIC_RELAXED);
        __atomic_fetch_add(&lx_vm_zone_stat_free, x, __ATOMIC_RELAXED);
        x = 0;
    }
    *p = (int8_t)x;
}

/* page_pool's signature in pp_magic (the lru's first word), less its DMA index bits (6.12). */
#define LX_PP_SIGNATURE     0xdead000000000040ull
#define LX_PP_MAGIC_MASK    0xffffff800000007cull

/*
 * page_expected_state(): unmapped, no mapping, no references, no memcg,
 * none of the flags; 6.12 also asks that it be no page_pool page
 * (page_pool_page_is_pp(), CONFIG_PAGE_POOL).
 */
static inline __attribute__((always_inline)) bool page_expected_state(enum lx_version v, const struct lx_page *pg,
                                                                      uint64_t check_flags)
{
    if (__builtin_expect(pg->mapcount != UINT32_MAX, 0))
        return false;
    if (__builtin_expect(pg->mapping | (uint64_t)(uint32_t)pg->refcount | pg->memcg_data |
                         (pg->flags & check_flags) |
                         (v == LX_V6_12 && ((uint64_t)pg->lru.next & LX_PP_MAGIC_MASK) == LX_PP_SIGNATURE), 0))
        return false;
    return true;
}

/*
 * free_pages_prepare() with the debug options Debian leaves off. 6.1
 * (check_free = true from __free_pages_ok()) checks every tail page. 6.12
 * checks them when check_pages_enabled, a static key that any page
 * hardening turns on: Debian's CONFIG_INIT_ON_ALLOC_DEFAULT_ON does
 * (mem_debugging_and_hardening_init(), before memblock_free_all()).
 */
static inline __attribute__((always_inline)) bool free_pages_prepare(enum lx_version v, struct lx_page *pg,
                                                                     unsigned order)
{
    unsigned bad = 0;
    /* PageCompound(): a compound head or tail; a boot page is neither, but every tail tests it. */
    bool compound = (pg->flags >> LX_PG_head) & 1;

    if (__builtin_expect((pg->flags >> LX_PG_hwpoison) & 1, 0) && !order)
        return false;
    if (__builtin_expect(order, 1)) {
        for (uint64_t i = 1; i < (1ul << order); i++) {
            if (__builtin_expect(compound, 0))
                pg[i].lru.prev = pg[i].lru.next = NULL;    /* free_tail_pages_check()'s clearing */
            /* 6.12: if (is_check_pages_enabled()), a static key Debian's config turns on. */
            if ((v == LX_V6_1 || lx_static_key_on()) &&
                __builtin_expect(!page_expected_state(v, pg + i, LX_FLAGS_CHECK_AT_FREE), 0)) {
                bad++;
                continue;
            }
            pg[i].flags &= ~LX_FLAGS_CHECK_AT_PREP;
        }
    }
    if (pg->mapping & 3)                    /* PageMappingFlags() */
        pg->mapping = 0;
    if ((v == LX_V6_1 || lx_static_key_on()) && !page_expected_state(v, pg, LX_FLAGS_CHECK_AT_FREE))
        bad++;
    if (bad)
        panic("linux: freeing PFN 0x%llx order %u: %u pages are not in the state a free expects",
              (unsigned long long)lx_page_to_pfn(pg), order, bad);
    pg->flags |= LX_CPUPID_MASK << LX_CPUPID_PGSHIFT;      /* page_cpupid_reset_last() */
    pg->flags &= ~LX_FLAGS_CHECK_AT_PREP;
    if (v == LX_V6_12)
        pg->private = 0;
    return true;
}

static inline void set_buddy_order(struct lx_page *pg, unsigned order)
{
    pg->private = order;
    pg->mapcount &= ~LX_PG_buddy;                          /* __SetPageBuddy() */
}

static inline void del_page_from_free_list(struct lx_page *pg, struct lx_zone *zone, unsigned order)
{
    list_del(&pg->lru);
    pg->mapcount |= LX_PG_buddy;                           /* __ClearPageBuddy() */
    pg->private = 0;
    zone->free_area[order].nr_free--;
}

/* __free_one_page() with FPI_TO_TAIL, zone lock held (one version for both kernels). */
static void free_one_page(struct lx_page *pg, uint64_t pfn, struct lx_zone *zone, unsigned order,
                          unsigned mt, unsigned cpu)
{
    uint64_t buddy_pfn;

    if (__builtin_expect(mt != LX_MIGRATE_ISOLATE, 1))
        mod_zone_free(zone, lx_page_to_nid(pg), lx_page_zonenum(pg), 1l << order, cpu);
    while (order < LX_MAX_ORDER - 1) {
        /* compaction_capture(): no capture control at boot. find_buddy_page_pfn(): */
        buddy_pfn = pfn ^ (1ul << order);
        struct lx_page *buddy = pg + (buddy_pfn - pfn);
        /* page_is_buddy(): a free head of this order in the same zone of the same node. */
        if (!lx_page_buddy(buddy) || buddy->private != order ||
            lx_page_zone_id(pg) != lx_page_zone_id(buddy))
            break;
        if (__builtin_expect(order >= LX_PAGEBLOCK_ORDER, 0)) {
            unsigned buddy_mt = lx_pageblock_migratetype(buddy_pfn);
            if (mt != buddy_mt && (!lx_migratetype_mergeable(mt) || !lx_migratetype_mergeable(buddy_mt)))
                break;
        }
        del_page_from_free_list(buddy, zone, order);
        uint64_t combined = buddy_pfn & pfn;
        pg += combined - pfn;
        pfn = combined;
        order++;
    }
    set_buddy_order(pg, order);
    list_add_tail(&pg->lru, &zone->free_area[order].free_list[mt]);
    zone->free_area[order].nr_free++;
}

/*
 * __free_pages_ok(). 6.1 takes the pageblock's type first and frees the
 * block whole; 6.12's free_one_page() hands it to split_large_buddy(),
 * which frees a block above pageblock order pageblock by pageblock, each
 * with its own type (the merge joins them again).
 */
static inline __attribute__((always_inline)) void free_pages_ok(enum lx_version v, struct lx_page *pg,
                                                                unsigned order, unsigned cpu)
{
    uint64_t pfn = lx_page_to_pfn(pg);
    struct lx_zone *zone = lx_page_zone(pg);

    if (!free_pages_prepare(v, pg, order))
        return;
    if (v == LX_V6_1) {
        unsigned mt = lx_pageblock_migratetype(pfn);
        uint64_t flags = zone_lock(zone);
        if (__builtin_expect(zone->nr_isolate_pageblock || mt == LX_MIGRATE_ISOLATE, 0))
            mt = lx_pageblock_migratetype(pfn);
        free_one_page(pg, pfn, zone, order, mt, cpu);
        zone_unlock(zone, flags);
    } else {
        uint64_t flags = zone_lock(zone), end = pfn + (1ul << order);
        unsigned piece = MIN(order, (unsigned)LX_PAGEBLOCK_ORDER);
        for (;;) {
            free_one_page(pg, pfn, zone, piece, lx_pageblock_migratetype(pfn), cpu);
            pfn += 1ul << piece;
            if (pfn == end)
                break;
            pg = lx_pfn_to_page(pfn);
        }
        zone_unlock(zone, flags);
    }
    lx_percpu[cpu].pgfree += 1ul << order;                 /* __count_vm_events(PGFREE) */
}

/*
 * range_contains_unaccepted_memory() (6.12, CONFIG_UNACCEPTED_MEMORY: out
 * of line in drivers/firmware/efi/unaccepted_memory.c): no unaccepted
 * memory table without EFI, so false at once.
 */
static __attribute__((noinline)) bool contains_unaccepted(uint64_t pfn, unsigned order)
{
    static const void *volatile unaccepted_table;

    (void)pfn;
    (void)order;
    return unaccepted_table != NULL;
}

/* __free_pages_core(), each kernel's; __init_single_page() left every refcount at 1, a free page's is 0. */
static inline __attribute__((always_inline)) void free_pages_core(enum lx_version v, struct lx_page *pg,
                                                                  unsigned order, unsigned cpu)
{
    uint64_t n = 1ul << order;
    struct lx_page *p = pg;

    if (v == LX_V6_1) {
        /* 6.1 prefetches the next page for writing. */
        __asm__ volatile("prefetchw %0" :: "m"(*p));
        for (uint64_t i = 0; i < n - 1; i++, p++) {
            __asm__ volatile("prefetchw %0" :: "m"(p[1]));
            p->flags &= ~(1ul << LX_PG_reserved);          /* __ClearPageReserved() */
            p->refcount = 0;                               /* set_page_count() */
        }
        p->flags &= ~(1ul << LX_PG_reserved);
        p->refcount = 0;
    } else {
        for (uint64_t i = 0; i < n; i++, p++) {
            p->flags &= ~(1ul << LX_PG_reserved);
            p->refcount = 0;
        }
    }
    __atomic_fetch_add(&lx_page_zone(pg)->managed_pages, (int64_t)n, __ATOMIC_RELAXED);
    if (v == LX_V6_12 && __builtin_expect(contains_unaccepted(lx_page_to_pfn(pg), order), 0))
        return;
    free_pages_ok(v, pg, order, cpu);
}

static __attribute__((noipa)) void free_pages_core_61(struct lx_page *pg, unsigned order, unsigned cpu)
{
    free_pages_core(LX_V6_1, pg, order, cpu);
}

static __attribute__((noipa)) void free_pages_core_612(struct lx_page *pg, unsigned order, unsigned cpu)
{
    free_pages_core(LX_V6_12, pg, order, cpu);
}

void lx_free_pages_core(enum lx_version v, struct lx_page *pg, unsigned order, unsigned cpu)
{
    (v == LX_V6_1 ? free_pages_core_61 : free_pages_core_612)(pg, order, cpu);
}

uint64_t lx_alloc_page(void)
{
    /* The boot CPU's node first, its highest zone first (the zonelist), then the others. */
    for (unsigned k = 0; k < MAX_NUMNODES; k++)
        for (unsigned z = LX_NR_ZONES; z-- > 0;) {
            struct lx_zone *zone = &lx_nodes[k].zones[z];
            uint64_t flags = zone_lock(zone);
            for (unsigned o = 0; o < LX_MAX_ORDER; o++) {
                struct lx_free_area *area = &zone->free_area[o];
                for (unsigned mt = LX_MIGRATE_MOVABLE, tries = 0; tries < LX_MIGRATE_PCPTYPES;
                     tries++, mt = (mt + 1) % LX_MIGRATE_PCPTYPES) {
                    struct lx_list *l = area->free_list[mt].next;
                    if (l == &area->free_list[mt])
                        continue;
                    struct lx_page *pg = (struct lx_page *)((char *)l - offsetof(struct lx_page, lru));
                    del_page_from_free_list(pg, zone, o);
                    /* expand(): the upper halves back, each at its order. */
                    for (unsigned high = o; high > 0;) {
                        high--;
                        struct lx_page *half = pg + (1ul << high);
                        list_add(&half->lru, &zone->free_area[high].free_list[mt]);
                        zone->free_area[high].nr_free++;
                        set_buddy_order(half, high);
                    }
                    mod_zone_free(zone, k, z, -1, 0);
                    zone_unlock(zone, flags);
                    pg->refcount = 1;                      /* post_alloc_hook() */
                    return lx_page_to_pfn(pg);
                }
            }
            zone_unlock(zone, flags);
        }
    return PEER_NO_PAGE;
}

void lx_free_page(uint64_t pfn)
{
    struct lx_page *pg = lx_pfn_to_page(pfn);

    pg->refcount = 0;                                      /* put_page_testzero() */
    free_pages_ok(LX_V6_1, pg, 0, 0);
}
