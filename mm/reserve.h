/* SPDX-License-Identifier: MIT */
/*
 * Boot memory the kernel takes for itself, by name: ranges kept out of the
 * boot allocator before it is filled, pages taken from it afterwards, and
 * the memory summary's reserved lines that count them. Below mm.c, so that
 * the code that takes boot memory (the node map, the peers' page arrays,
 * the other CPUs' stacks) need not include mm.h.
 */
#ifndef MM_RESERVE_H
#define MM_RESERVE_H

#include <stdint.h>

#include "mm/usable.h"

#define MM_RESV_MAX 16
#define MM_EARLY_RESV_MAX 4

/* One reserved line of the memory summary. */
struct mm_resv {
    const char *what;
    uint64_t bytes;         /* usable RAM this took out of the boot allocator */
};

/*
 * Keeps [start, end) (bytes) out of the boot allocator. Call before
 * mm_init(); panics past MM_EARLY_RESV_MAX reservations.
 */
void mm_reserve_early(const char *what, uint64_t start, uint64_t end);

/* The ranges mm_reserve_early() kept, in call order: sets *r, returns how many. */
unsigned mm_early_reservations(const struct usable_resv **r);

/*
 * pages of boot memory below limit_mfn (UINT64_MAX: anywhere) for what,
 * counted in the memory summary under that name; returns their direct-map
 * address. Between mm_init() and mm_heap_takeover(); panics when the boot
 * allocator runs dry.
 */
void *mm_alloc_boot(const char *what, uint64_t pages, uint64_t limit_mfn);

/*
 * Adds bytes to the memory summary's reserved line for what; lines with one
 * name are merged. Panics past MM_RESV_MAX names.
 */
void mm_count_reserved(const char *what, uint64_t bytes);

/* The reserved lines so far, in the order first counted: sets *lines, returns how many. */
unsigned mm_reserved_lines(const struct mm_resv **lines);

#endif
