// SPDX-License-Identifier: MIT
// In-kernel self-tests of memory on the real map: the direct map reaches
// every usable page, nothing in use is free, the kernel is W^X, the frame
// table covers usable RAM, and every strategy builds the same, sound heap.
#include "kernel/bootinfo/bootinfo.h"
#include "kernel/console/printk.h"
#include "kernel/console/progress.h"
#include "kernel/cpu.h"
#include "kernel/lib/selftest.h"
#include "kernel/lib/string.h"
#include "mm/heap_priv.h"
#include "mm/mm.h"
#include "mm/paging.h"

extern const char __kernel_phys_start[], __kernel_phys_end[];
extern const char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern const char __data_start[], __bss_end[];

/* True when any handed-over page lies in bytes [s, e). */
static bool overlaps_free(uint64_t s, uint64_t e)
{
    for (unsigned i = 0; i < heap_regions.nr; i++)
        if (PFN_DOWN(s) < heap_regions.r[i].e && PFN_UP(e) > heap_regions.r[i].s)
            return true;
    return false;
}

SELFTEST(directmap_reaches_usable_ram)
{
    uint64_t pages = 0, bad = 0;

    for (unsigned i = 0; i < heap_regions.nr; i++) {
        for (uint64_t mfn = heap_regions.r[i].s; mfn < heap_regions.r[i].e; mfn++) {
            uint64_t flags, pa = paging_lookup((uint64_t)phys_to_virt(mfn << PAGE_SHIFT), &flags);
            bool ok = pa == mfn << PAGE_SHIFT && (flags & PTE_W) && (!paging.nx || (flags & PTE_NX));
            if (!ok && bad++ < 3)
                KT_EXPECT(t, ok, "MFN 0x%llx: direct map gives 0x%llx, flags 0x%llx",
                          (unsigned long long)mfn, (unsigned long long)pa, (unsigned long long)flags);
            /* The walk covers every page; a real read at each region's ends
             * and once per GiB proves the hardware agrees with it. Reading
             * more would make QEMU's host back every 2 MiB it touches. */
            if (mfn == heap_regions.r[i].s || mfn + 1 == heap_regions.r[i].e ||
                !(mfn & (SECTION_PAGES - 1)))
                (void)*(volatile const uint64_t *)phys_to_virt(mfn << PAGE_SHIFT);
            pages++;
        }
    }
    KT_EXPECT(t, bad == 0, "%llu of %llu usable pages unreachable", (unsigned long long)bad,
              (unsigned long long)pages);
    KT_EXPECT(t, pages == bootmem_pages(&heap_regions), "walked %llu pages", (unsigned long long)pages);
}

SELFTEST(nothing_in_use_is_free)
{
    KT_EXPECT(t, !overlaps_free(0, MiB(1)), "the first MiB is in the boot allocator");
    KT_EXPECT(t, !overlaps_free((uint64_t)__kernel_phys_start + kimage_offset,
                                (uint64_t)__kernel_phys_end + kimage_offset),
              "the kernel image is in the boot allocator");
    for (unsigned i = 0; i < bootinfo.resv_count; i++)
        KT_EXPECT(t, !overlaps_free(bootinfo.resv[i].start, bootinfo.resv[i].end),
                  "%s [0x%llx, 0x%llx) is in the boot allocator", bootinfo.resv[i].what,
                  (unsigned long long)bootinfo.resv[i].start, (unsigned long long)bootinfo.resv[i].end);
    for (unsigned i = 0; i < e820.count; i++)
        if (e820.e[i].type != E820_RAM)
            KT_EXPECT(t, !overlaps_free(e820.e[i].addr, e820.e[i].addr + e820.e[i].len),
                      "%s range at 0x%llx is in the boot allocator", e820_type_name(e820.e[i].type),
                      (unsigned long long)e820.e[i].addr);
    /* The frame table's and M2P's own backing pages are in use too. */
    for (uint64_t mfn = 0; mfn < max_pfn; mfn += SECTION_PAGES) {
        if (!mfn_valid(mfn))
            continue;
        uint64_t flags;
        uint64_t ft = paging_lookup((uint64_t)mfn_to_page(mfn), &flags);
        uint64_t mp = paging_lookup((uint64_t)&m2p[mfn], &flags);
        KT_EXPECT(t, ft != UINT64_MAX && !overlaps_free(ft, ft + PAGE_SIZE),
                  "frame table of section 0x%llx at 0x%llx", (unsigned long long)mfn, (unsigned long long)ft);
        KT_EXPECT(t, mp != UINT64_MAX && !overlaps_free(mp, mp + PAGE_SIZE),
                  "M2P of section 0x%llx at 0x%llx", (unsigned long long)mfn, (unsigned long long)mp);
    }
    uint64_t pml4 = read_cr3() & ~0xfffull;
    KT_EXPECT(t, !overlaps_free(pml4, pml4 + PAGE_SIZE), "the PML4 is in the boot allocator");
}

