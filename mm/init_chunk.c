// SPDX-License-Identifier: MIT
// Strategy "chunk": Xen 4.17 and later. init_heap_pages() cuts the range
// where the node changes, found by a per-page lookup, and _init_heap_pages()
// hands each piece to free_heap_pages() in the largest naturally aligned
// power-of-two blocks that fit.
#include "mm/heap_priv.h"

/* Xen's _init_heap_pages(): [s, e) is on one node. */
static void chunk_init_range(uint64_t s, uint64_t e, bool need_scrub)
{
    while (s < e) {
        unsigned order = chunk_order(s, e);
        heap_free_pages(mfn_to_page(s), order, need_scrub);
        s += 1ull << order;
    }
}

/* Xen's init_heap_pages() since 4.17. */
static void chunk_init_pages(uint64_t mfn, uint64_t nr)
{
    if (!heap_init_prologue(&mfn, &nr))
        return;
    for (uint64_t i = 0; i < nr;) {
        unsigned nid = mfn_to_nid(mfn + i);
        uint64_t contig = 1;
        while (contig < nr - i && mfn_to_nid(mfn + i + contig) == nid)
            contig++;
        chunk_init_range(mfn + i, mfn + i + contig, heap_boot_scrub);
        i += contig;
    }
}

const struct heap_strategy strategy_chunk = {
    .name = "chunk",
    .what = "naturally aligned chunks (Xen 4.17)",
    .init_pages = chunk_init_pages,
};
