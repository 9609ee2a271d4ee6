/* SPDX-License-Identifier: MIT */
/*
 * Usable RAM: whole pages of RAM in the sanitised map, minus what is in use,
 * and, when a map has more ranges than the boot allocator keeps, the largest
 * of them, with the rest reported.
 */
#ifndef MM_USABLE_H
#define MM_USABLE_H

#include <stdint.h>

#include "kernel/lib/errno.h"
#include "mm/bootmem.h"
#include "mm/e820.h"

#define USABLE_MAX_RESV 64

/* Usable ranges: one per RAM entry, and one more for each reservation that splits one. */
#define USABLE_MAX_RANGES (E820_MAX + USABLE_MAX_RESV)

/*
 * Ranges the boot allocator is given at most. The rest of its list stays
 * free for the splits the kernel's own allocations make: bootmem_alloc()
 * splits a region when a 2 MiB-aligned frame-table or M2P block leaves pages
 * above it, and when the first page tables (below 4 GiB) cut a region that
 * runs past 4 GiB.
 */
#define USABLE_KEEP_MAX (BOOTMEM_MAX_REGIONS - 16)

/* A byte range that is in use and must never reach the boot allocator. */
struct usable_resv {
    const char *what;
    uint64_t start, end;
};

struct usable_stats {
    uint64_t ram_bytes;         /* type-1 RAM in the map */
    uint64_t usable_bytes;      /* whole pages of it below MAX_PHYS_ADDR */
    uint64_t ignored_bytes;     /* whole pages of it at or above MAX_PHYS_ADDR */
    uint64_t zapped[USABLE_MAX_RESV];   /* pages each reservation removed */
    unsigned ranges;            /* usable ranges once the reservations are cut out */
    unsigned nleft;             /* of which left out of the boot allocator */
    uint64_t left_pages;        /* the pages in them */
    struct bootmem_region left[USABLE_MAX_RANGES];  /* the ranges left out, by address */
};

/*
 * Resets bm and works out what goes into it: every whole page of RAM in map
 * below MAX_PHYS_ADDR (bases rounded up, ends down, without wrapping), less
 * each of resv[0..nresv) rounded outward to whole pages, in that order. Of
 * the ranges that leaves, bm gets the USABLE_KEEP_MAX largest (the lower
 * addresses first among equal sizes), in address order; st->left lists the
 * others, which no allocation will ever use. Returns 0, or -E2BIG with e
 * saying so for more than USABLE_MAX_RESV reservations.
 */
int usable_ram(const struct e820_map *map, const struct usable_resv *resv, unsigned nresv,
               struct bootmem *bm, struct usable_stats *st, struct err *e);

#endif
