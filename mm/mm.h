/* SPDX-License-Identifier: MIT */
/* Memory bring-up, from the loader's map to a frame table and a ready heap. */
#ifndef MM_MM_H
#define MM_MM_H

#include <stdint.h>

#include "kernel/bootinfo/bootinfo.h"
#include "mm/e820.h"

struct mm_summary {
    uint64_t ram_bytes;     /* type-1 RAM in the sanitised map */
    uint64_t usable_bytes;  /* of which whole pages below the supported limit */
    uint64_t ignored_bytes; /* RAM above MAX_PHYS_ADDR */
    uint64_t left_out_pages;    /* usable pages in regions the boot allocator had no room for */
    unsigned left_out_regions;
    unsigned nodes;
};

extern struct mm_summary mm;
extern struct e820_map e820;

/*
 * Sanitises bi's memory map, fills the boot allocator with usable RAM minus
 * the first MiB, the kernel image and stacks and the loader's data, and
 * builds the page tables and the frame table. Panics with a clear message
 * on a map it cannot use.
 */
void mm_init(const struct bootinfo *bi);

/*
 * Ends boot allocation: takes the audit's scratch bitmap and the page
 * arrays of peer_layouts (a bit per enum peer_layout, mm/peers/peer.h),
 * sets up the node map, gives what the boot allocator still holds to the
 * heap as the memory every end_boot_allocator() run hands over, and prints
 * the memory summary. Call once, after every boot-time allocation (page tables included).
 */
void mm_heap_takeover(unsigned peer_layouts);

/* Boot memory taken by name, early or from the boot allocator: mm/reserve.h. */

#endif
