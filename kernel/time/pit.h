/* SPDX-License-Identifier: MIT */
/* The 8254 PIT's channel 2 as a stopwatch for the TSC (kernel/time/pit.c). */
#ifndef KERNEL_TIME_PIT_H
#define KERNEL_TIME_PIT_H

#include <stdint.h>

#include "kernel/time/window.h"

/*
 * The TSC ticks one poll of OUT2 takes on this machine: a read of port 0x61
 * and a TSC read, the median of 15 back to back. A port read that exits to
 * a hypervisor makes this 10 us or more.
 */
uint64_t pit_poll_ticks(void);

/*
 * Runs PIT channel 2 once in mode 0 for latch input clocks (1..65535) and
 * fills w with what the poll of OUT2 saw, bracketed by TSC reads. Gives up
 * after timeout_ticks of TSC (w->fired false). Leaves the speaker off.
 */
void pit_oneshot(uint32_t latch, uint64_t timeout_ticks, struct tsc_window *w);

#endif
