/* SPDX-License-Identifier: MIT */
/*
 * The boot allocator, modelled on Xen's (xen/common/page_alloc.c): a sorted
 * list of free page ranges that hands out pages from the top of the highest
 * region, until end_boot_allocator() gives what is left to the heap.
 */
#ifndef MM_BOOTMEM_H
#define MM_BOOTMEM_H

#include <stdbool.h>
#include <stdint.h>

/* Documented capacity: Xen keeps one page of {start, end} pairs, 256 of them. */
#define BOOTMEM_MAX_REGIONS 256

struct bootmem_region {
    uint64_t s, e;          /* MFNs s .. e - 1 are free; s < e */
};

struct bootmem {
    unsigned nr;
    bool sealed;            /* the heap owns these pages: bootmem_alloc() refuses */
    struct bootmem_region r[BOOTMEM_MAX_REGIONS];   /* sorted, disjoint, not adjacent-merged */
};

/* The kernel's boot allocator. */
extern struct bootmem bootmem;

/* Empties bm and unseals it. */
void bootmem_reset(struct bootmem *bm);

/*
 * Seals bm once its pages belong to the heap: bootmem_alloc() returns
 * -EPERM from then on, until bootmem_reset(). The regions stay readable, as
 * what end_boot_allocator() hands over.
 */
void bootmem_seal(struct bootmem *bm);

/*
 * Adds MFNs [s, e). An empty range is ignored. Returns 0, -EINVAL if the
 * range overlaps a free one, or -ENOSPC when the list is full.
 * (Xen's bootmem_region_add.)
 */
int bootmem_add(struct bootmem *bm, uint64_t s, uint64_t e);

/*
 * Removes MFNs [s, e) from whatever regions they touch, splitting a region
 * when the range lies inside it. Returns 0, or -ENOSPC when a split needs a
 * slot and the list is full. (Xen's bootmem_region_zap.)
 */
int bootmem_zap(struct bootmem *bm, uint64_t s, uint64_t e);

/*
 * Takes nr pages aligned to align pages (a power of two) from the top of
 * the highest region that fits and whose pages lie below limit_mfn (use
 * UINT64_MAX for no limit). Stores the first MFN in *mfn. Returns 0,
 * -ENOMEM when no region fits, -ENOSPC when the remainder of a split cannot
 * be kept, -EINVAL for nr = 0 or an align that is not a power of two, or
 * -EPERM once bm is sealed. (Xen's alloc_boot_pages.)
 */
int bootmem_alloc(struct bootmem *bm, uint64_t nr, uint64_t align, uint64_t limit_mfn,
                  uint64_t *mfn);

/* Free pages in all regions. */
uint64_t bootmem_pages(const struct bootmem *bm);

/* True when every MFN of [s, e) is free. */
bool bootmem_contains(const struct bootmem *bm, uint64_t s, uint64_t e);

#endif
