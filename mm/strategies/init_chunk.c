// SPDX-License-Identifier: MIT
// Strategy "chunk": Xen 4.17 and later. init_heap_pages() cuts the range
// where the node changes, found by a per-page lookup, and _init_heap_pages()
// hands each piece to free_heap_pages() in the largest naturally aligned
// power-of-two blocks that fit.
#include "mm/heap_priv.h"

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
