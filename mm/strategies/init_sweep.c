// SPDX-License-Identifier: MIT
// Strategy "sweep": the optimisation Xen's 4.17 cover letter named and never
// merged. One pass writes each page's page_info (and M2P entry) once, and
// no buddy is looked at where no merge is possible.
//
// Why a block rarely needs a merge attempt: the blocks are the greedy
// decomposition of _init_heap_pages(), so below MAX_ORDER a block's buddy
// always reaches outside the block's own region (if it lay inside, the
// greedy step would have taken the pair as one larger block). A buddy can
// therefore only be free if the pages beyond the region are handed over too,
// which happens only where regions touch. Every other block goes straight
// onto its free list.
#include "mm/heap_priv.h"

#include "kernel/cmdline.h"
#include "mm/heap_par.h"

/*
 * How the marking loop writes. hosted/stores.c measured the kinds on this
 * project's machines (docs/results-hosted.md, "The sweep strategy's stores"):
 *
 *  "rep" (the default): a memset. Every tail entry is filled with one
 *  repeated qword, the tail's count_info itself. The fields a free tail
 *  needs then read right: count_info holds the state, and its low 48 bits,
 *  which also form the owner (v), need_tlbflush and scrub_state bytes of
 *  the entry, are zero. The fields only a block head uses (list links,
 *  first_dirty, the TLB stamp) hold don't-care values, as tails in Xen hold
 *  stale ones; a tail that becomes a head gets them written then. So the
 *  loop is rep stosq over the entries and over the M2P entries: the very
 *  stores of the memset floor.
 *  "plain": four 8-byte stores of a tidy entry (NULL links, no dirty index).
 *  "nt": the same with non-temporal MOVNTI stores, fenced per block.
 */
enum sweep_stores { SWEEP_STORES_REP, SWEEP_STORES_PLAIN, SWEEP_STORES_NT, SWEEP_STORES_AUTO };
static const char *const sweep_stores_names[] = {
    [SWEEP_STORES_REP] = "rep",
    [SWEEP_STORES_PLAIN] = "plain",
    [SWEEP_STORES_NT] = "nt",
    [SWEEP_STORES_AUTO] = "auto",
};
static enum sweep_stores opt_sweep_stores = SWEEP_STORES_AUTO;
CMDLINE_CHOICE(sweep_stores, opt_sweep_stores, sweep_stores_names,
               "stores of the sweep strategy's marking loop: auto (default: the faster of rep and nt "
               "here), rep, plain or nt");
/* The strategy was `once` until issue 47: a command line written then fails, naming the new key. */
CMDLINE_RENAMED(once_stores, sweep_stores);

_Static_assert(((PGC_state_free | PGC_need_scrub) & ((1ull << 48) - 1)) == 0,
               "a free tail's count_info must leave the owner and need_tlbflush bytes zero");

static inline void store_nt(uint64_t *p, uint64_t v)
{
    __asm__ volatile("movnti %1, %0" : "=m"(*p) : "r"(v));
}

static inline void rep_stosq(uint64_t *p, uint64_t v, uint64_t n)
{
    __asm__ volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(v) : "memory");
}

/*
 * Writes the free-tail entries of pages [s, e), a whole same-node range with
 * the heads among them (heap_init_blocks() writes the heads afterwards), and
 * their invalid M2P entries: with the stores of the chosen kind, or, under
 * Xen's boot-time M2P model, with one call for the range where Xen makes one
 * per page.
 */
