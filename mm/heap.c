// SPDX-License-Identifier: MIT
// The buddy heap: Xen's free path, end_boot_allocator() and the greedy block
// loop of sweep and lazy. The setup and the reset between benchmark runs,
// which build on these, are in mm/heap_reset.c; nothing here calls them.
#include "mm/heap_priv.h"

#include "kernel/lib/libc.h"
#include "kernel/panic.h"

struct heap heap_default;
struct bootmem heap_regions;
bool heap_boot_scrub = true;

/* The TLB-flush clock that Xen stamps freed pages with; nothing advances it here. */
static uint32_t tlbflush_clock;

uint64_t *heap_audit_bitmap;
uint64_t heap_expected_pages;

uint64_t heap_handover_pages(void)
{
    uint64_t n = bootmem_pages(&heap_regions);

    /* MFN 0 never enters the heap (heap_init_prologue). */
    if (heap_regions.nr && heap_regions.r[0].s == 0)
        n--;
    return n;
}

__attribute__((noinline)) void init_node_heap(struct heap *h, unsigned node)
{
    h->heap_ptr[node] = &h->nodes[node].lists;
    h->avail_ptr[node] = h->nodes[node].avail;
    memset(h->avail_ptr[node], 0, sizeof(h->nodes[node].avail));
    memset(h->heap_ptr[node], 0, sizeof(h->nodes[node].lists));
}

void heap_clear(struct heap *h)
{
    memset(h, 0, sizeof(*h));
    /* Nodes are met during init when Xen's check is modelled, else all known now. */
    for (unsigned n = 0; n < MAX_NUMNODES; n++) {
        h->heap_ptr[n] = xc_on(xen_costs, XC_NODE_HEAP) ? NULL : &h->nodes[n].lists;
        h->avail_ptr[n] = xc_on(xen_costs, XC_NODE_HEAP) ? NULL : h->nodes[n].avail;
        h->nodes[n].lock = (spinlock_t)SPINLOCK_INIT;
    }
    h->lock = (spinlock_t)SPINLOCK_INIT;
    h->first_valid_mfn = UINT64_MAX;
}

bool heap_range_handed_over(uint64_t mfn, unsigned order)
{
    uint64_t e = mfn + (1ull << order);
    unsigned lo = 0, hi = heap_regions.nr;

    /* The last region starting at or below mfn... */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (heap_regions.r[mid].s <= mfn)
            lo = mid;
        else
            hi = mid;
    }
    if (!heap_regions.nr || heap_regions.r[lo].s > mfn || heap_regions.r[lo].e <= mfn)
        return false;
    /* ...and the regions that continue it without a gap. */
    for (unsigned i = lo; i < heap_regions.nr; i++) {
        if (heap_regions.r[i].e >= e)
            return true;
        if (i + 1 == heap_regions.nr || heap_regions.r[i + 1].s != heap_regions.r[i].e)
            return false;
    }
    return false;
}

bool heap_init_prologue(struct heap *h, uint64_t *mfn, uint64_t *nr)
{
    const unsigned xc = xc_load();

    /* Keep MFN 0 out: a block holding it could merge across a zone boundary. */
    if (*mfn == 0) {
        if (*nr <= 1)
            return false;
        (*mfn)++;
        (*nr)--;
    }
    xc_spin_lock(xc, &h->lock);
    h->first_valid_mfn = MIN(h->first_valid_mfn, *mfn);
    xc_spin_unlock(xc, &h->lock);
    return *nr != 0;
}

void end_boot_allocator(struct heap *h, const struct heap_strategy *s)
{
    const unsigned xc = xc_load();

    /* First the region on the boot CPU's node (node 0 here)... */
    for (unsigned i = 0; i < bootmem.nr; i++) {
        struct bootmem_region *r = &bootmem.r[i];
        if (r->s < r->e && xc_mfn_to_nid(xc, r->s) == 0) {
            s->init_pages(h, r->s, r->e - r->s);
            r->e = r->s;
            break;
        }
    }
    /* ...then every other region, highest first. */
    for (unsigned i = bootmem.nr; i-- > 0;) {
        struct bootmem_region *r = &bootmem.r[i];
        if (r->s < r->e)
            s->init_pages(h, r->s, r->e - r->s);
    }
    bootmem.nr = 0;
}

