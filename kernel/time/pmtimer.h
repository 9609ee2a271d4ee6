/* SPDX-License-Identifier: MIT */
/* The ACPI PM timer as a reference clock: 3.579545 MHz, 24 or 32 bits. */
#ifndef KERNEL_TIME_PMTIMER_H
#define KERNEL_TIME_PMTIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/time/refclock.h"

#define PMTMR_HZ        3579545u

/* Sets r up to read the PM timer at I/O port port, 32 bits wide or 24. */
void pmtmr_open(struct ref *r, uint16_t port, bool bits32);

/*
 * Checks the width the FADT declared against what the counter did over the
 * calibration's samples in r, and reads it as 24 bits where they differ,
 * with a note saying so. Run after the samples, before ref_result().
 */
void pmtmr_check_width(struct ref *r);

#endif
