/* SPDX-License-Identifier: MIT */
/*
 * Timekeeping's bring-up: the TSC calibrated once at boot against the 8254
 * PIT and cross-checked against every other clock the machine offers. The
 * TSC itself, and what the rest of the kernel asks of it, is kernel/time/tsc.h.
 */
#ifndef KERNEL_TIME_TIME_H
#define KERNEL_TIME_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/time/clkio.h"

struct bootinfo;

/*
 * Calibrates the TSC (PIT windows, CPUID 0x15/0x16, hypervisor leaf, ACPI PM
 * timer, HPET found from bi's RSDP through map), chooses a rate, and prints
 * a short report and the `calibration` record. Takes about 110 ms with the
 * default options. Never hangs on a dead clock and never panics: with no
 * usable clock at all it prints an error and leaves the TSC uncalibrated.
 */
void time_init(const struct bootinfo *bi, time_map_fn map);

#endif
