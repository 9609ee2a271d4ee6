// SPDX-License-Identifier: MIT
// The heap audit, run after every init: walks every free list and checks
//  - list links are consistent, and no list loops;
//  - each block sits on the list of its node, zone and order, is naturally
//    aligned, of order at most MAX_ORDER, and lies wholly inside the
//    handed-over regions (so inside usable RAM and clear of every
//    reservation, which the regions already exclude);
//  - no page is in two blocks, and each page of a free block is free, or,
//    after the lazy strategy, uninitialised when it is not the head;
//  - scrub order, as Xen's scrubber relies on it: a block's first_dirty is
//    inside it or INVALID_DIRTY_IDX, no page before it needs scrubbing, no
//    clean block follows a dirty one on a list (page_list_add_scrub() puts
//    dirty blocks at the tail, and scrub_free_pages() takes them from there
//    until it meets a clean one), and each node's need_scrub counts its
//    dirty free pages;
//  - the per-node/zone and total counters match the lists, and every node
//    holding free pages has its heap pointers (Xen's _heap[] and avail[]);
//  - the free page count equals the pages the memory accounting gave the
//    heap (usable RAM less every reservation and every page left out of
//    the boot allocator, heap_setup()), less those allocated since.
// Then a digest of the set of (node, zone, order, MFN) blocks, the same
// whatever order the lists are in, and on request the blocks themselves.
#include "mm/heap_priv.h"

#include <stdarg.h>

#include "kernel/lib/libc.h"

void audit_complain(struct heap_audit *a, const char *fmt, ...)
{
    va_list ap;

    if (a->nerrors < AUDIT_MAX_ERRORS) {
        va_start(ap, fmt);
        vsnprintf(a->errors[a->nerrors], sizeof(a->errors[0]), fmt, ap);
        va_end(ap);
    }
    a->nerrors++;
}

/* A 64-bit mix (the SplitMix64 finaliser constants): blocks spread evenly. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static uint64_t block_hash(unsigned node, unsigned zone, unsigned order, uint64_t mfn)
{
    return mix(mix(mfn) ^ ((uint64_t)node << 48 | (uint64_t)zone << 32 | order));
}

uint64_t heap_digest(void)
{
    const struct heap *h = &heap_default;
    uint64_t d = 0;

    /* A sum is independent of list order; the mix makes collisions unlikely. */
    for (unsigned node = 0; node < MAX_NUMNODES; node++)
        for (unsigned zone = 0; zone < NR_ZONES; zone++)
            for (unsigned order = 0; order <= MAX_ORDER; order++)
                for (struct page_info *pg = heap(h, node, zone, order).next; pg; pg = pl_page(pg->list.next))
                    d += block_hash(node, zone, order, page_to_mfn(pg));
    return d;
}

static void swap_blocks(struct heap_block *a, struct heap_block *b)
{
    struct heap_block t = *a;

    *a = *b;
    *b = t;
}

/* Restores a max-heap by MFN over b[0..n) whose entry i may be too small. */
static void sift_down(struct heap_block *b, unsigned n, unsigned i)
{
    for (;;) {
        unsigned l = 2 * i + 1, big = i;
        if (l < n && b[l].mfn > b[big].mfn)
            big = l;
        if (l + 1 < n && b[l + 1].mfn > b[big].mfn)
            big = l + 1;
        if (big == i)
            return;
        swap_blocks(&b[i], &b[big]);
        i = big;
    }
}

uint64_t heap_list_blocks(struct heap_block *out, unsigned max)
{
    const struct heap *h = &heap_default;
    uint64_t total = 0;
    unsigned n = 0;

    /*
     * out[0..n) is a max-heap by MFN while the lists are read: its top is
     * the highest block kept, the one to drop for a lower block once full.
     */
    for (unsigned node = 0; node < MAX_NUMNODES; node++)
        for (unsigned zone = 0; zone < NR_ZONES; zone++)
            for (unsigned order = 0; order <= MAX_ORDER; order++)
                for (struct page_info *pg = heap(h, node, zone, order).next; pg && total < max_pfn;
                     pg = pl_page(pg->list.next)) {
                    uint64_t mfn = page_to_mfn(pg);
                    if (mfn >= max_pfn || !mfn_valid(mfn))
                        break;
                    struct heap_block b = { (uint32_t)mfn, (uint8_t)order, (uint8_t)node, (uint8_t)zone };
                    total++;
                    if (n < max) {
                        out[n] = b;
                        for (unsigned i = n++; i && out[(i - 1) / 2].mfn < out[i].mfn; i = (i - 1) / 2)
                            swap_blocks(&out[i], &out[(i - 1) / 2]);
                    } else if (max && b.mfn < out[0].mfn) {
                        out[0] = b;
                        sift_down(out, n, 0);
                    }
                }
    /* The second half of a heapsort: the highest to the end, one at a time. */
    for (unsigned k = n; k > 1; k--) {
        swap_blocks(&out[0], &out[k - 1]);
        sift_down(out, k - 1, 0);
    }
    return total;
}

