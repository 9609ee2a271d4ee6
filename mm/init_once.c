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
 * How the marking loop stores a 32-byte entry. "plain" is four 8-byte
 * stores; "nt" is four non-temporal MOVNTI stores, fenced once per block.
 * bench/stores.c measured both on this project's machines (README.md).
 */
static int opt_once_stores;
static const char *const store_kinds[] = { "plain", "nt", NULL };
CMDLINE_OPT(once_stores, .key = "once_stores", .type = OPT_CHOICE, .dst = &opt_once_stores,
            .choices = store_kinds, .help = "stores of the once strategy's marking loop: plain or nt");

static inline void store_nt(uint64_t *p, uint64_t v)
{
    __asm__ volatile("movnti %1, %0" : "=m"(*p) : "r"(v));
}

/* Writes the free-tail entry and the invalid M2P entry of pages [s, e). */
static void mark_tails(uint64_t s, uint64_t e, uint64_t count_info)
{
    /* list = {NULL, NULL}; first_dirty = INVALID_DIRTY_IDX; order, owner, stamp 0. */
    const uint64_t w0 = ~0ull, w2 = INVALID_DIRTY_IDX, w3 = 0;
    uint64_t *ft = (uint64_t *)mfn_to_page(s);
    uint64_t *m = &m2p[s];

    if (opt_once_stores == 1) {
        for (uint64_t i = 0; i < e - s; i++, ft += 4) {
            store_nt(ft + 0, w0);
            store_nt(ft + 1, count_info);
            store_nt(ft + 2, w2);
            store_nt(ft + 3, w3);
            store_nt(m + i, INVALID_M2P_ENTRY);
        }
        /* Weakly ordered stores: drain them before the block is listed. */
        __asm__ volatile("sfence" ::: "memory");
        return;
    }
    for (uint64_t i = 0; i < e - s; i++, ft += 4) {
        ft[0] = w0;
        ft[1] = count_info;
        ft[2] = w2;
        ft[3] = w3;
        m[i] = INVALID_M2P_ENTRY;
    }
}

static void once_init_pages(uint64_t mfn, uint64_t nr)
{
    heap_init_blocks(mfn, nr, mark_tails);
}

const struct heap_strategy strategy_once = {
    .name = "once",
    .what = "one pass, each page_info written once, merges only at region edges",
    .init_pages = once_init_pages,
};
