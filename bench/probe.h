/* SPDX-License-Identifier: MIT */
/* The accelerator probe (probe on the command line): a short boot that times
 * what decides between KVM and TCG for this kernel, then exits. */
#ifndef BENCH_PROBE_H
#define BENCH_PROBE_H

/*
 * Returns at once unless the command line says probe. Otherwise times the
 * frame-table setup that mm_init() just did, a 64 MiB write and a few
 * thousand PIT port reads, prints one `probe` record each, and ends the run.
 * Runs before the TSC is calibrated: figures are ticks, and each record
 * carries the TSC at its printing, so the host, which time-stamps every
 * serial line, can tell the ticks' rate for itself.
 */
void probe_maybe_run(void);

#endif
