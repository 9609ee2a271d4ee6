// SPDX-License-Identifier: MIT
// The heap's public free: what a caller can get wrong is refused here, with
// a message, before Xen's unchecked path (heap_free_pages()) runs.
#include "mm/heap_priv.h"

int heap_free(struct page_info *pg, unsigned order, bool need_scrub, struct err *e)
{
    uint64_t mfn = page_to_mfn(pg);

    if (order > MAX_ORDER)
        return err_set(e, -EINVAL, "freeing a block of order %u, over MAX_ORDER (%u)", order,
                       MAX_ORDER);
    /*
     * A pointer outside the frame table gives an MFN past max_pfn. An aligned
     * block never leaves its section, so one mfn_valid() covers it; a page
     * the heap never handed out is caught below by its state.
     */
    if (!IS_ALIGNED(mfn, 1ull << order) || !mfn_valid(mfn))
        return err_set(e, -EINVAL, "freeing MFN 0x%llx order %u, which is not an aligned block "
                       "of the frame table", (unsigned long long)mfn, order);
    /* Checked before anything changes, so a refused free leaves the heap as it was. */
    for (uint64_t i = 0; i < (1ull << order); i++)
        if (!page_state_is(&pg[i], inuse))
            return err_set(e, -EINVAL, "freeing MFN 0x%llx, which is %s (count_info 0x%llx)",
                           (unsigned long long)(mfn + i),
                           page_state_is(&pg[i], free) ? "already free" : "not in use",
                           (unsigned long long)pg[i].count_info);
    heap_default.inuse_pages -= 1ull << order;
    heap_free_pages(&heap_default, pg, order, need_scrub);
    return 0;
}
