/* SPDX-License-Identifier: MIT */
/* Progress lines for long phases: the host kills a guest whose serial output
 * stops, so a phase that can run for seconds says how far it got. */
#ifndef KERNEL_CONSOLE_PROGRESS_H
#define KERNEL_CONSOLE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/cpu.h"

/*
 * TSC ticks between two progress lines: about 2 s at 2 GHz. Raw ticks, as
 * the long phases may run before calibration; any TSC rate from 1 to 5 GHz
 * keeps the lines between one and five seconds apart.
 */
#define PROGRESS_TICKS (1ull << 32)

struct progress {
    uint64_t last;          /* TSC at the start or at the last line */
};

static inline void progress_start(struct progress *p)
{
    p->last = rdtsc();
}

/* True, at most once per PROGRESS_TICKS, when a progress line is due. */
static inline bool progress_due(struct progress *p)
{
    uint64_t now = rdtsc();

    if (now - p->last < PROGRESS_TICKS)
        return false;
    p->last = now;
    return true;
}

#endif
