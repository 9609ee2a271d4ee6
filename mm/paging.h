/* SPDX-License-Identifier: MIT */
/* Kernel page tables: the direct map of RAM, the W^X kernel image, MMIO maps. */
#ifndef MM_PAGING_H
#define MM_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/layout.h"

struct paging_info {
    uint64_t directmap_bytes;       /* [0, this) is mapped at DIRECTMAP_BASE */
    uint64_t directmap_page;        /* 1 GiB or 2 MiB */
    uint64_t table_pages;           /* page-table pages taken from the boot allocator */
    bool nx;
};

extern struct paging_info paging;

/*
 * Builds the kernel's page tables from boot-allocator pages below 4 GiB:
 * the direct map of [0, top) with 1 GiB pages when the CPU has them, else
 * 2 MiB pages, non-executable; the kernel image with 4 KiB pages, text
 * read-only and executable, rodata read-only, data and bss non-executable.
 * Then switches to them; the boot identity map is gone afterwards.
 * Panics when the boot allocator runs dry.
 */
void paging_init(uint64_t top);

/*
 * Maps [phys, phys + len) at virt with pages of 1 << page_shift bytes
 * (12, 21 or 30). All three must be aligned to the page size. flags are
 * PTE_* bits. Page-table pages come from the boot allocator; panics when it
 * runs dry.
 */
void paging_map(uint64_t virt, uint64_t phys, uint64_t len, unsigned page_shift, uint64_t flags);

#define PTE_P   (1ull << 0)
#define PTE_W   (1ull << 1)
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)
#define PTE_PS  (1ull << 7)
#define PTE_G   (1ull << 8)
#define PTE_NX  (1ull << 63)

/*
 * Walks the live page tables for va. Returns its physical address and sets
 * *flags to the leaf entry's flags with PTE_W and PTE_NX resolved over every
 * level (W only if all levels allow it, NX if any level sets it); returns
 * UINT64_MAX when va is not mapped.
 */
uint64_t paging_lookup(uint64_t va, uint64_t *flags);

/* Kernel virtual address of physical address pa through the direct map. */
static inline void *phys_to_virt(uint64_t pa)
{
    return (void *)(uintptr_t)(DIRECTMAP_BASE + pa);
}

/*
 * A pointer through which the kernel can access len bytes of physical memory
 * at phys: RAM and firmware tables through the direct map, device registers
 * (mmio = true) through an uncached mapping. Before paging_init() only the
 * boot identity map (below 4 GiB) exists. Returns NULL when the range
 * cannot be mapped. Mappings live until the kernel ends.
 */
void *phys_map(uint64_t phys, uint64_t len, bool mmio);

#endif
