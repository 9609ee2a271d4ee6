// SPDX-License-Identifier: MIT
// The registry of the peers (mm/peers/peer.h): a new peer strategy is one
// file in its model's folder and one row in peer_strategies. strategies=
// (mm/strategies/registry.c) names them beside Xen's heap's.
#include "kernel/cmdline.h"
#include "kernel/lib/libc.h"
#include "mm/peers/peer.h"

extern const struct peer_strategy strategy_linux, strategy_linux_deferred, strategy_linux612,
    strategy_freebsd_lazy, strategy_freebsd_lazy0;

const struct peer_strategy *const peer_strategies[] = {
    &strategy_linux,
    &strategy_linux_deferred,
    &strategy_linux612,
    &strategy_freebsd_lazy,
    &strategy_freebsd_lazy0,
    NULL,
};

const struct peer_strategy *peer_strategy_find(const char *name, size_t len)
{
    for (unsigned i = 0; peer_strategies[i]; i++)
        if (strlen(peer_strategies[i]->name) == len && !strncmp(peer_strategies[i]->name, name, len))
            return peer_strategies[i];
    return NULL;
}

unsigned peer_layouts_wanted(void)
{
    const char *p = heap_strategies_option();
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