/*
 * Xen's mark_page_free() (common/page_alloc.c, RELEASE-4.17.0; inline in
 * 4.16's free_heap_pages()): the per-page part of freeing. A page handed
 * over at boot is uninitialised, one given back is in use; either must not
 * be broken (Xen's BUG_ON). An offlining page stays out of use and makes the
 * block tainted (returns true); a free page here is a double free.
 */
static inline bool mark_page_free(unsigned xc, struct page_info *pg, uint64_t mfn)
{
    uint64_t state = pg->count_info & PGC_state;
    bool offlined = false;

    /* Tested in Xen's order: its first case is the state of a zeroed entry
     * ("in use" there, "uninitialised" here), the state of every page at boot.
     * (heap_free() counts pages given back off inuse_pages, outside Xen's loop.) */
    if (state == PGC_state_uninit || state == PGC_state_inuse) {
        if (pg->count_info & PGC_broken)
            panic("freeing MFN 0x%llx, which is broken (count_info 0x%llx)",
                  (unsigned long long)mfn, (unsigned long long)pg->count_info);
        pg->count_info = PGC_state_free;
    } else if (state == PGC_state_offlining) {
        pg->count_info &= PGC_state | PGC_broken;
        offlined = true;
    } else {
        panic("freeing MFN 0x%llx, which is already free (count_info 0x%llx)",
              (unsigned long long)mfn, (unsigned long long)pg->count_info);
    }
    /* A page without an owner needs no safety TLB flush. */
    pg->u.free.need_tlbflush = pg->v.owner != 0;
    if (pg->u.free.need_tlbflush)
        pg->tlbflush_timestamp = tlbflush_clock;
    pg->v.owner = 0;
    /* Not a guest frame any more. */
    xc_m2p_invalidate(xc, mfn);
    return offlined;
}

/*
 * The second half of Xen's free_heap_pages(), inline there and here: merges
 * the free block pg of 2^order pages, already marked and counted, with its
 * buddy while the buddy is a free block of the same order on this node,
 * then lists it. Caller holds the heap lock.
 */
static inline __attribute__((always_inline)) void
merge_and_list(unsigned xc, struct heap *h, struct page_info *pg, unsigned order, unsigned node,
               unsigned zone)
{
    while (order < MAX_ORDER) {
        uint64_t mask = 1ull << order;
        /* The buddy comes first when pg is the upper half of the pair. */
        bool upper = xc_page_to_mfn(xc, pg) & mask;
        struct page_info *buddy = upper ? pg - mask : pg + mask;

        if (!xc_mfn_valid(xc, xc_page_to_mfn(xc, buddy)) || !page_state_is(buddy, free) ||
            buddy->v.order != order || xc_page_to_nid(xc, buddy) != node)
            break;
        xc_check_and_stop_scrub(xc, buddy);
        page_list_del(buddy, xc_heap(xc, h, node, zone, order));

        struct page_info *head = upper ? buddy : pg, *tail = upper ? pg : buddy;
        if (head->u.free.first_dirty == INVALID_DIRTY_IDX &&
            tail->u.free.first_dirty != INVALID_DIRTY_IDX)
            head->u.free.first_dirty = (uint32_t)mask + tail->u.free.first_dirty;
        pg = head;
        order++;
    }
    page_list_add_scrub(xc, h, pg, node, zone, order, pg->u.free.first_dirty);
}

