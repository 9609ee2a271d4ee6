/* SPDX-License-Identifier: MIT */
/* Sorting without allocation, for the parsers and mm/, kernel and host alike. */
#ifndef KERNEL_LIB_SORT_H
#define KERNEL_LIB_SORT_H

#include <stdbool.h>
#include <stddef.h>

/* True when the element at a must come before the one at b. */
typedef bool (*sort_before_fn)(const void *a, const void *b);

/*
 * Sorts n elements of size bytes at base in place, so that no element comes
 * before one that before() puts ahead of it. A shell sort: no extra memory,
 * not stable, about n^1.3 compares for the tens of thousands of elements at
 * most that memory maps need.
 */
void sort(void *base, size_t n, size_t size, sort_before_fn before);

#endif
