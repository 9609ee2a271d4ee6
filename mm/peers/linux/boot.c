// SPDX-License-Identifier: MIT
// Linux's boot order for the model, above both of its halves: memmap init
// (memmap.c), then memblock_free_all() (memblock.c), each timed. In a file of
// its own so that memmap.c, which memblock.c reads, never calls up into it.
#include "mm/peers/linux/linux.h"

void lx_boot(enum lx_version v, bool deferred, struct peer_boot_stats *st)
{
    uint64_t t0 = heap_par_platform_now();
    lx_memmap_init(v, deferred);
    uint64_t t1 = heap_par_platform_now();
    lx_memblock_free_all(v, deferred);
    st->init_ticks = t1 - t0;
    st->free_ticks = heap_par_platform_now() - t1;
}
