// SPDX-License-Identifier: MIT
// Strategy "freebsd_lazy": FreeBSD main as it ships on amd64, with its lazy
// vm_page init (2023; the tunable debug.vm.lazy_page_init, on by default
// there; freebsd_lazy0 is the same with it off). At boot only each chunk's
// first page is initialised and
// every chunk goes to the lazy init pool; an allocation that takes a lazy
// chunk initialises its other pages first; an idle-priority thread then
// drains the pool, freeing every chunk with merging (vm_phys_lazy_init()).
#include "mm/peers/freebsd/freebsd.h"

static int lazy_reset(struct err *e)
{
    return fb_reset(true, e);
}

static void lazy_boot(struct peer_boot_stats *st)
{
    fb_boot(true, st);
}

const struct peer_strategy strategy_freebsd_lazy = {
    .name = "freebsd_lazy",
    .what = "FreeBSD main, lazy: chunk heads at boot, the rest on allocation or by a drain",
    .layout = PEER_FREEBSD,
    .later = "drain",
    .reset = lazy_reset,
    .boot = lazy_boot,
    .rewind = fb_lazy_rewind,
    .alloc_page = fb_alloc_page,
    .free_page = fb_free_page,
    .run_later = fb_lazy_drain,
    .audit = fb_audit,
};
