// SPDX-License-Identifier: MIT
// Strategy "freebsd_lazy0": FreeBSD main on amd64 booted with the tunable
// debug.vm.lazy_page_init=0 (main's default is lazy: freebsd_lazy).
// vm_page_startup() initialises every page's 88-byte vm_page, then hands
// each run to vm_phys_enqueue_contig(), which lists chunks of rising orders
// up to alignment, 16 MiB chunks, then falling orders, with no buddy look-up
// and no merging (the model: phys.c beside this file).
#include "mm/peers/freebsd/freebsd.h"

static int freebsd_reset(struct err *e)
{
    return fb_reset(false, e);
}

static void freebsd_boot(struct peer_boot_stats *st)
{
    fb_boot(false, st);
}

const struct peer_strategy strategy_freebsd_lazy0 = {
    .name = "freebsd_lazy0",
    .what = "FreeBSD main, debug.vm.lazy_page_init=0: every vm_page at boot, runs enqueued unmerged",
    .layout = PEER_FREEBSD,
    .reset = freebsd_reset,
    .boot = freebsd_boot,
    .alloc_page = fb_alloc_page,
    .free_page = fb_free_page,
    .audit = fb_audit,
};
