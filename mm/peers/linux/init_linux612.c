// SPDX-License-Identifier: MIT
// Strategy "linux612": Linux 6.12 as Debian 13 ships it, with
// CONFIG_DEFERRED_STRUCT_PAGE_INIT. Where its hand-over differs from 6.1's
// (memmap.c, buddy.c, deferred.c beside this file): memmap init in
// mm/mm_init.c with the struct page init inline (__meminit is empty with
// MEMORY_HOTPLUG); defer_init()'s tests reordered; free_one_page() splits a
// block above pageblock order into pageblocks (split_large_buddy(), 6.10);
// free_pages_prepare() checks no tail page unless asked; and the deferred
// init frees each whole MAX_ORDER window as one block (6.5), without the
// per-pageblock pfn_valid().
#include "mm/peers/linux/linux.h"

static void boot612(struct peer_boot_stats *st)
{
    lx_boot(LX_V6_12, true, st);
}

static int later612(unsigned cpus, uint64_t window[2], struct peer_later_stats *st, struct err *e)
{
    return lx_deferred_init(LX_V6_12, cpus, window, st, e);
}

const struct peer_strategy strategy_linux612 = {
    .name = "linux612",
    .what = "Linux 6.12, deferred init: a section per node at boot, whole windows on the node's CPUs",
    .layout = PEER_LINUX,
    .later = "deferred",
    .reset = lx_reset,
    .boot = boot612,
    .alloc_page = lx_alloc_page,
    .free_page = lx_free_page,
    .run_later = later612,
    .audit = lx_audit,
};
