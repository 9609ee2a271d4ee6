// SPDX-License-Identifier: MIT
// The registry of the Xen-style heap's strategies: a new strategy is one
// file in this folder and one row in heap_strategies. strategies= chooses
// among these and the peers (mm/peers/registry.c), and lives here.
#include "kernel/cmdline.h"
#include "mm/heap.h"

extern const struct heap_strategy strategy_page, strategy_chunk, strategy_chunk_72b02bc, strategy_sweep,
    strategy_lazy;

const struct heap_strategy *const heap_strategies[] = {
    &strategy_page,
    &strategy_chunk,
    &strategy_chunk_72b02bc,
    &strategy_sweep,
    &strategy_lazy,
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
