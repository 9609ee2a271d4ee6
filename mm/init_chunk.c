// SPDX-License-Identifier: MIT
// Strategy "chunk": Xen 4.17 and later. init_heap_pages() cuts the range
// where the node changes, found by a per-page lookup, and _init_heap_pages()
// hands each piece to free_heap_pages() in the largest naturally aligned
// power-of-two blocks that fit.
#include "mm/heap_priv.h"

/* Xen's _init_heap_pages(): the nr pages at pg are on one node. */
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

/* Xen's init_heap_pages() since RELEASE-4.17.0, for one set of costs. */
static inline __attribute__((always_inline)) void chunk_init_body(unsigned xc, struct heap *h,
                                                                  uint64_t mfn, uint64_t nr)
{
    bool need_scrub = heap_boot_scrub;

    if (!heap_init_prologue(h, &mfn, &nr))
        return;
    struct page_info *pg = xc_mfn_to_page(xc, mfn);
    for (uint64_t i = 0; i < nr;) {
        unsigned nid = xc_page_to_nid(xc, pg);
        uint64_t contig = 1;
        while (contig < nr - i && xc_page_to_nid(xc, pg + contig) == nid)
            contig++;
        chunk_init_range(xc, h, pg, contig, need_scrub);
        pg += contig;
        i += contig;
    }
}

XC_VARIANTS(chunk_init, chunk_init_body, (struct heap *h, uint64_t mfn, uint64_t nr), (h, mfn, nr));

static void chunk_init_pages(struct heap *h, uint64_t mfn, uint64_t nr)
{
    XC_DISPATCH(chunk_init)(h, mfn, nr);
}

const struct heap_strategy strategy_chunk = {
    .name = "chunk",
    .what = "naturally aligned chunks (Xen 4.17)",
    .init_pages = chunk_init_pages,
    .eager = true,
};
