/* SPDX-License-Identifier: MIT */
/*
 * One tree's side of the timer (timer.c): its page_alloc.c, cut at build
 * time (XH_EXTRACT), handing one range over as at boot with boot
 * scrubbing pending. XH_SIDE names the entry point, so that several trees
 * (stock, each patch of a series on its own, the whole series) are timed
 * by one program; where the tree has heap-init=, `variant` picks it.
 */
#include "xen_stand.h"
#include XH_ARCH_M2P

#define XH_SIDE_FN_(name, n) name##_##n
#define XH_SIDE_FN(name, n) XH_SIDE_FN_(name, n)

#include XH_EXTRACT

/* Hands the `nr` frames from `pg` to the heap -> total_avail_pages after. */
unsigned long XH_SIDE_FN(xh_hand_over, XH_SIDE)(struct page_info *pg, unsigned long nr, unsigned int variant)
{
#ifdef XH_HEAP_INIT
    static const enum heap_init VALUE[] = {
        HEAP_INIT_PAGE, HEAP_INIT_CHUNK_72B02BC, HEAP_INIT_CHUNK, HEAP_INIT_SWEEP,
    };

    opt_heap_init = VALUE[variant];
#else
    (void)variant;
#endif
    opt_bootscrub = BOOTSCRUB_IDLE;
    init_heap_pages(pg, nr);
    return total_avail_pages;
}
