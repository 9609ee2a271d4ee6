/* SPDX-License-Identifier: MIT */
/*
 * The firmware memory map, sanitised: sorted, without overlaps or empty
 * entries, adjacent entries of one type merged, every type other than RAM,
 * ACPI, NVS and unusable turned into reserved.
 */
#ifndef MM_E820_H
#define MM_E820_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/bootinfo/bootinfo.h"
#include "kernel/lib/errno.h"

enum {
    E820_RAM = 1,
    E820_RESERVED = 2,
    E820_ACPI = 3,          /* ACPI reclaimable */
    E820_NVS = 4,           /* ACPI non-volatile storage */
    E820_UNUSABLE = 5,      /* bad memory */
};

/*
 * Documented limit: at most E820_MAX entries go in and at most E820_MAX come
 * out, as many as the loader's raw map may hold. Real maps have tens of
 * entries; OVMF's fragmented map about a hundred.
 */
#define E820_MAX BI_MMAP_MAX

struct e820_map {
    unsigned count;
    struct mmap_entry e[E820_MAX];  /* sorted, disjoint; types from the enum above */
};

/*
 * Builds out from n raw entries. Zero-length entries are dropped, entries
 * that wrap past 2^64 are clipped to end at 2^64 - 1, and where entries
 * overlap the more restrictive type wins: unusable over NVS over reserved
 * over ACPI over RAM. Returns 0, or -E2BIG with e naming the limit when
 * there are more than E820_MAX entries in or out.
 */
int e820_sanitise(const struct mmap_entry *in, unsigned n, struct e820_map *out,
                  struct err *e);

/* "RAM", "reserved", "ACPI", "NVS", "unusable". */
const char *e820_type_name(uint32_t type);

#endif
