// SPDX-License-Identifier: MIT
// Memory bring-up: the sanitised map, usable RAM minus every reservation in
// the boot allocator, the page tables, the frame table, and the summary.
#include "mm/mm.h"

#include "kernel/cmdline.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/cpu.h"
#include "kernel/lib/string.h"
#include "kernel/panic.h"
#include "mm/bootmem.h"
#include "mm/e820.h"
#include "mm/frametable.h"
#include "mm/heap_par.h"
#include "mm/heap_priv.h"
#include "mm/numa.h"
#include "mm/numa_boot.h"
#include "mm/paging.h"
#include "mm/peers/peer.h"
#include "mm/reserve.h"
#include "mm/usable.h"

struct mm_summary mm;
struct e820_map e820;
/* What mm_init() made of the map: reservations, and what the boot allocator could not keep. */
static struct usable_stats usable;

/* Left-out ranges listed on the consoles; the memory record lists them all. */
#define LEFT_OUT_PRINTED 32

static unsigned opt_numa_fake = 1;
CMDLINE_OPT(numa_fake, .key = "numa_fake", .type = OPT_UINT, .dst = &opt_numa_fake, .min = 1,
            .max = MAX_NUMNODES, .help = "without an SRAT, split RAM into N fake NUMA nodes of whole 1 GiB granules");

enum bootscrub { BOOTSCRUB_IDLE, BOOTSCRUB_OFF };
static const char *const bootscrub_names[] = {
    [BOOTSCRUB_IDLE] = "idle",
    [BOOTSCRUB_OFF] = "off",
};
static enum bootscrub opt_bootscrub = BOOTSCRUB_IDLE;
CMDLINE_CHOICE(bootscrub, opt_bootscrub, bootscrub_names,
               "idle (Xen's default: boot pages marked as needing scrub) or off");

extern const char __kernel_phys_start[], __kernel_phys_end[];

static void print_map(const char *title, const struct e820_map *m)
{
    char sz[24];

    printk("%s (%u entries):\n", title, m->count);
    for (unsigned i = 0; i < m->count; i++)
        printk("  [%016llx-%016llx) %-8s %s\n", (unsigned long long)m->e[i].addr,
               (unsigned long long)(m->e[i].addr + m->e[i].len), e820_type_name(m->e[i].type),
               fmt_size(sz, sizeof(sz), m->e[i].len));
}

static void print_raw_map(const struct bootinfo *bi)
{
    printk("memory map from the %s (%u entries):\n", bi->mmap_source, bi->mmap_count);
    for (unsigned i = 0; i < bi->mmap_count; i++)
        printk("  [%016llx-%016llx) type %u\n", (unsigned long long)bi->mmap[i].addr,
               (unsigned long long)(bi->mmap[i].addr + bi->mmap[i].len), bi->mmap[i].type);
}

/*
 * True when sanitising changed nothing but the order: every sanitised entry
 * is one of the loader's, type and all. The raw map then says nothing the
 * sanitised one does not, and only its count is printed.
 */
static bool map_kept_as_given(const struct bootinfo *bi, const struct e820_map *m)
{
    if (bi->mmap_count != m->count)
        return false;
    for (unsigned i = 0; i < m->count; i++) {
        bool found = false;
        for (unsigned j = 0; j < bi->mmap_count && !found; j++)
            found = bi->mmap[j].addr == m->e[i].addr && bi->mmap[j].len == m->e[i].len &&
                    bi->mmap[j].type == m->e[i].type;
        if (!found)
            return false;
    }
    return true;
}

static void print_regions(const struct bootmem_region *reg, unsigned n)
{
    char sz[24];

    for (unsigned i = 0; i < n; i++)
        printk("  mfn [%09llx-%09llx) %s\n", (unsigned long long)reg[i].s,
               (unsigned long long)reg[i].e,
               fmt_size(sz, sizeof(sz), (reg[i].e - reg[i].s) << PAGE_SHIFT));
}

/* MFN ranges under key, each as [start, end]. */
static void record_regions(struct record *r, const char *key, const struct bootmem_region *reg,
                           unsigned n)
{
    record_arr_begin(r, key);
    for (unsigned i = 0; i < n; i++) {
        record_arr_begin(r, NULL);
        record_u64(r, NULL, reg[i].s);
        record_u64(r, NULL, reg[i].e);
        record_arr_end(r);
    }
    record_arr_end(r);
}

/* The usable ranges the boot allocator had no room for, when there are any. */
static void print_left_out(void)
{
    char sz[24];

    if (!usable.nleft)
        return;
    printk("warning: the memory map has %u usable RAM regions and the boot allocator keeps the "
           "%u largest: %u regions, %llu pages (%s), are left out:\n", usable.ranges,
           USABLE_KEEP_MAX, usable.nleft, (unsigned long long)usable.left_pages,
           fmt_size(sz, sizeof(sz), usable.left_pages << PAGE_SHIFT));
    print_regions(usable.left, MIN(usable.nleft, LEFT_OUT_PRINTED));
    if (usable.nleft > LEFT_OUT_PRINTED)
        printk("  ... and %u more; the memory record lists every one\n",
               usable.nleft - LEFT_OUT_PRINTED);
}

