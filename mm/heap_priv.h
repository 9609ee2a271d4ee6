/* SPDX-License-Identifier: MIT */
/*
 * What the heap shares with its init strategies and its audit: the heap
 * object (per-node free lists and counters, Xen's heap lock), the
 * handed-over regions, and the building blocks of Xen's free path. Nothing
 * outside mm/ includes this.
 */
#ifndef MM_HEAP_PRIV_H
#define MM_HEAP_PRIV_H

#include "kernel/lib/spinlock.h"
#include "mm/bootmem.h"
#include "mm/heap.h"
#include "mm/numa.h"
#include "mm/xen_costs.h"

/* Zones: the bit width of the MFN, 1 .. MAX_PHYS_BITS - PAGE_SHIFT. */
#define NR_ZONES (MAX_PHYS_BITS - PAGE_SHIFT + 1)

/* A free list: head and tail pages, links in the pages (Xen's page_list_head). */
struct page_list_head {
    struct page_info *next, *tail;
};

typedef struct page_list_head heap_by_zone_and_order_t[NR_ZONES][MAX_ORDER + 1];

/* One node's part of a heap: its free lists, counters and lock. */
struct heap_node {
    heap_by_zone_and_order_t lists;
    uint64_t avail[NR_ZONES];
    uint64_t need_scrub;            /* Xen's node_need_scrub[node] */
    /* Taken only by a parallel init, to splice a CPU's segments in (mm/heap_par.c). */
    spinlock_t lock;
};

/*
 * A buddy heap (Xen's domain heap): per-node lists and counters, the
 * counters of the whole, and Xen's single heap lock, which every path of
 * Xen's (page, chunk, the free and alloc paths) takes.
 */
struct heap {
    struct heap_node nodes[MAX_NUMNODES];
    /*
     * Xen's _heap[] and avail[]: per-node pointers to the node's lists and
     * counters, NULL until init_node_heap() has seen the node. With
     * node_heap off they are all set at reset; with heap_ptrs off the heap
     * reaches the arrays directly.
     */
    heap_by_zone_and_order_t *heap_ptr[MAX_NUMNODES];
    uint64_t *avail_ptr[MAX_NUMNODES];
    uint64_t total_avail_pages;
    uint64_t inuse_pages;           /* handed out by heap_alloc_pages(), less those back through heap_free() */
    uint64_t first_valid_mfn;
    spinlock_t lock;                /* Xen's heap_lock */
    unsigned preempt_count;         /* the locking CPU's preemption count (mm/xen_costs.c) */
    bool lazy_built;                /* built by the lazy strategy: tails may be uninitialised */
    bool lazy_dirty;                /* the need_scrub value lazy gave its uninitialised tails */
};

_Static_assert(offsetof(struct heap, preempt_count) == offsetof(struct heap, lock) + sizeof(spinlock_t),
               "xc_spin_lock_call() counts preemption in the word after the lock");

/* The heap the kernel builds, and the one heap.h's calls work on. */
extern struct heap heap_default;

#define heap(h, node, zone, order) ((h)->nodes[node].lists[zone][order])

static inline struct page_list_head *xc_heap(unsigned xc, struct heap *h, unsigned node,
                                             unsigned zone, unsigned order)
{
    if (!xc_on(xc, XC_HEAP_PTRS))
        return &heap(h, node, zone, order);
    xc_count(XC_HEAP_PTRS);
    return &(*h->heap_ptr[node])[zone][order];
}

static inline uint64_t *xc_avail(unsigned xc, struct heap *h, unsigned node)
{
    if (!xc_on(xc, XC_HEAP_PTRS))
        return h->nodes[node].avail;
    xc_count(XC_HEAP_PTRS);
    return h->avail_ptr[node];
}

/*
 * Xen's init_node_heap() for a node of h seen for the first time: points
 * _heap[node] and avail[node] at its lists and counters and empties them.
 * (Xen carves them from the range's tail or head for every node after the
 * first; bootheap keeps them in the heap object, see docs/fidelity-xen.md.)
 */
void init_node_heap(struct heap *h, unsigned node);

/* The `if (!avail[nid]) init_node_heap(...)` of Xen's init paths. */
static inline void xc_node_heap_check(unsigned xc, struct heap *h, unsigned nid)
{
    if (!xc_on(xc, XC_NODE_HEAP))
        return;
    xc_count(XC_NODE_HEAP);
    if (__builtin_expect(!h->avail_ptr[nid], 0))
        init_node_heap(h, nid);
}

/*
 * Empties h: no free blocks, counters zero, every node unseen when Xen's
 * node check is modelled (else every node's pointers set). Leaves the frame
 * table alone.
 */
void heap_clear(struct heap *h);

/* The regions end_boot_allocator() hands over, as heap_setup() saw them. */
extern struct bootmem heap_regions;

/* The audit's scratch bitmap, one bit per frame below max_pfn (heap_setup()). */
extern uint64_t *heap_audit_bitmap;
/* The pages the memory accounting says the heap receives (heap_setup()). */
extern uint64_t heap_expected_pages;

/*
 * Boot scrubbing is pending (Xen's default bootscrub=idle): pages handed
 * over at boot are marked as needing scrub and queued at the list tails.
 * bootscrub=off on the command line clears it.
 */
extern bool heap_boot_scrub;


static inline struct page_info *pl_page(uint32_t mfn)
{
    return mfn == PAGE_LIST_NULL ? NULL : mfn_to_page(mfn);
}

