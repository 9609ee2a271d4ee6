// SPDX-License-Identifier: MIT
// Strategy "once": the optimisation Xen's 4.17 cover letter named and never
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

/*
 * How the marking loop writes. hosted/stores.c measured the kinds on this
 * project's machines (docs/results.md, "The once strategy's stores"):
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
enum once_stores { ONCE_STORES_REP, ONCE_STORES_PLAIN, ONCE_STORES_NT };
static const char *const once_stores_names[] = {
    [ONCE_STORES_REP] = "rep",
    [ONCE_STORES_PLAIN] = "plain",
    [ONCE_STORES_NT] = "nt",
};
static enum once_stores opt_once_stores = ONCE_STORES_REP;
CMDLINE_CHOICE(once_stores, opt_once_stores, once_stores_names,
               "stores of the once strategy's marking loop: rep (default), plain or nt");

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
    switch (opt_once_stores) {
    case ONCE_STORES_REP:
        rep_stosq(ft, count_info, (e - s) * (sizeof(struct page_info) / 8));
        if (store_m2p)
            rep_stosq(m, INVALID_M2P_ENTRY, e - s);
        break;
    case ONCE_STORES_PLAIN:
        for (uint64_t i = 0; i < e - s; i++, ft += 4) {
            ft[0] = w0;
            ft[1] = count_info;
            ft[2] = w2;
            ft[3] = w3;
            if (store_m2p)
                m[i] = INVALID_M2P_ENTRY;
        }
        break;
    case ONCE_STORES_NT:
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

static void once_init_pages(struct heap *h, uint64_t mfn, uint64_t nr)
{
    heap_init_blocks(h, mfn, nr, mark_tails);
}

const struct heap_strategy strategy_once = {
    .name = "once",
    .what = "one pass, each page_info written once, merges only at region edges",
    .init_pages = once_init_pages,
    .eager = true,
};