static bool test_and_set(uint64_t *bm, uint64_t bit)
{
    bool was = (bm[bit / 64] >> (bit % 64)) & 1;

    bm[bit / 64] |= 1ull << (bit % 64);
    return was;
}

/*
 * Checks the free block pg and marks its pages in the bitmap. Adds to *dirty
 * how many of its pages need scrubbing (an uninitialised lazy tail as the
 * heap's lazy_dirty says); returns false when it stopped before its last
 * page, which leaves that count short.
 */
static bool check_block(struct heap_audit *a, const struct heap *h, unsigned node, unsigned zone,
                        unsigned order, struct page_info *pg, uint64_t *dirty)
{
    uint64_t mfn = page_to_mfn(pg), n = 1ull << order;
    uint32_t first_dirty = pg->u.free.first_dirty;

    if (!IS_ALIGNED(mfn, n))
        audit_complain(a, "block 0x%llx order %u is not naturally aligned", (unsigned long long)mfn, order);
    if (pg->v.order != order)
        audit_complain(a, "block 0x%llx on the order-%u list says order %u",
                       (unsigned long long)mfn, order, pg->v.order);
    if (mfn_to_nid(mfn) != node || mfn_to_zone(mfn) != zone)
        audit_complain(a, "block 0x%llx on list node %u zone %u belongs to node %u zone %u",
                       (unsigned long long)mfn, node, zone, mfn_to_nid(mfn), mfn_to_zone(mfn));
    if (!heap_range_handed_over(mfn, order)) {
        audit_complain(a, "block 0x%llx order %u reaches outside the handed-over memory",
                       (unsigned long long)mfn, order);
        return false;   /* its pages may have no frame-table entries */
    }
    if (first_dirty != INVALID_DIRTY_IDX && first_dirty >= n)
        audit_complain(a, "block 0x%llx order %u says its first dirty page is %u, past its end",
                       (unsigned long long)mfn, order, first_dirty);
    if (!page_state_is(pg, free))
        audit_complain(a, "head 0x%llx is not free (count_info 0x%llx)",
                       (unsigned long long)mfn, (unsigned long long)pg->count_info);
    for (uint64_t i = 0; i < n; i++) {
        if (test_and_set(heap_audit_bitmap, mfn + i)) {
            audit_complain(a, "page 0x%llx is in two free blocks", (unsigned long long)(mfn + i));
            return false;
        }
        /* Tails are free, or uninitialised when the lazy strategy built the heap. */
        bool tail_ok = page_state_is(&pg[i], free) || (h->lazy_built && page_state_is(&pg[i], uninit));
        if (i && !tail_ok) {
            audit_complain(a, "page 0x%llx of free block 0x%llx is %s (count_info 0x%llx)",
                           (unsigned long long)(mfn + i), (unsigned long long)mfn,
                           h->lazy_built ? "neither free nor uninitialised" : "not free",
                           (unsigned long long)pg[i].count_info);
            return false;
        }
        if (i && page_state_is(&pg[i], uninit) && pg[i].count_info != 0) {
            audit_complain(a, "uninitialised page 0x%llx carries bits 0x%llx",
                           (unsigned long long)(mfn + i), (unsigned long long)pg[i].count_info);
            return false;
        }
        bool needs = page_state_is(&pg[i], uninit) ? h->lazy_dirty : (pg[i].count_info & PGC_need_scrub) != 0;
        /* INVALID_DIRTY_IDX is UINT32_MAX: a clean block's pages all come before it. */
        if (needs && i < first_dirty) {
            if (first_dirty == INVALID_DIRTY_IDX)
                audit_complain(a, "page 0x%llx of free block 0x%llx needs scrubbing, and the "
                               "block says it is clean", (unsigned long long)(mfn + i),
                               (unsigned long long)mfn);
            else
                audit_complain(a, "page 0x%llx of free block 0x%llx needs scrubbing, before the "
                               "block's first dirty page, %u", (unsigned long long)(mfn + i),
                               (unsigned long long)mfn, first_dirty);
            return false;
        }
        *dirty += needs;
    }
    return true;
}

