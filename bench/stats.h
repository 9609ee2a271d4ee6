/* SPDX-License-Identifier: MIT */
/*
 * Integer statistics for the benchmark records, exactly as docs/records.md
 * defines them, so that the host tools can recompute every figure from the results.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdint.h>

/* Middle value of v[0..n-1], or for even n the mean of the middle two, rounded down. n >= 1. */
uint64_t stat_median(const uint64_t *v, unsigned n);

/*
 * Sample standard deviation over mean, in hundredths of a percent (1234 =
 * 12.34 %), rounded down; 0 for n < 2 or a zero mean. Exact for values
 * below 2^52 (52 days in ns), n up to 256.
 */
uint64_t stat_cv_centipct(const uint64_t *v, unsigned n);

/* a / b in hundredths, rounded down (1234 = 12.34); 0 when b is 0, UINT64_MAX when it does not fit. */
uint64_t stat_ratio_centi(uint64_t a, uint64_t b);

/* ns / pages in thousandths of a nanosecond, rounded down; 0 when pages is 0, UINT64_MAX when it does not fit. */
uint64_t stat_per_page_milli(uint64_t ns, uint64_t pages);

/* Median over i of a[i] / b[i] in hundredths: the paired speedup. n >= 1. */
uint64_t stat_paired_ratio_centi(const uint64_t *a, const uint64_t *b, unsigned n);

#endif
