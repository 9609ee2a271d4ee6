// SPDX-License-Identifier: MIT
// Strategy "linux": Linux 6.1 x86-64 without deferred struct page init
// (shown beside the real kernel, which has it, for what defer_init() costs).
// memmap_init() writes every handed-over page's 64-byte struct page and
// marks each pageblock movable; memblock_free_all() then frees each range in
// the largest naturally aligned blocks up to order 10, each block through
// __free_pages_core() and __free_one_page() under the zone lock (the model:
// memmap.c and buddy.c beside this file).
#include "mm/peers/linux/linux.h"

static void linux_boot(struct peer_boot_stats *st)
{
    lx_boot(LX_V6_1, false, st);
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
