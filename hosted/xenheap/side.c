/* SPDX-License-Identifier: MIT */
/*
 * One side of the tester: a tree's page_alloc.c, cut at build time
 * (XH_EXTRACT), driven through a sequence (at boot, with the M2P live,
 * after boot; after boot perhaps on a thread beside others that allocate
 * and free), checked (every free block where the lists and counters say)
 * and its state written out as records, also at a hard failure, so that
 * two trees can be held to stop alike. XH_SIDE (0 or 1) names its entry
 * point; XH_HEAP_INIT is given when the tree has the heap-init= option,
 * whose variant it sets (in the stock-against-series build, XH_PAIR, the
 * tree's default stays).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "xen_stand.h"
#include XH_ARCH_M2P
#include "tester.h"

#ifndef XH_SIDE
#define XH_SIDE 0
#endif
#define XH_SIDE_FN_(name, n) name##_##n
#define XH_SIDE_FN(name, n) XH_SIDE_FN_(name, n)

/* What page_alloc.c defines outside static is renamed a side by the build (hostheap.globals_of()). */
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

static const struct sequence *seq;
static struct record *rec;
static unsigned long *nrec, at_call;

static void put(uint32_t kind, uint32_t a, uint32_t b, uint32_t c, uint64_t value)
{
    if ( *nrec >= MAX_RECORDS )
        xh_fail(__FILE__, __LINE__, "more records than a slot holds");
    rec[(*nrec)++] = (struct record){ kind, a, b, c, value };
}

static int by_frame(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;

    return *a < *b ? -1 : *a > *b;
}

/* Whether p is one of the frame table's entries (a list link can be anything after a stop). */
static bool in_table(const struct page_info *p)
{
    uintptr_t at = (uintptr_t)p - (uintptr_t)xh_frame_table;

    return at < seq->frames * sizeof(*p) && !(at % sizeof(*p));
}

/*
 * A list's entries in order, or sorted where the order depends on the
 * threads (q->concurrent, q->parallel). After a stop a list head may sit in memory the
 * stopped call had begun to free and poison: a link outside the frame
 * table ends the list as an entry ~0, as it would end it on either tree.
 */
static void put_list(uint32_t kind, uint32_t a, uint32_t b, const struct page_list_head *h)
{
    static uint64_t entry[MAX_FRAMES + 1];
    const struct page_info *p;
    uint32_t i = 0, n = 0;

    for ( p = h->next; p && n < MAX_FRAMES; p = p->list.next )
    {
        if ( !in_table(p) )
        {
            entry[n++] = ~0ULL;
            break;
        }
        entry[n++] = p - xh_frame_table;
        xh_listed[p - xh_frame_table] = 1;
    }
    if ( seq->concurrent || seq->parallel )
        qsort(entry, n, sizeof(*entry), by_frame);
    for ( i = 0; i < n; i++ )
        put(kind, a, b, i, entry[i]);
    /* An empty list says nothing: a list empty on one side only still shows as its entries. */
    if ( kind == R_LIST && n )
        put(R_LIST_LEN, a, b, 0, n);
}

/* Whether frame i was handed over on a thread (its M2P entry then known whatever the threads did). */
static bool threaded(unsigned long i)
{
    unsigned int c;

    for ( c = 0; c < seq->calls; c++ )
        if ( seq->call[c].threaded && i >= seq->call[c].s && i - seq->call[c].s < seq->call[c].n )
            return true;
    return false;
}

