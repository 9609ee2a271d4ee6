// SPDX-License-Identifier: MIT
// The strategy registries: a new strategy is one file and one row here,
// Xen's heap's in heap_strategies, the peers' (mm/peer.h) in peer_strategies.
// strategies= chooses among both.
#include "kernel/cmdline.h"
#include "kernel/lib/libc.h"
#include "mm/heap.h"
#include "mm/peer.h"

extern const struct heap_strategy strategy_page, strategy_chunk, strategy_chunk_72b02bc, strategy_once,
    strategy_lazy;
extern const struct peer_strategy strategy_linux, strategy_linux_deferred, strategy_freebsd,
    strategy_freebsd_lazy;

const struct heap_strategy *const heap_strategies[] = {
    &strategy_page,
    &strategy_chunk,
    &strategy_chunk_72b02bc,
    &strategy_once,
    &strategy_lazy,
    NULL,
};

const struct peer_strategy *const peer_strategies[] = {
    &strategy_linux,
    &strategy_linux_deferred,
    &strategy_freebsd,
    &strategy_freebsd_lazy,
    NULL,
};

static char opt_strategies[128];
CMDLINE_OPT(strategies, .key = "strategies", .type = OPT_STR, .dst = opt_strategies,
            .size = sizeof(opt_strategies),
            .help = "comma-separated strategies to run, in this order (default: all)");

const char *heap_strategies_option(void)
{
    return opt_strategies;
}

const struct peer_strategy *peer_strategy_find(const char *name, size_t len)
{
    for (unsigned i = 0; peer_strategies[i]; i++)
        if (strlen(peer_strategies[i]->name) == len && !strncmp(peer_strategies[i]->name, name, len))
            return peer_strategies[i];
    return NULL;
}

unsigned peer_layouts_wanted(void)
{
    const char *p = opt_strategies;
    unsigned want = 0;

    if (!*p) {
        for (unsigned i = 0; peer_strategies[i]; i++)
            want |= 1u << peer_strategies[i]->layout;
        return want;
    }
    while (*p) {
        const char *item = p;
        size_t len = cmdline_list_item(&p);
        const struct peer_strategy *s = peer_strategy_find(item, len);
        if (s)
            want |= 1u << s->layout;
    }
    return want;
}