bool heap_audit(struct heap_audit *a)
{
    const struct heap *h = &heap_default;
    uint64_t counted[MAX_NUMNODES][NR_ZONES] = { { 0 } };
    uint64_t dirty[MAX_NUMNODES] = { 0 };
    bool dirty_known[MAX_NUMNODES];

    memset(a, 0, sizeof(*a));
    /* Every page accounted to the heap is free unless the heap handed it out since. */
    a->expected_pages = heap_expected_pages - h->inuse_pages;
    memset(heap_audit_bitmap, 0, ALIGN_UP(max_pfn, 64) / 8);

    for (unsigned node = 0; node < MAX_NUMNODES; node++) {
        /* Xen's _heap[]/avail[] point at the node's own lists, or nowhere yet. */
        const struct heap_node *hn = &h->nodes[node];
        dirty_known[node] = true;
        if ((h->heap_ptr[node] && h->heap_ptr[node] != &hn->lists) ||
            (h->avail_ptr[node] && h->avail_ptr[node] != hn->avail) ||
            !h->heap_ptr[node] != !h->avail_ptr[node])
            audit_complain(a, "node %u's heap pointers are not its own lists and counters", node);
        for (unsigned zone = 0; zone < NR_ZONES; zone++) {
            for (unsigned order = 0; order <= MAX_ORDER; order++) {
                const struct page_list_head *l = &hn->lists[zone][order];
                struct page_info *prev = NULL;
                uint64_t steps = 0;
                bool walked = true, seen_dirty = false;

                for (struct page_info *pg = l->next; pg; prev = pg, pg = pl_page(pg->list.next)) {
                    uint64_t mfn = page_to_mfn(pg);
                    if (mfn >= max_pfn || !mfn_valid(mfn)) {
                        audit_complain(a, "list node %u zone %u order %u links to MFN 0x%llx, "
                                       "outside the frame table", node, zone, order, (unsigned long long)mfn);
                        walked = false;
                        break;
                    }
                    if (pl_page(pg->list.prev) != prev) {
                        audit_complain(a, "block 0x%llx has a stale prev link", (unsigned long long)mfn);
                        walked = false;
                        break;
                    }
                    if (++steps > a->expected_pages + 1) {
                        audit_complain(a, "list node %u zone %u order %u loops", node, zone, order);
                        walked = false;
                        break;
                    }
                    if (!check_block(a, h, node, zone, order, pg, &dirty[node]))
                        dirty_known[node] = false;
                    if (pg->u.free.first_dirty != INVALID_DIRTY_IDX)
                        seen_dirty = true;
                    else if (seen_dirty)
                        audit_complain(a, "clean block 0x%llx follows a dirty one on list node %u "
                                       "zone %u order %u: dirty blocks go to the tail",
                                       (unsigned long long)mfn, node, zone, order);
                    a->blocks[order]++;
                    a->free_pages += 1ull << order;
                    counted[node][zone] += 1ull << order;
                }
                dirty_known[node] &= walked;
                if (walked && l->tail != prev)
                    audit_complain(a, "list node %u zone %u order %u has a stale tail", node, zone, order);
            }
            if (counted[node][zone] && !h->avail_ptr[node])
                audit_complain(a, "node %u holds free pages but init_node_heap() never saw it", node);
            if (counted[node][zone] != hn->avail[zone])
                audit_complain(a, "node %u zone %u counts %llu free pages, its lists hold %llu", node, zone,
                               (unsigned long long)hn->avail[zone], (unsigned long long)counted[node][zone]);
        }
        /* Only from whole blocks: a block the walk left half read says nothing here. */
        if (dirty_known[node] && dirty[node] != hn->need_scrub)
            audit_complain(a, "node %u counts %llu pages that need scrubbing, its lists hold %llu", node,
                           (unsigned long long)hn->need_scrub, (unsigned long long)dirty[node]);
    }
    if (a->free_pages != h->total_avail_pages)
        audit_complain(a, "total_avail_pages is %llu, the lists hold %llu",
                       (unsigned long long)h->total_avail_pages, (unsigned long long)a->free_pages);
    if (a->free_pages != a->expected_pages)
        audit_complain(a, "the lists hold %llu pages, %llu were accounted to the heap and not allocated since",
                       (unsigned long long)a->free_pages, (unsigned long long)a->expected_pages);
    a->digest = heap_digest();
    /* The pages alone, from the bitmap the walk marked: what the peers' audits compare with. */
    a->page_digest = pageset_digest(heap_audit_bitmap, max_pfn);
    a->ok = a->nerrors == 0;
    return a->ok;
}
