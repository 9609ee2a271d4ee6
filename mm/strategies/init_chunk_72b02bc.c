// SPDX-License-Identifier: MIT
// Strategy "chunk-72b02bc": Xen's chunked init as its cover letter timed it,
// at commit 72b02bc ("xen/heap: pass order to free_heap_pages() in heap
// init"), before bd0bb8a0 ("page-alloc: fix initialization of cross-node
// regions") gave RELEASE-4.17.0 the node scan that "chunk" models.
//
// At 72b02bc the scan in init_heap_pages() compared the node of the range's
// first page on every step, phys_to_nid(page_to_maddr(pg)), never that of
// pg + contig_pages. phys_to_nid() is pure and the loop stores nothing, so
// the compiler may take the lookup out of the loop, and the loop then ends
// where the range ends: one lookup per range, no per-page work. That is the
// code modelled here, and the reason the cover letter's "after" figures are
// below what the released 4.17.0 costs.
#include "mm/heap_priv.h"

/* Xen's init_heap_pages() at 72b02bc, for one set of costs. */
static inline __attribute__((always_inline)) void chunk_72b02bc_body(unsigned xc, struct heap *h,
                                                                     uint64_t mfn, uint64_t nr)
{
    bool need_scrub = heap_boot_scrub;
    struct node_range r;

    if (!heap_init_prologue(h, &mfn, &nr))
        return;
    struct page_info *pg = xc_mfn_to_page(xc, mfn);
    for (uint64_t i = 0; i < nr;) {
        /* The scan: one lookup, which the hoisted compare shares, and no cut. */
        (void)xc_page_to_nid(xc, pg);
        uint64_t contig = nr - i;
        /*
         * Not 72b02bc: where nodes change inside the range, the real code
         * handed the whole of it to _init_heap_pages(), building blocks
         * across nodes (the bug bd0bb8a0 fixed). Every strategy here must
         * build the same heap, so this one cuts at the node map's ranges
         * instead, found without per-page lookups. With one node, as in the
         * cover letter's measurements, the range is never cut.
         */
        if (numa_ranges(mfn + i, mfn + nr, &r, 1) && r.e < mfn + nr)
            contig = r.e - (mfn + i);
        chunk_init_range(xc, h, pg, contig, need_scrub);
        pg += contig;
        i += contig;
    }
}

XC_VARIANTS(chunk_72b02bc_init, chunk_72b02bc_body, (struct heap *h, uint64_t mfn, uint64_t nr),
            (h, mfn, nr));

static void chunk_72b02bc_init_pages(struct heap *h, uint64_t mfn, uint64_t nr)
{
    XC_DISPATCH(chunk_72b02bc_init)(h, mfn, nr);
}

const struct heap_strategy strategy_chunk_72b02bc = {
    .name = "chunk-72b02bc",
    .what = "Xen 4.17 as its cover letter timed it (commit 72b02bc: the node scan hoisted, no per-page lookup)",
    .init_pages = chunk_72b02bc_init_pages,
    .eager = true,
};
