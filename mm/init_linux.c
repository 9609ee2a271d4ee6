// SPDX-License-Identifier: MIT
// Strategy "linux": Linux 6.1 x86-64 without deferred struct page init.
// memmap_init() writes every handed-over page's 64-byte struct page and
// marks each pageblock movable; memblock_free_all() then frees each range in
// the largest naturally aligned blocks up to order 10, each block through
// __free_pages_core() and __free_one_page() under the zone lock (the model:
// mm/linux/).
#include "mm/linux/linux.h"

static void linux_boot(struct peer_boot_stats *st)
{
    uint64_t t0 = heap_par_platform_now();
    lx_memmap_init(false);
    uint64_t t1 = heap_par_platform_now();
    lx_memblock_free_all(false);
    st->init_ticks = t1 - t0;
    st->free_ticks = heap_par_platform_now() - t1;
}

const struct peer_strategy strategy_linux = {
    .name = "linux",
    .what = "Linux 6.1: memmap init, then memblock_free_all() in blocks up to order 10",
    .layout = PEER_LINUX,
    .reset = lx_reset,
    .boot = linux_boot,
    .alloc_page = lx_alloc_page,
    .free_page = lx_free_page,
    .audit = lx_audit,
};
