// SPDX-License-Identifier: MIT
// The strategy registry: a new strategy is one file and one row here.
#include "mm/heap.h"

extern const struct heap_strategy strategy_page, strategy_chunk, strategy_once, strategy_lazy;

const struct heap_strategy *const heap_strategies[] = {
    &strategy_page,
    &strategy_chunk,
    &strategy_once,
    &strategy_lazy,
    NULL,
};