static inline __attribute__((always_inline)) void
init_blocks_body(unsigned xc, struct heap *h, uint64_t s, uint64_t e, unsigned node,
                 heap_mark_fn mark_tails)
{
    bool need_scrub = heap_boot_scrub;
    uint64_t count_info = PGC_state_free | (need_scrub ? PGC_need_scrub : 0);
    uint32_t first_dirty = need_scrub ? 0 : INVALID_DIRTY_IDX;

    xc_node_heap_check(xc, h, node);
    xc_spin_lock(xc, &h->lock);
    if (!mark_tails) {
        h->lazy_built = true;
        h->lazy_dirty = need_scrub;
    } else {
        /*
         * The whole range in one call, not block by block: a string store
         * runs at a speed that depends on its length. On this project's
         * machines a rep stosq of 32 MiB or more fills 13% to 20% faster
         * than the same bytes in 8 MiB calls (a 1 GiB block's entries), as
         * the CPU then stores without reading the lines first; the floor's
         * memset, one call per region, always got the fast kind
         * (docs/hosted-speeds.md). The heads, written below, then overwrite
         * their entries: one line stored twice per block.
         */
        mark_tails(s, e, count_info);
    }
    while (s < e) {
        unsigned order = chunk_order(s, e);
        uint64_t n = 1ull << order;
        unsigned zone = mfn_to_zone(s);
        struct page_info *head = xc_mfn_to_page(xc, s);

        head->count_info = count_info;
        head->u.free.need_tlbflush = 0;
        head->u.free.first_dirty = first_dirty;
        head->v.owner = 0;
        head->tlbflush_timestamp = 0;
        xc_m2p_invalidate(xc, s);
        xc_avail(xc, h, node)[zone] += n;
        h->total_avail_pages += n;
        if (need_scrub)
            h->nodes[node].need_scrub += n;
        if (order < MAX_ORDER && heap_range_handed_over(s ^ n, order))
            merge_and_list(xc, h, head, order, node, zone);
        else
            page_list_add_scrub(xc, h, head, node, zone, order, first_dirty);
        s += n;
    }
    xc_spin_unlock(xc, &h->lock);
}

XC_VARIANTS(heap_blocks_on_node, init_blocks_body,
            (struct heap *h, uint64_t s, uint64_t e, unsigned node, heap_mark_fn mark_tails),
            (h, s, e, node, mark_tails));

void heap_init_blocks(struct heap *h, uint64_t mfn, uint64_t nr, heap_mark_fn mark_tails)
{
    struct node_range ranges[MAX_NUMNODES * 2];

    if (!heap_init_prologue(h, &mfn, &nr))
        return;
    for (uint64_t s = mfn, e = mfn + nr; s < e;) {
        unsigned n = numa_ranges(s, e, ranges, ARRAY_SIZE(ranges));
        for (unsigned i = 0; i < n; i++)
            XC_DISPATCH(heap_blocks_on_node)(h, ranges[i].s, ranges[i].e, ranges[i].node, mark_tails);
        s = ranges[n - 1].e;
    }
}

/* Xen's free_heap_pages(), for one set of costs. */
static inline __attribute__((always_inline)) void
free_pages_body(unsigned xc, struct heap *h, struct page_info *pg, unsigned order, bool need_scrub)
{
    uint64_t mfn = xc_page_to_mfn(xc, pg), n = 1ull << order;
    unsigned node = xc_mfn_to_nid(xc, mfn), zone = xc_page_to_zone(xc, pg);

    bool tainted = false;

    xc_spin_lock(xc, &h->lock);
    for (uint64_t i = 0; i < n; i++) {
        if (mark_page_free(xc, &pg[i], mfn + i))
            tainted = true;
        if (need_scrub)
            pg[i].count_info |= PGC_need_scrub;
    }
    xc_avail(xc, h, node)[zone] += n;
    h->total_avail_pages += n;
    if (need_scrub) {
        h->nodes[node].need_scrub += n;
        pg->u.free.first_dirty = 0;
    } else {
        pg->u.free.first_dirty = INVALID_DIRTY_IDX;
    }
    merge_and_list(xc, h, pg, order, node, zone);
    /* Xen sets the offlined pages aside here (reserve_offlined_page()); no
     * page is ever offlined here, and one that was is refused, loudly. */
    if (tainted)
        panic("freeing MFN 0x%llx order %u: it holds an offlining page, and page offlining "
              "is not modelled", (unsigned long long)mfn, order);
    xc_spin_unlock(xc, &h->lock);
}

XC_VARIANTS(heap_free_pages, free_pages_body,
            (struct heap *h, struct page_info *pg, unsigned order, bool need_scrub),
            (h, pg, order, need_scrub));

void heap_free_pages(struct heap *h, struct page_info *pg, unsigned order, bool need_scrub)
{
    XC_DISPATCH(heap_free_pages)(h, pg, order, need_scrub);
}

uint64_t heap_free_count(void)
{
    return heap_default.total_avail_pages;
}

const struct heap_strategy *heap_strategy_find(const char *name, size_t len)
{
    for (unsigned i = 0; heap_strategies[i]; i++)
        if (strlen(heap_strategies[i]->name) == len && !strncmp(heap_strategies[i]->name, name, len))
            return heap_strategies[i];
    return NULL;
}
