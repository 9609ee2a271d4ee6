// SPDX-License-Identifier: MIT
// Exact counts: under valgrind's callgrind, each timed window of the
// benchmark becomes one dump of its own, named after what it timed.
#include <stdio.h>
#include <valgrind/callgrind.h>

#include "bench/bench.h"

static char label[96];
static bool counting;

/*
 * Zeroes callgrind's counters as the window opens and dumps them as it
 * closes, so a dump holds the window alone: the strategy's call, the two
 * TSC reads and this request, a constant few dozen instructions. The cache
 * simulation runs on between windows, so each window starts with the cache
 * the reset before it left. Outside valgrind both are a few no-op
 * instructions, outside the TSC reads.
 */
void bench_window_open(const char *strategy, const char *phase, unsigned run, bool timed)
{
    counting = timed && RUNNING_ON_VALGRIND;
    if (!counting)
        return;
    snprintf(label, sizeof(label), "bootheap %s %s %u", strategy, phase, run);
    CALLGRIND_ZERO_STATS;
}

void bench_window_close(void)
{
    if (counting)
        CALLGRIND_DUMP_STATS_AT(label);
}