static void mark_tails(uint64_t s, uint64_t e, uint64_t count_info)
{
    const unsigned xc = xc_load();
    const uint64_t w0 = ~0ull, w2 = INVALID_DIRTY_IDX, w3 = 0;
    const bool store_m2p = !xc_on(xc, XC_M2P);
    uint64_t *ft = (uint64_t *)xc_mfn_to_page(xc, s);
    uint64_t *m = &m2p[s];

    if (!store_m2p) {
        xc_count(XC_M2P);
        xc_m2p_invalidate_range_call(s, e);
    }
    switch (opt_sweep_stores) {
    case SWEEP_STORES_AUTO:         /* not chosen (no benchmark ran sweep_prepare()): rep */
    case SWEEP_STORES_REP:
        rep_stosq(ft, count_info, (e - s) * (sizeof(struct page_info) / 8));
        if (store_m2p)
            rep_stosq(m, INVALID_M2P_ENTRY, e - s);
        break;
    case SWEEP_STORES_PLAIN:
        for (uint64_t i = 0; i < e - s; i++, ft += 4) {
            ft[0] = w0;
            ft[1] = count_info;
            ft[2] = w2;
            ft[3] = w3;
            if (store_m2p)
                m[i] = INVALID_M2P_ENTRY;
        }
        break;
    case SWEEP_STORES_NT:
        for (uint64_t i = 0; i < e - s; i++, ft += 4) {
            store_nt(ft + 0, w0);
            store_nt(ft + 1, count_info);
            store_nt(ft + 2, w2);
            store_nt(ft + 3, w3);
            if (store_m2p)
                store_nt(m + i, INVALID_M2P_ENTRY);
        }
        /* Weakly ordered stores: drain them before the block is listed. */
        __asm__ volatile("sfence" ::: "memory");
        break;
    }
}

static void sweep_init_pages(struct heap *h, uint64_t mfn, uint64_t nr)
{
    heap_init_blocks(h, mfn, nr, mark_tails);
}

/* Writes back and drops from every cache the lines of n bytes at p (a no-op's cost under TCG). */
static void flush_lines(const void *p, uint64_t n)
{
    for (const char *c = p; c < (const char *)p + n; c += 64)
        __asm__ volatile("clflush %0" : "+m"(*(volatile char *)c));
    __asm__ volatile("mfence" ::: "memory");
}

/*
 * Ticks to fill pages [s, e) with stores of kind k, from a reset and their
 * lines out of the caches, as every timed window opens (bench/measure.h):
 * the best of two.
 */
static uint64_t time_stores(enum sweep_stores k, uint64_t s, uint64_t e)
{
    uint64_t best = UINT64_MAX;

    opt_sweep_stores = k;
    for (int i = 0; i < 2; i++) {
        heap_reset();
        flush_lines(mfn_to_page(s), (e - s) * sizeof(struct page_info));
        flush_lines(&m2p[s], (e - s) * sizeof(uint64_t));
        uint64_t t0 = heap_par_platform_now();
        mark_tails(s, e, PGC_state_free);
        uint64_t t = heap_par_platform_now() - t0;
        best = MIN(best, t);
    }
    return best;
}

/*
 * sweep_stores=auto: the faster of rep and nt on this CPU, chosen as a kernel
 * chooses its memset at boot, before any timed run. Which is faster is the
 * CPU's: string stores ran 1.05-1.23x faster than non-temporal ones on the
 * EPYC of docs/results-hosted.md, and non-temporal ones twice as fast as
 * string stores on the Xeon of docs/hosted-speeds.md, where the floor has
 * an nt way too. Each kind fills the entries of the largest handed-over
 * region (at most 2^21 pages) twice from a reset.
 */
static bool sweep_prepare(struct heap_choice *c)
{
    uint64_t s = 0, e = 0;

    if (opt_sweep_stores != SWEEP_STORES_AUTO)
        return false;
    for (unsigned i = 0; i < heap_regions.nr; i++)
        if (heap_regions.r[i].e - heap_regions.r[i].s > e - s)
            s = heap_regions.r[i].s, e = heap_regions.r[i].e;
    e = MIN(e, s + (1ull << 21));
    c->option = "sweep_stores";
    c->kinds[0] = sweep_stores_names[SWEEP_STORES_REP];
    c->kinds[1] = sweep_stores_names[SWEEP_STORES_NT];
    c->ticks[0] = time_stores(SWEEP_STORES_REP, s, e);
    c->ticks[1] = time_stores(SWEEP_STORES_NT, s, e);
    c->pages = e - s;
    opt_sweep_stores = c->ticks[1] < c->ticks[0] ? SWEEP_STORES_NT : SWEEP_STORES_REP;
    c->chosen = sweep_stores_names[opt_sweep_stores];
    heap_reset();
    return true;
}

const struct heap_strategy strategy_sweep = {
    .name = "sweep",
    .what = "one pass, each page_info written once, merges only at region edges",
    .init_pages = sweep_init_pages,
    .prepare = sweep_prepare,
    .eager = true,
};
