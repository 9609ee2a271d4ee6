// SPDX-License-Identifier: MIT
// The benchmark's statistics in integers (the kernel has no floating point).
#include "bench/stats.h"

#define STAT_MAX 256    /* more values than any runs= allows */

static void sort(uint64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        uint64_t x = v[i];
        unsigned j = i;
        for (; j && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

uint64_t stat_median(const uint64_t *v, unsigned n)
{
    uint64_t s[STAT_MAX];

    if (n == 0 || n > STAT_MAX)
        return 0;
    for (unsigned i = 0; i < n; i++)
        s[i] = v[i];
    sort(s, n);
    if (n % 2)
        return s[n / 2];
    /* Mean of the middle two without overflow. */
    return s[n / 2 - 1] + (s[n / 2] - s[n / 2 - 1]) / 2;
}

/* Floor of the square root of a 128-bit value, by bits. */
static unsigned __int128 isqrt128(unsigned __int128 x)
{
    unsigned __int128 r = 0, bit = (unsigned __int128)1 << 126;

    while (bit > x)
        bit >>= 2;
    while (bit) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return r;
}

uint64_t stat_cv_centipct(const uint64_t *v, unsigned n)
{
    unsigned __int128 sum = 0, sq = 0;

    if (n < 2)
        return 0;
    for (unsigned i = 0; i < n; i++)
        sum += v[i];
    if (sum == 0)
        return 0;
    /*
     * Exact in integers: with d_i = n x_i - sum = n (x_i - mean),
     * var = sum(d_i^2) / (n^2 (n - 1)), and so
     * cv = sqrt(var) / (sum / n) = sqrt(sum(d_i^2) / (n - 1)) / sum.
     */
    for (unsigned i = 0; i < n; i++) {
        __int128 d = (__int128)((unsigned __int128)n * v[i]) - (__int128)sum;
        sq += (unsigned __int128)(d * d);
    }
    /*
     * cv in 1e-4 units: sqrt(sq * 10^8 / (n - 1)) / sum. Scaling before the
     * division keeps its remainder from being dropped (10 and 20 would
     * lose nothing, but 2, 4, 4, 4, 5, 5, 7, 9 would come out 42.72 %, not
     * 42.76 %); only a sum of squares too large to scale is divided first.
     */
    if (sq < ((unsigned __int128)1 << 101))
        return (uint64_t)(isqrt128(sq * 100000000u / (n - 1)) / sum);
    return (uint64_t)(isqrt128(sq / (n - 1)) * 10000u / sum);
}

/* a * scale / b, rounded down, saturated. */
static uint64_t scaled_ratio(uint64_t a, uint64_t scale, uint64_t b)
{
    unsigned __int128 q;

    if (!b)
        return 0;
    q = (unsigned __int128)a * scale / b;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

uint64_t stat_ratio_centi(uint64_t a, uint64_t b)
{
    return scaled_ratio(a, 100, b);
}

uint64_t stat_per_page_milli(uint64_t ns, uint64_t pages)
{
    return scaled_ratio(ns, 1000, pages);
}

uint64_t stat_paired_ratio_centi(const uint64_t *a, const uint64_t *b, unsigned n)
{
    uint64_t r[STAT_MAX];

    if (n == 0 || n > STAT_MAX)
        return 0;
    for (unsigned i = 0; i < n; i++)
        r[i] = stat_ratio_centi(a[i], b[i]);
    return stat_median(r, n);
}