/* The highest byte any RAM-like entry reaches: what the direct map covers. */
static uint64_t direct_map_top(void)
{
    uint64_t top = 1ull << 32;

    for (unsigned i = 0; i < e820.count; i++) {
        const struct mmap_entry *e = &e820.e[i];
        if (e->type == E820_RAM || e->type == E820_ACPI || e->type == E820_NVS)
            top = MAX(top, e->addr + e->len);
    }
    return MIN(top, MAX_PHYS_ADDR);
}

static void print_summary(void)
{
    char a[24], b[24], c[24];
    struct record r;
    const struct mm_resv *resv;
    unsigned nresv = mm_reserved_lines(&resv);

    printk("memory: %s RAM in the map, %s usable, %s handed to the heap (%llu pages)\n",
           fmt_size(a, sizeof(a), mm.ram_bytes), fmt_size(b, sizeof(b), mm.usable_bytes),
           fmt_size(c, sizeof(c), heap_handover_pages() << PAGE_SHIFT),
           (unsigned long long)heap_handover_pages());
    for (unsigned i = 0; i < nresv; i++)
        if (resv[i].bytes)      /* loader data inside the first MiB costs nothing more */
            printk("  reserved: %-24s %s\n", resv[i].what, fmt_size(a, sizeof(a), resv[i].bytes));
    printk("direct map: %s with %s pages; %llu page-table pages\n",
           fmt_size(a, sizeof(a), paging.directmap_bytes),
           paging.directmap_page == (1ull << 30) ? "1 GiB" : "2 MiB",
           (unsigned long long)paging.table_pages);
    printk("frame table: %s of page_info at 0x%llx for %llu frames (%llu sections of 1 GiB); "
           "M2P %s at 0x%llx\n", fmt_size(a, sizeof(a), frametable.bytes),
           (unsigned long long)FRAMETABLE_BASE, (unsigned long long)max_pfn,
           (unsigned long long)frametable.sections, fmt_size(b, sizeof(b), frametable.m2p_bytes),
           (unsigned long long)M2P_BASE);
    if (usable.nleft)
        printk("left out: %llu pages (%s) in %u of the %u usable regions; see above\n",
               (unsigned long long)usable.left_pages,
               fmt_size(a, sizeof(a), usable.left_pages << PAGE_SHIFT), usable.nleft, usable.ranges);
    printk("boot allocator: %u regions:\n", heap_regions.nr);
    print_regions(heap_regions.r, heap_regions.nr);

    numa_boot_print();
    record_begin(&r, "memory");
    record_u64(&r, "ram_bytes", mm.ram_bytes);
    record_u64(&r, "usable_bytes", mm.usable_bytes);
    record_u64(&r, "ignored_bytes", mm.ignored_bytes);
    record_u64(&r, "heap_pages", heap_handover_pages());
    record_arr_begin(&r, "reserved");
    for (unsigned i = 0; i < nresv; i++) {
        record_obj_begin(&r, NULL);
        record_str(&r, "what", resv[i].what);
        record_u64(&r, "bytes", resv[i].bytes);
        record_obj_end(&r);
    }
    record_arr_end(&r);
    record_regions(&r, "bootmem", heap_regions.r, heap_regions.nr);
    record_u64(&r, "usable_regions", usable.ranges);
    record_u64(&r, "left_out_pages", usable.left_pages);
    record_regions(&r, "left_out", usable.left, usable.nleft);
    record_u64(&r, "max_pfn", max_pfn);
    record_obj_begin(&r, "frame_table");
    record_hex(&r, "virt", FRAMETABLE_BASE);
    record_u64(&r, "bytes", frametable.bytes);
    record_u64(&r, "entry_bytes", sizeof(struct page_info));
    record_u64(&r, "sections", frametable.sections);
    record_obj_end(&r);
    record_u64(&r, "m2p_bytes", frametable.m2p_bytes);
    record_obj_begin(&r, "direct_map");
    record_u64(&r, "bytes", paging.directmap_bytes);
    record_u64(&r, "page_size", paging.directmap_page);
    record_u64(&r, "table_pages", paging.table_pages);
    record_obj_end(&r);
    record_u64(&r, "nodes", mm.nodes);
    numa_boot_report(&r);
    record_end(&r);
}

