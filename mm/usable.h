/* SPDX-License-Identifier: MIT */
/* Usable RAM: whole pages of RAM in the sanitised map, minus what is in use. */
#ifndef MM_USABLE_H
#define MM_USABLE_H

#include <stdint.h>

#include "kernel/errno.h"
#include "mm/bootmem.h"
#include "mm/e820.h"

#define USABLE_MAX_RESV 64

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
};

/*
 * Resets bm and fills it with every whole page of RAM in map below
 * MAX_PHYS_ADDR (bases rounded up, ends down, without wrapping), then cuts
 * out each of resv[0..nresv) rounded outward to whole pages. Returns 0;
 * -ENOSPC when the boot allocator's region list fills, or -E2BIG for more
 * than USABLE_MAX_RESV reservations, with e saying which range did not fit.
 */
int usable_ram(const struct e820_map *map, const struct usable_resv *resv, unsigned nresv,
               struct bootmem *bm, struct usable_stats *st, struct err *e);

#endif
