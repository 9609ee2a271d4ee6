// SPDX-License-Identifier: MIT
// Heapsort over a binary max-heap: "max" is the element that comes last.
#include "kernel/sort.h"

#include <stdint.h>

static void swap(uint8_t *a, uint8_t *b, size_t size)
{
    while (size--) {
        uint8_t t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

/* Moves element i down until neither child comes after it: the heap property. */
static void sift_down(uint8_t *base, size_t i, size_t n, size_t size, sort_before_fn before)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && before(base + c * size, base + (c + 1) * size))
            c++;
        if (!before(base + i * size, base + c * size))
            return;
        swap(base + i * size, base + c * size, size);
        i = c;
    }
}

void sort(void *base, size_t n, size_t size, sort_before_fn before)
{
    uint8_t *b = base;

    for (size_t i = n / 2; i-- > 0;)
        sift_down(b, i, n, size, before);
    /* The root is the last element of what is left: move it to the end. */
    for (size_t end = n; end-- > 1;) {
        swap(b, b + end * size, size);
        sift_down(b, 0, end, size, before);
    }
}
