// SPDX-License-Identifier: MIT
// Strategy "linux_deferred": Linux 6.1 with CONFIG_DEFERRED_STRUCT_PAGE_INIT
// (Debian's config). At boot, every zone below a node's highest and the
// first section of the highest are initialised and freed; the rest of each
// node is initialised later by padata jobs on that node's CPUs, window by
// window, freed pageblock by pageblock (deferred.c beside this file). Linux
// 6.5 and later free a whole MAX_ORDER window as one block; this is 6.1.
#include "mm/peers/linux/linux.h"

static void deferred_boot(struct peer_boot_stats *st)
{
    lx_boot(true, st);
}

const struct peer_strategy strategy_linux_deferred = {
    .name = "linux_deferred",
    .what = "Linux 6.1, deferred init: a section per node at boot, the rest on the node's CPUs",
    .layout = PEER_LINUX,
    .later = "deferred",
    .reset = lx_reset,
    .boot = deferred_boot,
    .alloc_page = lx_alloc_page,
    .free_page = lx_free_page,
    .run_later = lx_deferred_init,
    .audit = lx_audit,
};