static void expect_range(struct ktest *t, const char *what, const char *s, const char *e,
                         bool writable, bool exec)
{
    for (uint64_t va = (uint64_t)s; va < (uint64_t)e; va += PAGE_SIZE) {
        uint64_t flags, pa = paging_lookup(va, &flags);
        bool w = flags & PTE_W, x = !(flags & PTE_NX) || !paging.nx;
        if (!KT_EXPECT(t, pa == kimage_pa(va) && w == writable && x == exec,
                       "%s page %llx: phys %llx, writable %d, executable %d", what,
                       (unsigned long long)va, (unsigned long long)pa, w, x))
            return;
    }
}

SELFTEST(kernel_is_w_xor_x)
{
    expect_range(t, "text", __text_start, __text_end, false, true);
    expect_range(t, "rodata", __rodata_start, __rodata_end, false, !paging.nx);
    expect_range(t, "data", __data_start, __bss_end, true, !paging.nx);
    /* Without NX nothing can be kept from running: only the write half was checked. */
    if (!paging.nx)
        KT_SKIP(t, "the CPU has no NX: data cannot be kept from running (text and rodata checked "
                   "read-only)");
}

SELFTEST(frame_table_covers_usable_ram)
{
    uint64_t bad = 0;

    for (unsigned i = 0; i < heap_regions.nr; i++)
        for (uint64_t mfn = heap_regions.r[i].s; mfn < heap_regions.r[i].e; mfn++) {
            const struct page_info *pg = mfn_to_page(mfn);
            bool ok = mfn_valid(mfn) && pg->count_info == 0 && pg->v.order == 0 && m2p[mfn] == 0;
            if (!ok && bad++ < 3)
                KT_EXPECT(t, ok, "MFN 0x%llx: valid %d, count_info 0x%llx, M2P 0x%llx",
                          (unsigned long long)mfn, mfn_valid(mfn),
                          (unsigned long long)pg->count_info, (unsigned long long)m2p[mfn]);
        }
    KT_EXPECT(t, bad == 0, "%llu pages without a clean frame-table entry", (unsigned long long)bad);
    /* The boot allocator hands out from the top of the highest region, so its end may sit below. */
    KT_EXPECT(t, max_pfn >= heap_regions.r[heap_regions.nr - 1].e,
              "max_pfn 0x%llx below the end of the last free region, 0x%llx", (unsigned long long)max_pfn,
              (unsigned long long)heap_regions.r[heap_regions.nr - 1].e);
}

/* Xen's page_info is 32 bytes on x86-64; the frame table's size and the floor rest on it. */
_Static_assert(sizeof(struct page_info) == 32, "page_info must be 32 bytes, as Xen's");

/*
 * Builds with s, audits, and returns the digest (0 after a failure). With
 * report, prints the audit record too, for the host's own check of the heap.
 */
static uint64_t build_and_report(struct ktest *t, const struct heap_strategy *s, bool report)
{
    struct heap_audit a;

    heap_reset();
    end_boot_allocator(&heap_default, s);
    bool ok = heap_audit(&a);
    if (report)
        heap_audit_record(s->name, 0, 1, &a);
    if (!KT_EXPECT(t, ok, "%s: audit: %s (%u errors)", s->name, a.errors[0], a.nerrors))
        return 0;
    KT_EXPECT(t, a.free_pages == heap_handover_pages(), "%s: %llu free pages of %llu", s->name,
              (unsigned long long)a.free_pages, (unsigned long long)heap_handover_pages());
    return a.digest;
}

static uint64_t build(struct ktest *t, const struct heap_strategy *s)
{
    return build_and_report(t, s, false);
}

