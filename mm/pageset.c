// SPDX-License-Identifier: MIT
// The digest of a set of pages: every strategy, Xen's and the peers', marks
// its free pages in one bitmap during its audit, and this hashes the bitmap,
// so two allocators holding the same pages in different blocks agree.
#include "mm/heap.h"

/* Murmur3's 64-bit finaliser: every input bit reaches every output bit. */
static uint64_t fmix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

uint64_t pageset_digest(const uint64_t *bitmap, uint64_t nbits)
{
    uint64_t d = 0;

    /* A sum over the non-zero words, each keyed by its index: order-free and canonical. */
    for (uint64_t i = 0; i < (nbits + 63) / 64; i++) {
        uint64_t w = bitmap[i];
        if (i == nbits / 64)
            w &= (1ull << (nbits % 64)) - 1;
        if (w)
            d += fmix(fmix(i + 1) ^ w);
    }
    return d;
}
