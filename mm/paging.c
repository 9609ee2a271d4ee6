// SPDX-License-Identifier: MIT
// Kernel page tables, built once from boot-allocator pages.
#include "mm/paging.h"

#include "kernel/console/console.h"
#include "kernel/console/printk.h"
#include "kernel/cpu.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/panic.h"
#include "mm/bootmem.h"

struct paging_info paging;
uint64_t kimage_offset;

static uint64_t pml4_pa;
static bool live;               /* our tables are in CR3 */
static uint64_t iomap_next = IOMAP_BASE;

#define ADDR_MASK 0x000ffffffffff000ull

/* Page tables are reached 1:1 before the switch and through the direct map after. */
static uint64_t *table_va(uint64_t pa)
{
    return live ? phys_to_virt(pa) : (uint64_t *)(uintptr_t)pa;
}

static uint64_t alloc_table(void)
{
    uint64_t mfn;

    /* Before the switch, only the boot identity map (first 4 GiB) reaches them. */
    uint64_t limit = live ? UINT64_MAX : PFN_DOWN(1ull << 32);
    int err = bootmem_alloc(&bootmem, 1, 1, limit, &mfn);

    /* Once the heap owns the boot allocator's pages (sealed), none may be taken. */
    if (err == -EPERM)
        panic("a page table was needed after the heap took over boot memory");
    if (err)
        panic("out of boot memory for page tables (error %d)", err);
    paging.table_pages++;
    memset(table_va(mfn << PAGE_SHIFT), 0, PAGE_SIZE);
    return mfn << PAGE_SHIFT;
}

void paging_map(uint64_t virt, uint64_t phys, uint64_t len, unsigned page_shift, uint64_t flags)
{
    uint64_t size = 1ull << page_shift;
    unsigned leaf_level = page_shift == 30 ? 3 : page_shift == 21 ? 2 : 1;

    if (!paging.nx)
        flags &= ~PTE_NX;
    if (!IS_ALIGNED(virt | phys | len, size))
        panic("paging_map: %llx -> %llx (+%llx) not aligned to %llx",
              (unsigned long long)virt, (unsigned long long)phys,
              (unsigned long long)len, (unsigned long long)size);
    for (uint64_t off = 0; off < len; off += size) {
        uint64_t va = virt + off;
        uint64_t *table = table_va(pml4_pa);
        for (unsigned level = 4; level > leaf_level; level--) {
            unsigned idx = (va >> (12 + 9 * (level - 1))) & 511;
            if (!(table[idx] & PTE_P))
                table[idx] = alloc_table() | PTE_P | PTE_W;
            else if (table[idx] & PTE_PS)
                panic("paging_map: %llx already mapped by a large page", (unsigned long long)va);
            table = table_va(table[idx] & ADDR_MASK);
        }
        unsigned idx = (va >> page_shift) & 511;
        if (table[idx] & PTE_P)
            panic("paging_map: %llx is already mapped", (unsigned long long)va);
        table[idx] = ((phys + off) & ADDR_MASK) | flags | PTE_P | (leaf_level > 1 ? PTE_PS : 0);
    }
    /* Only not-present entries became present: x86 caches no not-present
     * translations, so no TLB flush is needed. */
}

extern const char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern const char __data_start[], __bss_end[];

static void map_kernel(const char *start, const char *end, uint64_t flags)
{
    uint64_t va = (uint64_t)start;
    uint64_t len = ALIGN_UP((uint64_t)end, PAGE_SIZE) - va;

    paging_map(va, kimage_pa(va), len, 12, flags);
}

/*
 * Maps [phys, phys + len) at the next free device-mapping address with 4 KiB
 * pages, writable, non-executable, plus cache flags; NULL when the range
 * does not fit in what is left of the area.
 */
static void *iomap(uint64_t phys, uint64_t len, uint64_t cache)
{
    uint64_t base = ALIGN_DOWN(phys, PAGE_SIZE);
    uint64_t size = ALIGN_UP(phys + len, PAGE_SIZE) - base;

    if (iomap_next + size > IOMAP_BASE + IOMAP_SIZE)
        return NULL;
    paging_map(iomap_next, base, size, 12, PTE_W | PTE_NX | cache);
    void *va = (void *)(uintptr_t)(iomap_next + (phys - base));
    iomap_next += size;
    return va;
}

void paging_init(uint64_t top)
{
    paging.nx = cpu.nx;
    paging.directmap_page = cpu.gbpages ? (1ull << 30) : (1ull << 21);
    paging.directmap_bytes = ALIGN_UP(top, paging.directmap_page);
    pml4_pa = alloc_table();

    paging_map(DIRECTMAP_BASE, 0, paging.directmap_bytes,
               cpu.gbpages ? 30 : 21, PTE_W | PTE_NX);
    map_kernel(__text_start, __text_end, 0);
    map_kernel(__rodata_start, __rodata_end, PTE_NX);
    map_kernel(__data_start, __bss_end, PTE_W | PTE_NX);

    /* The screen moves from the identity map to the direct map, or to a
     * device mapping when it lies above the direct map. */
    uint64_t fb_bytes, fb = screen_phys(&fb_bytes);
    void *fb_va = NULL;
    if (fb_bytes)
        fb_va = fb + fb_bytes <= paging.directmap_bytes ? phys_to_virt(fb)
                                                        : iomap(fb, fb_bytes, PTE_PCD);

    write_cr3(pml4_pa);
    live = true;
    if (fb_bytes)
        screen_relocate(fb_va);     /* NULL: no room to map it; the screen goes dark */
}

uint64_t paging_lookup(uint64_t va, uint64_t *flags)
{
    uint64_t *table = table_va(read_cr3() & ADDR_MASK);
    uint64_t w = PTE_W, nx = 0;

    for (unsigned level = 4; level >= 1; level--) {
        unsigned shift = 12 + 9 * (level - 1);
        uint64_t e = table[(va >> shift) & 511];
        if (!(e & PTE_P))
            return UINT64_MAX;
        w &= e;
        nx |= e & PTE_NX;
        if (level == 1 || (e & PTE_PS)) {
            *flags = (e & ~(PTE_W | PTE_NX | ADDR_MASK)) | w | nx;
            uint64_t base = e & ADDR_MASK & ~((1ull << shift) - 1);
            return base + (va & ((1ull << shift) - 1));
        }
        table = table_va(e & ADDR_MASK);
    }
    return UINT64_MAX;
}

void *phys_map(uint64_t phys, uint64_t len, bool mmio)
{
    if (phys + len < phys)
        return NULL;
    if (!live)
        return phys + len <= (1ull << 32) ? (void *)(uintptr_t)phys : NULL;
    if (!mmio && phys + len <= paging.directmap_bytes)
        return phys_to_virt(phys);
    return iomap(phys, len, mmio ? PTE_PCD | PTE_PWT : 0);
}