/* The state as records; with `stop`, the hard failure it ended on. */
static void snapshot(const char *stop)
{
    const struct sequence *q = seq;
    bool loose = q->concurrent;                    /* what depends on which pages the threads took */
    unsigned long i;
    unsigned int node, zone, order;

#ifdef XH_SCRUB_DEBUG
    /* The pages of the tester's memory written at all (the others read as zero, and reading costs a fault). */
    static unsigned char written[MAX_FRAMES];

    if ( mincore(xh_ram, q->frames * PAGE_SIZE, written) )
        xh_fail(__FILE__, __LINE__, "mincore()");
#endif
    *nrec = 0;
    memset(xh_listed, 0, sizeof(xh_listed));
    for ( node = 0; node < MAX_NUMNODES; node++ )
    {
        put(R_SCRUB, node, 0, 0, loose ? 0 : node_need_scrub[node]);
#ifdef XH_NODE_AVAIL
        put(R_NODE_AVAIL, node, 0, 0, node_avail_pages[node]);
#endif
        if ( !avail[node] )
        {
            put(R_META, node, 0, 0, ~0ULL);
            continue;
        }
        put(R_META, node, 0, 0, (char *)_heap[node] >= xh_ram &&
            (char *)_heap[node] < xh_ram + MAX_FRAMES * PAGE_SIZE ?
            (uint64_t)((char *)_heap[node] - xh_ram) / PAGE_SIZE : ~1ULL);
        for ( zone = 0; zone < XH_NR_ZONES; zone++ )
        {
            if ( avail[node][zone] )
                put(R_AVAIL, node, zone, 0, avail[node][zone]);
            for ( order = 0; order <= MAX_ORDER; order++ )
                put_list(R_LIST, node, zone * 100 + order, &xh_heap(node, zone, order));
        }
    }
    put(R_TOTAL, 0, 0, 0, total_avail_pages);
    put_list(R_OFFLINED, 0, 0, &page_offlined_list);
    put_list(R_BROKEN, 0, 0, &page_broken_list);
    put(R_FIRST_VALID, 0, 0, 0, first_valid_mfn.mfn);
    put(R_PRINTK, 0, 0, 0, xh_printks);
    put(R_XENHEAP, 0, 0, 0, xh_xenheap_allocs);
    for ( i = 0; i < q->frames; i++ )
    {
        const struct page_info *pg = &xh_frame_table[i];
        /*
         * c = 1: a free page inside a block, whose u and v no path reads.
         * Nor does any read an offlined page's u, until online_page() frees
         * it through mark_page_free() (need_tlbflush) and lists it
         * (first_dirty): what it holds before is what the order of the
         * hand-over left, when it was for a while a block's head, and that
         * order is the one thing a parallel hand-over changes.
         */
        bool inside = page_state_is(pg, free) && !xh_listed[i];

        put(R_COUNT, i, 0, 0, pg->count_info & ~(loose ? PGC_need_scrub : 0));
        put(R_U, i, 0, inside, loose || (q->parallel && page_state_is(pg, offlined)) ? 0 : pg->u.free.val);
        put(R_V, i, 0, inside, loose && inside ? 0 : pg->v.free.order);
        put(R_TLB, i, 0, 0, pg->tlbflush_timestamp);
        put(R_M2P, i, 0, 0, !loose || threaded(i) ? xh_m2p[i] : 0);
#ifdef XH_SCRUB_DEBUG
        /* A page in use may hold a node's heap metadata, whose list heads a parallel hand-over orders. */
        put(R_POISON, i, 0, 0, loose || !(written[i] & 1) || (q->parallel && !page_state_is(pg, free)) ? 0 :
            *(const uint64_t *)(xh_ram + i * PAGE_SIZE));
#endif
    }
    if ( stop )
        put(R_STOP, at_call, 0, 0, xh_text_hash(stop));
    put(R_END, 0, 0, 0, 0);
}

static void on_fail(const char *what)
{
    xh_on_fail = NULL;
    snapshot(what);
}

static bool lock_held(void)
{
    return heap_lock.owner == (int)xh_cpu + 1;
}

/*
 * Every free block where the lists say, counted where the counters say,
 * each of its pages free, none in two blocks, none left beside a free
 * buddy it should have merged with.
 */
static void check_heap(void)
{
    static unsigned char seen[MAX_FRAMES];
    unsigned long total = 0, i;
    unsigned int node, zone, order;

    memset(seen, 0, sizeof(seen));
    for ( node = 0; node < MAX_NUMNODES; node++ )
    {
        unsigned long on_node = 0;

        for ( zone = 0; avail[node] && zone < XH_NR_ZONES; zone++ )
        {
            unsigned long in_zone = 0;

            for ( order = 0; order <= MAX_ORDER; order++ )
            {
                const struct page_info *pg;

                for ( pg = xh_heap(node, zone, order).next; pg; pg = pg->list.next )
                {
                    unsigned long head, buddy;

                    /* A list head poisoned by a range handed over twice, say: the stop both trees meet. */
                    if ( !in_table(pg) )
                        xh_fail(__FILE__, __LINE__, "a free list link outside the frame table");
                    head = pg - xh_frame_table, buddy = mfn_x(page_to_mfn(pg)) ^ (1UL << order);
                    if ( PFN_ORDER(pg) != order || page_to_nid(pg) != node ||
                         (zone && zone != (unsigned int)(flsl(mfn_x(page_to_mfn(pg))) ?: 1)) )
                        xh_fail(__FILE__, __LINE__, "a free block on another list than its order, node and zone");
                    for ( i = head; i < head + (1UL << order); i++ )
                    {
                        if ( i >= xh_nr_frames || seen[i]++ || !page_state_is(&xh_frame_table[i], free) )
                            xh_fail(__FILE__, __LINE__, "a free block's page not free, or in two blocks");
                    }
                    if ( order < MAX_ORDER && mfn_valid(_mfn(buddy)) && page_state_is(mfn_to_page(_mfn(buddy)), free) &&
                         PFN_ORDER(mfn_to_page(_mfn(buddy))) == order && page_to_nid(mfn_to_page(_mfn(buddy))) == node &&
                         !seq->stops && !page_offlined_list.next && !page_broken_list.next )
                        xh_fail(__FILE__, __LINE__, "a free block beside a free buddy of its order, not merged");
                    in_zone += 1UL << order;
                }
            }
            if ( in_zone != avail[node][zone] )
                xh_fail(__FILE__, __LINE__, "avail[][] is not what the lists hold");
            on_node += in_zone;
        }
#ifdef XH_NODE_AVAIL
        if ( on_node != node_avail_pages[node] )
            xh_fail(__FILE__, __LINE__, "node_avail_pages[] is not what the lists hold");
#endif
        total += on_node;
    }
    if ( total != (unsigned long)total_avail_pages )
        xh_fail(__FILE__, __LINE__, "total_avail_pages is not what the lists hold");
}