void mm_init(const struct bootinfo *bi)
{
    char sz[24];
    struct err e;
    struct record r;

    /* The firmware's map, made trustworthy. */
    if (e820_sanitise(bi->mmap, bi->mmap_count, &e820, &e)) {
        print_raw_map(bi);
        panic("bad memory map from %s: %s", bi->mmap_source, e.msg);
    }
    if (map_kept_as_given(bi, &e820))
        printk("memory map from the %s: %u entries, each kept as given, sorted below\n",
               bi->mmap_source, bi->mmap_count);
    else
        print_raw_map(bi);
    print_map("memory map, sanitised", &e820);
    record_begin(&r, "e820");
    record_u64(&r, "raw_count", bi->mmap_count);
    record_mmap(&r, "sanitised", e820.e, e820.count);
    record_end(&r);

    /* Usable RAM, minus everything in use. */
    struct usable_resv resv[2 + MM_EARLY_RESV_MAX + BI_RESV_MAX];
    unsigned nresv = 0;
    resv[nresv++] = (struct usable_resv){ "first MiB", 0, MiB(1) };
    const struct usable_resv *early;
    unsigned nearly = mm_early_reservations(&early);
    for (unsigned i = 0; i < nearly; i++)
        resv[nresv++] = early[i];
    resv[nresv++] = (struct usable_resv){ "kernel image and stacks",
                                          (uint64_t)__kernel_phys_start + kimage_offset,
                                          (uint64_t)__kernel_phys_end + kimage_offset };
    for (unsigned i = 0; i < bi->resv_count; i++)
        resv[nresv++] = (struct usable_resv){ bi->resv[i].what, bi->resv[i].start, bi->resv[i].end };
    if (usable_ram(&e820, resv, nresv, &bootmem, &usable, &e))
        panic("%s", e.msg);
    mm.ram_bytes = usable.ram_bytes;
    mm.usable_bytes = usable.usable_bytes;
    mm.ignored_bytes = usable.ignored_bytes;
    mm.left_out_pages = usable.left_pages;
    mm.left_out_regions = usable.nleft;
    if (usable.ignored_bytes)
        printk("warning: %s of RAM above %llu TiB is left out (free-list links are 32-bit MFNs)\n",
               fmt_size(sz, sizeof(sz), usable.ignored_bytes), (unsigned long long)(MAX_PHYS_ADDR >> 40));
    for (unsigned i = 0; i < nresv; i++)
        mm_count_reserved(resv[i].what, usable.zapped[i] << PAGE_SHIFT);
    print_left_out();
    if (!bootmem.nr)
        panic("no usable RAM: the memory map has no whole page of RAM above 1 MiB "
              "outside the kernel and the loader's data");
    max_pfn = bootmem.r[bootmem.nr - 1].e;

    /* Page tables (from boot memory below 4 GiB), then the frame table. */
    paging_init(direct_map_top());
    frametable_init(max_pfn);

}

void mm_heap_takeover(unsigned peer_layouts)
{
    /* Scratch bits for the audit: one per frame. */
    uint64_t bitmap_pages = PFN_UP(ALIGN_UP(max_pfn, 64) / 8), mfn;
    if (bootmem_alloc(&bootmem, bitmap_pages, 1, UINT64_MAX, &mfn))
        panic("out of boot memory for the audit bitmap (%llu pages)", (unsigned long long)bitmap_pages);
    uint64_t *bitmap = phys_to_virt(mfn << PAGE_SHIFT);
    memset(bitmap, 0, bitmap_pages << PAGE_SHIFT);
    /* The peers' page arrays, for the peers that will run: mapping them takes page tables too. */
    peer_meta_reserve(peer_layouts);

    /* What the kernel itself took from the boot allocator, every page of it. */
    mm_count_reserved("page tables", paging.table_pages << PAGE_SHIFT);
    mm_count_reserved("frame table and M2P", frametable.bytes + frametable.m2p_bytes);
    mm_count_reserved("audit bitmap", bitmap_pages << PAGE_SHIFT);

    mm.nodes = numa_boot_init(max_pfn, opt_numa_fake);
    /* A private heap per CPU for the parallel init, when there is more than one. */
    unsigned ncpus = heap_par_platform_cpus();
    uint64_t par_bytes = heap_par_bytes(ncpus);
    if (par_bytes)
        heap_par_give_storage(mm_alloc_boot("parallel init heaps", PFN_UP(par_bytes), UINT64_MAX),
                              ncpus);

    /* The heap's pages by the accounting: usable RAM less all of that and what was left out. */
    const struct mm_resv *resv;
    unsigned nresv = mm_reserved_lines(&resv);
    uint64_t reserved = 0;
    for (unsigned i = 0; i < nresv; i++)
        reserved += resv[i].bytes >> PAGE_SHIFT;
    uint64_t accounted = (mm.usable_bytes >> PAGE_SHIFT) - reserved - usable.left_pages;

    heap_boot_scrub = opt_bootscrub == BOOTSCRUB_IDLE;
    /* From here the boot allocator's pages are the heap's: no more allocations. */
    bootmem_seal(&bootmem);
    heap_setup(bitmap, accounted);
    print_summary();
}
