// SPDX-License-Identifier: MIT
// Strategy "page": Xen before 4.17. init_heap_pages() looked up each page's
// node and gave it to free_heap_pages() alone, at order 0: a lock round trip
// and a merge cascade per page.
#include "mm/heap_priv.h"

static void page_init_pages(uint64_t mfn, uint64_t nr)
{
    if (!heap_init_prologue(&mfn, &nr))
        return;
    for (uint64_t i = 0; i < nr; i++) {
        /* The per-page node lookup Xen did here; with one node it only costs. */
        unsigned nid = mfn_to_nid(mfn + i);
        (void)nid;
        heap_free_pages(mfn_to_page(mfn + i), 0, heap_boot_scrub);
    }
}

const struct heap_strategy strategy_page = {
    .name = "page",
    .what = "page by page, order 0 (Xen before 4.17)",
    .init_pages = page_init_pages,
};
