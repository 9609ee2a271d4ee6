/* SPDX-License-Identifier: MIT */
/* Kernel page tables: the direct map of RAM, W^X kernel image, MMIO maps. */
#ifndef MM_PAGING_H
#define MM_PAGING_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A pointer through which the kernel can access len bytes of physical memory
 * at phys: RAM and firmware tables through the direct map, device registers
 * (mmio = true) through an uncached mapping. Returns NULL when the range
 * cannot be mapped. Mappings live until the kernel ends.
 */
void *phys_map(uint64_t phys, uint64_t len, bool mmio);

#endif
