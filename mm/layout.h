/* SPDX-License-Identifier: MIT */
/*
 * Page size, the physical limit, and the kernel's virtual address map:
 *
 *   0xffff800000000000  direct map of physical memory (up to MAX_PHYS_ADDR)
 *   0xffffc00000000000  frame table: one struct page_info per MFN
 *   0xffffc80000000000  machine-to-phys table: one u64 per MFN
 *   0xffffd00000000000  device mappings (phys_map with mmio)
 *   0xffffd80000000000  the Linux peer's struct page array (64 bytes per PFN)
 *   0xffffe00000000000  the FreeBSD peer's vm_page array (88 bytes per PFN)
 *   0xffffffff80000000  the kernel image (linker.ld), at its link address
 *                       plus kimage_offset in physical memory
 */
#ifndef MM_LAYOUT_H
#define MM_LAYOUT_H

#include <stdint.h>

#define PAGE_SHIFT      12
#define PAGE_SIZE       (1ull << PAGE_SHIFT)

/*
 * 16 TiB: free-list links are 32-bit MFNs, as in Xen's compressed page
 * lists, so MFNs stay below 2^32. RAM above this is left out, with a warning.
 */
#define MAX_PHYS_BITS   44
#define MAX_PHYS_ADDR   (1ull << MAX_PHYS_BITS)
#define MAX_PFN_LIMIT   (MAX_PHYS_ADDR >> PAGE_SHIFT)

#ifndef BOOTHEAP_HOSTED
#define DIRECTMAP_BASE  0xffff800000000000ull
#define FRAMETABLE_BASE 0xffffc00000000000ull
#define M2P_BASE        0xffffc80000000000ull
#define IOMAP_BASE      0xffffd00000000000ull
#define IOMAP_SIZE      (1ull << 30)
#define LINUX_MEMMAP_BASE   0xffffd80000000000ull
#define FREEBSD_PAGES_BASE  0xffffe00000000000ull
#define KERNEL_VMA      0xffffffff80000000ull
#elif defined(BOOTHEAP_TSAN)
/*
 * The hosted runner built under ThreadSanitizer (build/bootheap-host-tsan):
 * the sanitiser keeps most of the address space for its shadow and leaves
 * [0x550000000000, 0x568000000000) to a program, so the map moves there,
 * 1 TiB of direct map at most: enough for the race test's small maps.
 */
#define DIRECTMAP_BASE  0x550000000000ull
#define FRAMETABLE_BASE 0x560000000000ull   /* 128 GiB */
#define M2P_BASE        0x564000000000ull   /* 32 GiB, to 0x564800000000 */
#define LINUX_MEMMAP_BASE   0x564800000000ull   /* 96 GiB: 64 bytes for 6 TiB of pages */
#define FREEBSD_PAGES_BASE  0x566000000000ull   /* 128 GiB, to the end of the program's range */
#define KERNEL_VMA      0ull
#else
/*
 * The hosted runner (hosted/) keeps the same map at fixed user-space
 * addresses, so that the heap code it runs reaches the frame table and the
 * M2P through constants, as the kernel's does. Each area is as large as
 * MAX_PHYS_ADDR allows: 16 TiB of direct map, 128 GiB of frame table.
 */
#define DIRECTMAP_BASE  0x100000000000ull   /* 16 TiB */
#define FRAMETABLE_BASE 0x200000000000ull   /* 32 TiB */
#define M2P_BASE        0x280000000000ull   /* 40 TiB */
#define LINUX_MEMMAP_BASE   0x300000000000ull   /* 48 TiB: the peers' arrays (mm/peers/peer.h) */
#define FREEBSD_PAGES_BASE  0x380000000000ull   /* 56 TiB */
#define KERNEL_VMA      0ull                /* no kernel image is mapped: kimage_pa() is unused */
#endif

/* Where the image is linked, and where PVH loads it (linker.ld, boot/consts.c). */
#define KERNEL_PHYS     0x200000ull

/*
 * Where the image runs: GRUB may load it anywhere from its 2 MiB link
 * address up to 4 GiB, on a 2 MiB boundary. kimage_offset is the physical
 * displacement from the link address (0 under PVH), set once from the boot
 * code; every physical address of the image adds it.
 */
extern uint64_t kimage_offset;

/* Physical address of a kernel-image virtual address (KERNEL_VMA + link address). */
static inline uint64_t kimage_pa(uint64_t va)
{
    return va - KERNEL_VMA + kimage_offset;
}

#define PFN_DOWN(x)     ((x) >> PAGE_SHIFT)
#define PFN_UP(x)       (((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)

#endif