static inline void page_list_add(struct page_info *pg, struct page_list_head *h)
{
    pg->list.prev = PAGE_LIST_NULL;
    if (h->next) {
        pg->list.next = (uint32_t)page_to_mfn(h->next);
        h->next->list.prev = (uint32_t)page_to_mfn(pg);
    } else {
        pg->list.next = PAGE_LIST_NULL;
        h->tail = pg;
    }
    h->next = pg;
}

static inline void page_list_add_tail(struct page_info *pg, struct page_list_head *h)
{
    pg->list.next = PAGE_LIST_NULL;
    if (h->next) {
        pg->list.prev = (uint32_t)page_to_mfn(h->tail);
        h->tail->list.next = (uint32_t)page_to_mfn(pg);
    } else {
        pg->list.prev = PAGE_LIST_NULL;
        h->next = pg;
    }
    h->tail = pg;
}

static inline void page_list_del(struct page_info *pg, struct page_list_head *h)
{
    struct page_info *next = pl_page(pg->list.next), *prev = pl_page(pg->list.prev);

    if (prev)
        prev->list.next = pg->list.next;
    else
        h->next = next;
    if (next)
        next->list.prev = pg->list.prev;
    else
        h->tail = prev;
}

/*
 * Puts a free block on its list with its order and dirty index: dirty
 * blocks at the tail, clean ones at the head (Xen's page_list_add_scrub).
 */
static inline void page_list_add_scrub(unsigned xc, struct heap *h, struct page_info *pg,
                                       unsigned node, unsigned zone, unsigned order,
                                       uint32_t first_dirty)
{
    pg->v.order = order;
    pg->u.free.first_dirty = first_dirty;
    pg->u.free.scrub_state = BUDDY_NOT_SCRUBBING;
    if (first_dirty != INVALID_DIRTY_IDX)
        page_list_add_tail(pg, xc_heap(xc, h, node, zone, order));
    else
        page_list_add(pg, xc_heap(xc, h, node, zone, order));
}

/* heap_free_pages() for each set of costs, to call from a copy of the same set (XC_PICK). */
XC_DECLARE_VARIANTS(heap_free_pages, (struct heap *h, struct page_info *pg, unsigned order,
                                       bool need_scrub));

/*
 * Returns a block of 2^order pages to the heap, merging it with free buddies;
 * the path every strategy's frees take, unchecked as in Xen. need_scrub
 * marks its pages as needing scrubbing (they go to the list tail). Panics on
 * a page that is already free: within mm/ that is a bug, as Xen's BUG() is.
 * (Xen's free_heap_pages.) Callers outside mm/ use heap_free().
 */
void heap_free_pages(struct heap *h, struct page_info *pg, unsigned order, bool need_scrub);

/*
 * Xen's "keep MFN 0 away from the buddy allocator" and first_valid_mfn
 * update, shared by every strategy's entry: adjusts [*mfn, *mfn + *nr) and
 * returns false when nothing is left.
 */
bool heap_init_prologue(struct heap *h, uint64_t *mfn, uint64_t *nr);

/*
 * True when the 2^order pages at mfn all lie in handed-over regions, so
 * that a block there could one day be free and be merged with.
 */
bool heap_range_handed_over(uint64_t mfn, unsigned order);

/*
 * Initialises pages [s, e), a whole same-node range, as free tails,
 * count_info given: how the eager single-pass strategy marks pages. The
 * block loop then writes each block's head over its entry.
 */
typedef void (*heap_mark_fn)(uint64_t s, uint64_t e, uint64_t count_info);

/*
 * Hands [mfn, mfn + nr) to the heap in one pass: cut at the node map's
 * ranges (no per-page lookups), each range under one hold of the heap lock,
 * as the greedy blocks of _init_heap_pages(). mark_tails first marks the
 * whole range in one call, then each block's head is written and counted;
 * when it is NULL, the tails stay uninitialised (the lazy strategy). A block whose buddy range is not
 * all handed over cannot merge and is listed directly; the others go
 * through the merge path.
 */
void heap_init_blocks(struct heap *h, uint64_t mfn, uint64_t nr, heap_mark_fn mark_tails);

/*
 * The largest naturally aligned order that starts at s and fits before e,
 * at most MAX_ORDER (the step of Xen's _init_heap_pages).
 */
static inline unsigned chunk_order(uint64_t s, uint64_t e)
{
    unsigned order = MIN((unsigned)MAX_ORDER, fls64(e - s) - 1);

    if (s)
        order = MIN(order, ffs64(s) - 1);
    return order;
}

/*
 * Xen's _init_heap_pages() (common/page_alloc.c, RELEASE-4.17.0, and as at
 * 72b02bc): hands the nr pages at pg, all on one node, to the free path in
 * the largest naturally aligned blocks that fit. For chunk and chunk-72b02bc.
 */
static inline __attribute__((always_inline)) void chunk_init_range(unsigned xc, struct heap *h,
                                                                   struct page_info *pg, uint64_t nr,
                                                                   bool need_scrub)
{
    uint64_t s = xc_page_to_mfn(xc, pg), e = xc_page_to_mfn(xc, pg + nr - 1) + 1;

    if (xc_on(xc, XC_NODE_HEAP))
        xc_node_heap_check(xc, h, xc_page_to_nid(xc, pg));
    while (s < e) {
        unsigned order = chunk_order(s, e);
        XC_PICK(heap_free_pages, xc)(h, xc_mfn_to_page(xc, s), order, need_scrub);
        s += 1ull << order;
    }
}

#endif
