/* SPDX-License-Identifier: MIT */
/* The HPET's main counter as a reference clock (IA-PC HPET spec 1.0a). */
#ifndef KERNEL_TIME_HPET_H
#define KERNEL_TIME_HPET_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/time/clkio.h"
#include "kernel/time/refclock.h"

/*
 * Maps the HPET's registers at base through map, checks its period, and
 * starts the main counter if firmware left it stopped. On success r is
 * present and reads the counter; otherwise r->why says what was wrong.
 */
void hpet_open(struct ref *r, uint64_t base, time_map_fn map);

/*
 * Runs the main counter (on), or puts the HPET's configuration back as
 * firmware left it (off). The registers stay mapped either way.
 */
void hpet_run(const struct ref *r, bool on);

#endif
