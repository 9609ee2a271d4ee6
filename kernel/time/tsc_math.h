/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of TSC calibration, free of port I/O so the host tests can
 * drive it: rates from tick counts, the ticks-to-ns scale, and the median,
 * spread and consensus across windows.
 */
#ifndef KERNEL_TIME_TSC_MATH_H
#define KERNEL_TIME_TSC_MATH_H

#include <stdbool.h>
#include <stdint.h>

#define FS_PER_S        1000000000000000ull
#define NS_PER_S        1000000000ull

/* A TSC figure outside [1 MHz, 100 GHz] is a broken clock, not a fast CPU. */
#define TSC_HZ_MIN      1000000ull
#define TSC_HZ_MAX      100000000000ull

/* floor(a * b / c) without overflow; UINT64_MAX when c is 0 or it does not fit. */
uint64_t tsc_muldiv(uint64_t a, uint64_t b, uint64_t c);

/*
 * The TSC rate that tsc_ticks over ref_ticks of a reference clock running at
 * ref_num / ref_den Hz implies, in Hz, rounded to nearest. Returns 0 when
 * ref_ticks or ref_den is 0 or the result does not fit.
 */
uint64_t tsc_hz_measured(uint64_t tsc_ticks, uint64_t ref_ticks, uint64_t ref_num,
                         uint64_t ref_den);

/* (hz - ref_hz) / ref_hz in parts per million, rounded to nearest; 0 if ref_hz is 0. */
int64_t tsc_ppm(uint64_t hz, uint64_t ref_hz);

/* ---- ticks to nanoseconds ----------------------------------------------- */

/* ns = (ticks * mult) >> shift, the product taken in 128 bits. */
struct tsc_scale {
    uint64_t hz;        /* 0: no scale */
    uint64_t mult;
    unsigned shift;
};

/* Fills s for a TSC of hz Hz; returns false (and a zero scale) when hz is 0. */
bool tsc_scale_init(struct tsc_scale *s, uint64_t hz);

/*
 * ticks in ns: never below the exact value, and less than 1 ns above it for
 * any interval under 2^63 ns; UINT64_MAX when the result does not fit in 64
 * bits or s is a zero scale. See tsc_math.c for the proof.
 */
uint64_t tsc_scale_ns(const struct tsc_scale *s, uint64_t ticks);

/* Sorts v[0..n) ascending and returns its median (docs/records.md's rule); 0 for n = 0. */
uint64_t tsc_median(uint64_t *v, unsigned n);

/* (max - min) / median of v[0..n) in ppm, rounded to nearest; 0 for n < 2. */
uint32_t tsc_spread_ppm(const uint64_t *v, unsigned n, uint64_t median);

/*
 * Windows that passed the rule can still be off when a clock stood still
 * across an edge without any poll noticing (an emulated clock that freezes
 * and catches up). The honest ones agree to a few ppm, so the result rests
 * on the largest group lying within this band of one another.
 */
#define TSC_BAND_PPM            500u

struct tsc_consensus {
    uint64_t hz;            /* median of the group; 0 for no values */
    unsigned kept;          /* its size */
    uint32_t spread_ppm;    /* (max - min) / median within it */
};

/*
 * The largest group of v[0..n) whose members all lie within band_ppm of its
 * lowest (the lowest such group on a tie): its median, size and spread.
 * Sorts v.
 */
void tsc_consensus(uint64_t *v, unsigned n, uint32_t band_ppm, struct tsc_consensus *out);

#endif
