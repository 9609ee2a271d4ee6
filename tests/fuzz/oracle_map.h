/* SPDX-License-Identifier: MIT */
/*
 * The bootinfo target's references for the memory map: the raw entries
 * classified by brute force with the documented type priority, and the
 * usable pages worked out from that classification, not from the code
 * under test.
 */
#ifndef TESTS_FUZZ_ORACLE_MAP_H
#define TESTS_FUZZ_ORACLE_MAP_H

#include "mm/e820.h"
#include "mm/usable.h"

/*
 * Holds the sanitiser's answer for raw[0..n) (rc, and map when rc is 0) to
 * the brute-force classification; aborts on any difference.
 */
void oracle_e820(const struct mmap_entry *raw, unsigned n, int rc, const struct e820_map *map);

/*
 * Holds usable_ram()'s pages, bm's regions and st's left-out ranges
 * together, to the whole pages of RAM above the first MiB and below
 * MAX_PFN_LIMIT in the raw entries oracle_e820() last classified, when it
 * found the map sanitised (rc 0); aborts on any difference.
 */
void oracle_usable(const struct bootmem *bm, const struct usable_stats *st);

#endif
