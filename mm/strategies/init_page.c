// SPDX-License-Identifier: MIT
// Strategy "page": Xen before 4.17. init_heap_pages() looked up each page's
// node, made sure that node's heap existed, and gave the page to
// free_heap_pages() alone, at order 0: a lock round trip and a merge
// cascade per page.
#include "mm/heap_priv.h"

/* Xen's init_heap_pages() at RELEASE-4.16.0, for one set of costs. */
static inline __attribute__((always_inline)) void page_init_body(unsigned xc, struct heap *h,
                                                                 uint64_t mfn, uint64_t nr)
{
    bool need_scrub = heap_boot_scrub;

    if (!heap_init_prologue(h, &mfn, &nr))
        return;
    struct page_info *pg = xc_mfn_to_page(xc, mfn);
    for (uint64_t i = 0; i < nr; i++) {
        /* The node of every page, used only to meet each node's heap once. */
        if (xc_on(xc, XC_NODE_HEAP))
            xc_node_heap_check(xc, h, xc_page_to_nid(xc, pg + i));
        XC_PICK(heap_free_pages, xc)(h, pg + i, 0, need_scrub);
    }
}

XC_VARIANTS(page_init, page_init_body, (struct heap *h, uint64_t mfn, uint64_t nr), (h, mfn, nr));

static void page_init_pages(struct heap *h, uint64_t mfn, uint64_t nr)
{
    XC_DISPATCH(page_init)(h, mfn, nr);
}

const struct heap_strategy strategy_page = {
    .name = "page",
    .what = "page by page, order 0 (Xen before 4.17)",
    .init_pages = page_init_pages,
    .eager = true,
};
