// SPDX-License-Identifier: MIT
// Strategy "linux_deferred": Linux 6.1 with CONFIG_DEFERRED_STRUCT_PAGE_INIT
// (Debian's config). At boot, every zone below a node's highest and the
// first section of the highest are initialised and freed; the rest of each
// node is initialised later by padata jobs on that node's CPUs, window by
// window, freed pageblock by pageblock (deferred.c beside this file). Linux
// 6.5 and later free a whole MAX_ORDER window as one block: linux612.
#include "mm/peers/linux/linux.h"

static void deferred_boot(struct peer_boot_stats *st)
{
    lx_boot(LX_V6_1, true, st);
}

static int deferred_later(unsigned cpus, uint64_t window[2], struct peer_later_stats *st, struct err *e)
{
    return lx_deferred_init(LX_V6_1, cpus, window, st, e);
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
    .run_later = deferred_later,
    .audit = lx_audit,
};
