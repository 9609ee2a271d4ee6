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

/*
 * With heap-init-smp (XH_HEAP_INIT_SMP), a variant of XH_AFTER_SMP | K
 * hands the frames over as end_boot_allocator() and then, after SMP
 * bring-up, init_deferred_heap() on K CPUs of node 0 do; xh_after_boot_ns
 * is the wall clock between the two. paging_init() runs between them on
 * x86: the M2P is live for the second (timer.c's window() made every
 * entry invalid first).
 */
#define XH_AFTER_SMP 0x100
extern uint64_t xh_after_boot_ns;
uint64_t xh_wall_ns(void);

static unsigned long after_smp(struct page_info *pg, unsigned long nr, unsigned int cpus)
{
#ifdef XH_HEAP_INIT_SMP
    xh_smp_up(cpus, 1);
    hand_over_boot_region(mfn_x(page_to_mfn(pg)), mfn_x(page_to_mfn(pg + nr - 1)) + 1);
    xh_after_boot_ns = xh_wall_ns();
    machine_to_phys_mapping_valid = true;
    xh_smp_cpus = cpus;
    init_deferred_heap();
    xh_smp_done();
    xh_smp_cpus = 0;
    machine_to_phys_mapping_valid = false;
    return total_avail_pages;
#else
    (void)pg, (void)nr, (void)cpus;
    xh_fail(__FILE__, __LINE__, "a hand-over after SMP bring-up of a tree without heap-init-smp");
#endif
}

/* Hands the `nr` frames from `pg` to the heap -> total_avail_pages after. */
unsigned long XH_SIDE_FN(xh_hand_over, XH_SIDE)(struct page_info *pg, unsigned long nr, unsigned int variant)
{
    if ( variant & XH_AFTER_SMP )
    {
        opt_bootscrub = BOOTSCRUB_IDLE;
        return after_smp(pg, nr, variant & ~XH_AFTER_SMP);
    }

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