/*
 * x86's paging_init(), which runs after end_boot_allocator() and before
 * SMP bring-up (so before heap-init-smp's init_deferred_heap()): the M2P
 * goes live with every entry INVALID_M2P_ENTRY. Only the boot allocator's
 * regions (the calls at boot) are made invalid here; the frames of boot
 * modules and of hot-add keep their noise, so that a pass that leaves an
 * entry unwritten is still seen there. A sequence with a planted stop
 * keeps the M2P as it was: its two sides may stop on either side of this.
 */
static bool paged;

static void paging_init(const struct sequence *q)
{
    unsigned long f;
    unsigned int i;

    paged = true;
    if ( q->stops )
        return;
    for ( i = 0; i < q->calls && q->call[i].phase == PHASE_BOOT && !q->call[i].threaded; i++ )
        for ( f = q->call[i].s; f < q->call[i].s + q->call[i].n; f++ )
            xh_m2p[f] = INVALID_M2P_ENTRY;
}

/* Where the system is before call `i` of phase `phase`. */
static void enter(unsigned int i, unsigned int phase)
{
    if ( phase != PHASE_BOOT && !paged )
        paging_init(seq);
    machine_to_phys_mapping_valid = phase != PHASE_BOOT;
    if ( phase == PHASE_ACTIVE && system_state != SYS_STATE_active )
    {
        system_state = SYS_STATE_active;
#ifdef CONFIG_SCRUB_DEBUG
        /*
         * heap_init_late(): with bootscrub=on, scrub_heap_pages() scrubs
         * every free page with the debug pattern, then turns the poison on.
         * Only allocations check the pattern: without them, no page needs it.
         */
        if ( seq->bootscrub == BOOTSCRUB_MODE_ON )
        {
            unsigned long f;

            for ( f = 0; f < seq->frames && seq->concurrent; f++ )
                if ( page_state_is(&xh_frame_table[f], free) )
                    xh_fill_page(xh_ram + f * PAGE_SIZE, SCRUB_PATTERN);
            scrub_debug = true;
        }
#endif
    }
    /* A parallel hand-over's calls run at once: one clock for all of boot, on both sides. */
    xh_tlbflush_clock = seq->parallel && phase == PHASE_BOOT ? 100 : 100 + i;
    at_call = i;
}

#include "side_threads.h"

void XH_SIDE_FN(xh_run, XH_SIDE)(const struct sequence *q, unsigned int variant, struct record *r,
                                  unsigned long *n)
{
    static const unsigned int SCRUB[] = { BOOTSCRUB_OFF, BOOTSCRUB_IDLE, BOOTSCRUB_ON };
    unsigned int i;

#if defined(XH_HEAP_INIT) && !defined(XH_PAIR)
    opt_heap_init = VARIANT_VALUE[variant];
#else
    (void)variant;
#endif
    seq = q, rec = r, nrec = n;
    xh_on_fail = on_fail;
    xh_heap_lock_held = lock_held;
    opt_bootscrub = SCRUB[q->bootscrub];
#ifdef XH_HEAP_INIT_SMP
    /* What end_boot_allocator() works out (the tester allocates through alloc_heap_pages(), which has none). */
    dma_bitsize = q->dma_bits;
#endif
    system_state = SYS_STATE_boot;
    paged = false;
    for ( i = q->boot_threads ? boot_in_parallel(q) : 0; i < q->calls && !q->call[i].threaded; i++ )
    {
        enter(i, q->call[i].phase);
        init_heap_pages(xh_frame_table + q->call[i].s, q->call[i].n);
    }
    if ( i < q->calls )
    {
        enter(i, PHASE_ACTIVE);
        concurrently();
    }
    if ( !paged )
        paging_init(q);
    ASSERT(!spin_is_locked(&heap_lock));
    check_heap();
    xh_on_fail = NULL;
    snapshot(NULL);
}
