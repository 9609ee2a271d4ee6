// SPDX-License-Identifier: MIT
// Backing the frame table and the M2P table with boot memory, per 1 GiB
// section that holds usable RAM (Xen's init_frametable). Kernel only: the
// host tests bring their own storage.
#include "mm/frametable.h"

#include "kernel/console/printk.h"
#include "kernel/console/progress.h"
#include "kernel/lib/libc.h"
#include "kernel/panic.h"
#include "kernel/time/tsc.h"
#include "mm/bootmem.h"
#include "mm/paging.h"

/* Backs [virt, virt + bytes) with 2 MiB-aligned boot memory and zeroes it. */
static void back(uint64_t virt, uint64_t bytes, const char *what)
{
    uint64_t mfn;
    int err = bootmem_alloc(&bootmem, bytes >> PAGE_SHIFT, 512, UINT64_MAX, &mfn);

    if (err)
        panic("out of boot memory for the %s (%llu bytes, error %d)", what,
              (unsigned long long)bytes, err);
    paging_map(virt, mfn << PAGE_SHIFT, bytes, 21, PTE_W | PTE_NX);
    memset((void *)(uintptr_t)virt, 0, bytes);
}

void frametable_init(uint64_t pfn_limit)
{
    uint64_t t0 = tsc_now();
    struct progress prog;

    max_pfn = pfn_limit;
    memset(section_valid, 0, sizeof(section_valid));
    for (unsigned i = 0; i < bootmem.nr; i++)
        frametable_mark_valid(bootmem.r[i].s, bootmem.r[i].e);

    /* Decide first, allocate after: allocating changes the boot allocator. */
    progress_start(&prog);
    for (uint64_t sec = 0; sec << SECTION_SHIFT < max_pfn; sec++) {
        if (progress_due(&prog))
            printk("frame table: %llu of %llu GiB of physical addresses done\n", (unsigned long long)sec,
                   (unsigned long long)((max_pfn + SECTION_PAGES - 1) >> SECTION_SHIFT));
        if (!((section_valid[sec / 64] >> (sec % 64)) & 1))
            continue;
        uint64_t first = sec << SECTION_SHIFT;
        uint64_t frames = MIN(max_pfn - first, SECTION_PAGES);
        uint64_t ft = ALIGN_UP(frames * sizeof(struct page_info), MiB(2));
        uint64_t mp = ALIGN_UP(frames * sizeof(uint64_t), MiB(2));
        back(FRAMETABLE_BASE + first * sizeof(struct page_info), ft, "frame table");
        back(M2P_BASE + first * sizeof(uint64_t), mp, "M2P table");
        frametable.sections++;
        frametable.bytes += ft;
        frametable.m2p_bytes += mp;
    }
    frametable.setup_ticks = tsc_now() - t0;
}
