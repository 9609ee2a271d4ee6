// SPDX-License-Identifier: MIT
// Shell sort by gapped insertion: few compares for the sizes sorted here (up
// to tens of thousands of elements), each pass over neighbouring memory.
#include "kernel/lib/sort.h"

#include <stdint.h>

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

/* Ciura's gap sequence, extended by factors of 2.25. */
static const size_t gaps[] = { 19930, 8858, 3937, 1750, 701, 301, 132, 57, 23, 10, 4, 1 };

static void swap(uint8_t *a, uint8_t *b, size_t size)
{
    uint8_t t[32];

    /* Elements of the sizes sorted here are copied whole; larger ones in pieces. */
    for (size_t n; size; size -= n, a += n, b += n) {
        n = MIN(size, sizeof(t));
        memcpy(t, a, n);
        memcpy(a, b, n);
        memcpy(b, t, n);
    }
}

void sort(void *base, size_t n, size_t size, sort_before_fn before)
{
    uint8_t *b = base;

    for (size_t g = 0; g < ARRAY_SIZE(gaps); g++) {
        size_t gap = gaps[g];
        /* Each element moves back past the ones gap apart that it must precede. */
        for (size_t i = gap; i < n; i++)
            for (size_t j = i; j >= gap && before(b + j * size, b + (j - gap) * size); j -= gap)
                swap(b + j * size, b + (j - gap) * size, size);
    }
}