SELFTEST(strategies_build_the_same_heap)
{
    uint64_t d0 = build_and_report(t, heap_strategies[0], true);

    for (unsigned i = 1; heap_strategies[i]; i++) {
        uint64_t d = build_and_report(t, heap_strategies[i], true);
        KT_EXPECT(t, d == d0, "%s digest 0x%llx, %s 0x%llx", heap_strategies[i]->name,
                  (unsigned long long)d, heap_strategies[0]->name, (unsigned long long)d0);
    }
    heap_reset();
}

SELFTEST(alloc_all_free_all_restores_heap)
{
    for (unsigned i = 0; heap_strategies[i]; i++) {
        const struct heap_strategy *s = heap_strategies[i];
        uint64_t d = build(t, s), n = 0, freed = 0;
        uint32_t chain = PAGE_LIST_NULL;
        struct page_info *pg;
        struct progress prog;

        /* Minutes for a large guest under a loaded emulator: KTAP
         * diagnostics show the host it is still going. */
        progress_start(&prog);
        while ((pg = heap_alloc_pages(0, NUMA_NO_NODE))) {
            pg->list.next = chain;
            chain = (uint32_t)page_to_mfn(pg);
            n++;
            if (progress_due(&prog))
                printk("# %s: %llu pages allocated\n", s->name, (unsigned long long)n);
        }
        KT_EXPECT(t, n == heap_handover_pages(), "%s: allocated %llu of %llu pages", s->name,
                  (unsigned long long)n, (unsigned long long)heap_handover_pages());
        int rc = 0;
        while (chain != PAGE_LIST_NULL && !rc) {
            pg = mfn_to_page(chain);
            chain = pg->list.next;
            rc = heap_free(pg, 0, false, NULL);
            freed++;
            if (progress_due(&prog))
                printk("# %s: %llu of %llu pages freed\n", s->name, (unsigned long long)freed,
                       (unsigned long long)n);
        }
        KT_EXPECT(t, rc == 0, "%s: a page handed out was refused back (%d)", s->name, rc);
        struct heap_audit a;
        KT_EXPECT(t, heap_audit(&a) && a.digest == d, "%s: heap after alloc-all/free-all differs (%s)",
                  s->name, a.errors[0]);
    }
    heap_reset();
}

SELFTEST(lazy_allocates_every_order)
{
    const struct heap_strategy *lazy = heap_strategy_find("lazy", 4);
    struct page_info *held[MAX_ORDER + 1] = { 0 };

    if (!lazy) {
        KT_SKIP(t, "no lazy strategy registered");
        return;
    }
    uint64_t d = build(t, lazy);
    unsigned lacking = MAX_ORDER + 1;       /* the first order the heap could not give */

    for (unsigned order = 0; order <= MAX_ORDER; order++) {
        held[order] = heap_alloc_pages(order, NUMA_NO_NODE);
        if (!held[order]) {
            lacking = MIN(lacking, order);
            continue;
        }
        /* Orders are asked for in turn, and a larger block would have been split. */
        KT_EXPECT(t, order < lacking, "order %u given after order %u was refused", order, lacking);
        for (uint64_t i = 0; i < (1ull << order); i++)
            if (!KT_EXPECT(t, page_state_is(&held[order][i], inuse), "order %u page %llu not in use",
                           order, (unsigned long long)i))
                break;
    }
    /* A small guest has no block that large: say which orders went unchecked. */
    if (lacking <= MAX_ORDER)
        printk("# lazy_allocates_every_order: orders %u-%u not checked: the heap of %llu pages "
               "has no block of order %u or more\n", lacking, MAX_ORDER,
               (unsigned long long)heap_handover_pages(), lacking);
    KT_EXPECT(t, held[0] && held[9], "no order-0 or order-9 block from a lazy heap");
    struct heap_audit a;
    KT_EXPECT(t, heap_audit(&a), "audit with blocks out: %s", a.errors[0]);
    for (unsigned order = 0; order <= MAX_ORDER; order++)
        if (held[order])
            KT_EXPECT(t, heap_free(held[order], order, false, NULL) == 0,
                      "order %u block refused back", order);
    KT_EXPECT(t, heap_audit(&a) && a.digest == d, "lazy heap after freeing every order differs (%s)",
              a.errors[0]);
    heap_reset();
}
