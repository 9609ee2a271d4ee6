// SPDX-License-Identifier: MIT
// The usable-RAM plan: mm_init()'s computation (sanitise the map, then
// mm/usable.c adds whole pages of RAM below 16 TiB and cuts out the first
// MiB, the kernel and the loader's data), checked for exact regions and page
// counts on hostile maps.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/bootinfo/bootinfo.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "mm/bootmem.h"
#include "mm/e820.h"
#include "mm/layout.h"
#include "mm/usable.h"

#define RAM E820_RAM
#define RSV E820_RESERVED
#define NVS E820_NVS
#define ACPI E820_ACPI

#define E(s, e, t) { (s), (e) - (s), (t) }

/* Where the linker puts the kernel: [2 MiB, +400 KiB) in the boot logs. */
#define KSTART 0x200000ull
#define KEND   0x264000ull

#define NR_FIXED 2              /* the first MiB and the kernel come first */

struct plan {
    struct e820_map map;
    struct bootmem bm;
    uint64_t ram_bytes;         /* RAM in the sanitised map */
    uint64_t usable_bytes;      /* whole pages of it added to the allocator */
    uint64_t ignored_bytes;     /* whole pages above MAX_PHYS_ADDR */
    uint64_t zapped[NR_FIXED + BI_RESV_MAX];    /* pages each reservation removed */
    struct usable_stats st;     /* all of it, the ranges left out too */
};

static struct plan plan;
static struct err err;

/*
 * mm_init()'s steps up to the first allocation: the real sanitiser, then
 * mm/usable.c with the reservations in mm_init()'s order (the first MiB,
 * the kernel, the loader's ranges).
 */
static int plan_usable(const struct mmap_entry *in, unsigned n, uint64_t kstart, uint64_t kend,
                       const struct bi_range *resv, unsigned nresv, struct plan *p)
{
    struct usable_resv r[NR_FIXED + BI_RESV_MAX];
    struct usable_stats *st = &p->st;
    int rc;

    memset(p, 0, sizeof(*p));
    err.msg[0] = '\0';
    rc = e820_sanitise(in, n, &p->map, &err);
    if (rc)
        return rc;
    r[0] = (struct usable_resv){ "first MiB", 0, MiB(1) };
    r[1] = (struct usable_resv){ "kernel", kstart, kend };
    for (unsigned i = 0; i < nresv; i++)
        r[NR_FIXED + i] = (struct usable_resv){ resv[i].what, resv[i].start, resv[i].end };
    rc = usable_ram(&p->map, r, NR_FIXED + nresv, &p->bm, st, &err);
    p->ram_bytes = st->ram_bytes;
    p->usable_bytes = st->usable_bytes;
    p->ignored_bytes = st->ignored_bytes;
    memcpy(p->zapped, st->zapped, sizeof(p->zapped));
    return rc;
}

static void print_regions(const char *title, const struct bootmem_region *r, unsigned n)
{
    print_error("%s (%u regions):\n", title, n);
    for (unsigned i = 0; i < n; i++)
        print_error("  mfn [%#llx, %#llx)\n", (unsigned long long)r[i].s, (unsigned long long)r[i].e);
}

static void expect_regions(const struct bootmem_region *want, unsigned n, uint64_t pages)
{
    bool same = plan.bm.nr == n;

    for (unsigned i = 0; same && i < n; i++)
        same = plan.bm.r[i].s == want[i].s && plan.bm.r[i].e == want[i].e;
    if (!same) {
        print_regions("got", plan.bm.r, plan.bm.nr);
        print_regions("want", want, n);
        fail_msg("usable regions differ");
    }
    assert_int_equal(bootmem_pages(&plan.bm), pages);
}

#define EXPECT(want, pages) expect_regions((want), ARRAY_SIZE(want), (pages))
#define PLAN(in) plan_usable((in), ARRAY_SIZE(in), KSTART, KEND, NULL, 0, &plan)

/* ---- nothing usable ------------------------------------------------------------ */

static void test_no_ram(void **state)
{
    static const struct mmap_entry in[] = {
        E(0xf0000, 0x100000, RSV),
        E(0x100000, 0x80000000, RSV),
        E(0x80000000, 0x80100000, ACPI),
        E(0xfd00000000, 0x10000000000, RSV),
    };
    (void)state;
    assert_int_equal(PLAN(in), 0);
    expect_regions(NULL, 0, 0);
    assert_int_equal(plan.ram_bytes, 0);
    assert_int_equal(plan.usable_bytes, 0);
    /* An empty map comes to the same. */
    assert_int_equal(plan_usable(NULL, 0, KSTART, KEND, NULL, 0, &plan), 0);
    expect_regions(NULL, 0, 0);
}

static void test_ram_below_1mib(void **state)
{
    static const struct mmap_entry in[] = {
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xf0000, 0x100000, RSV),
        E(0x100000, 0x100800, RAM),         /* half a page above 1 MiB */
    };
    (void)state;
    assert_int_equal(PLAN(in), 0);
    expect_regions(NULL, 0, 0);
    assert_int_equal(plan.ram_bytes, 0x9fc00 + 0x800);
    assert_int_equal(plan.usable_bytes, 0x9f000);
    assert_int_equal(plan.zapped[0], 0x9f);
    assert_int_equal(plan.zapped[1], 0);
}

/* ---- real machines --------------------------------------------------------------- */

/*
 * QEMU q35, 8 GiB, PVH. The kernel's own record of this boot: ram_bytes
 * 8589540352, usable_bytes 8589537280, first MiB 636 KiB, kernel 400 KiB, the
 * loader's data inside the first MiB (0 B); then 2076227 pages reached the heap
 * after 20569 went to page tables, frame table and audit bitmap.
 */
static void test_qemu_q35_8g(void **state)
{
    static const struct mmap_entry in[] = {
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xd0000, 0xf0000, NVS),
        E(0xf0000, 0x100000, RSV),
        E(0xb0000000, 0xc0000000, RSV),
        E(0xfd00000000, 0x10000000000, RSV),
        E(0x100000, 0x80000000, RAM),
        E(0x100000000, 0x280000000, RAM),
    };
    static const struct bi_range resv[] = {
        { 0x7000, 0x7040, "PVH start info" },
        { 0x7040, 0x7100, "PVH memory map" },
        { 0x8000, 0x8001, "PVH command line" },
    };
    static const struct bootmem_region want[] = {
        { 0x100, 0x200 }, { 0x264, 0x80000 }, { 0x100000, 0x280000 },
    };
    (void)state;
    assert_int_equal(plan_usable(in, ARRAY_SIZE(in), KSTART, KEND, resv, ARRAY_SIZE(resv), &plan), 0);
    EXPECT(want, 2096796);
    assert_int_equal(plan.ram_bytes, 8589540352);
    assert_int_equal(plan.usable_bytes, 8589537280);
    assert_int_equal(plan.ignored_bytes, 0);
    assert_int_equal(plan.zapped[0] << PAGE_SHIFT, 636 * 1024);
    assert_int_equal(plan.zapped[1] << PAGE_SHIFT, 400 * 1024);
    assert_int_equal(plan.zapped[2] + plan.zapped[3] + plan.zapped[4], 0);
}

/* OVMF, 2 GiB, GRUB multiboot2: the kernel's record gives these same regions
 * below its first allocations, 640 KiB for the first MiB. */
static void test_ovmf_2g(void **state)
{
    static const struct mmap_entry in[] = {
        E(0, 0xa0000, RAM),
        E(0x100000, 0x806000, RAM),
        E(0x806000, 0x808000, NVS),
        E(0x808000, 0x810000, RAM),
        E(0x810000, 0x900000, NVS),
        E(0x900000, 0x7eaa0000, RAM),
        E(0x7eaa0000, 0x7eba2000, RSV),
        E(0x7eba2000, 0x7f4ec000, RAM),
        E(0x7f4ec000, 0x7f5ec000, RSV),
        E(0x7f5ec000, 0x7f6ec000, 20),
        E(0x7f6ec000, 0x7f76c000, RSV),
        E(0x7f76c000, 0x7f77e000, ACPI),
        E(0x7f77e000, 0x7f7fe000, NVS),
        E(0x7f7fe000, 0x7fef4000, RAM),
        E(0x7fef4000, 0x7ff78000, RSV),
        E(0x7ff78000, 0x80000000, NVS),
        E(0xb0000000, 0xc0000000, RSV),
        E(0xffc00000, 0x100000000, RSV),
    };
    static const struct bi_range resv[] = { { 286720, 294848, "multiboot2 info" } };
    static const struct bootmem_region want[] = {
        { 0x100, 0x200 }, { 0x264, 0x806 }, { 0x808, 0x810 }, { 0x900, 0x7eaa0 },
        { 0x7eba2, 0x7f4ec }, { 0x7f7fe, 0x7fef4 },
    };
    (void)state;
    assert_int_equal(plan_usable(in, ARRAY_SIZE(in), KSTART, KEND, resv, ARRAY_SIZE(resv), &plan), 0);
    EXPECT(want, 522378);
    assert_int_equal(plan.ram_bytes, 2140725248);
    assert_int_equal(plan.usable_bytes, 2140725248);
    assert_int_equal(plan.zapped[0] << PAGE_SHIFT, 640 * 1024);
    assert_int_equal(plan.zapped[2], 0);
}

/* q35 with 1 TiB on an AMD CPU: 2 GiB low, 1022 GiB moved to start at 1 TiB
 * past the HyperTransport hole at 1012 GiB. */
static void test_1tib(void **state)
{
    static const struct mmap_entry in[] = {
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xd0000, 0xf0000, NVS),
        E(0xf0000, 0x100000, RSV),
        E(0xb0000000, 0xc0000000, RSV),
        E(0xfd00000000, 0x10000000000, RSV),
        E(0x100000, 0x80000000, RAM),
        E(0x10000000000, 0x1ff80000000, RAM),
    };
    static const struct bootmem_region want[] = {
        { 0x100, 0x200 }, { 0x264, 0x80000 }, { 0x10000000, 0x1ff80000 },
    };
    (void)state;
    assert_int_equal(PLAN(in), 0);
    /* 1 GiB is 2^18 pages: 1022 GiB high, 2 GiB low less 1 MiB and the kernel. */
    EXPECT(want, 1022ull * 262144 + 524288 - 256 - 100);
    assert_int_equal(bootmem_pages(&plan.bm), 268435100);
    assert_int_equal(plan.ram_bytes, GiB(1024) - 0x100000 + 0x9fc00);
}

/* The same 1 TiB left at 4 GiB, with 3 GiB below the hole, and the firmware
 * reporting the HyperTransport hole over the RAM. */
static void test_1tib_across_hole(void **state)
{
    static const struct mmap_entry in[] = {
        E(0x100000, 0xc0000000, RAM),
        E(0x100000000, 0x10080000000, RAM),
        E(0xfd00000000, 0x10000000000, RSV),
    };
    static const struct bootmem_region want[] = {
        { 0x100, 0x200 }, { 0x264, 0xc0000 }, { 0x100000, 0xfd00000 }, { 0x10000000, 0x10080000 },
    };
    (void)state;
    assert_int_equal(PLAN(in), 0);
    EXPECT(want, 265551516);
    /* 1025 GiB less 1 MiB claimed, 12 GiB of it under the hole. */
    assert_int_equal(plan.ram_bytes, GiB(1013) - MiB(1));
    assert_int_equal(plan.usable_bytes, GiB(1013) - MiB(1));
}

/* i440fx, 3.5 GiB: 3 GiB below the PCI hole at 3-4 GiB, 512 MiB above. */
static void test_hole_3_4gib(void **state)
{
    static const struct mmap_entry in[] = {
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xf0000, 0x100000, RSV),
        E(0x100000, 0xc0000000, RAM),
        E(0xfeffc000, 0xff000000, RSV),
        E(0xfffc0000, 0x100000000, RSV),
        E(0x100000000, 0x120000000, RAM),
    };
    static const struct bootmem_region want[] = {
        { 0x100, 0x200 }, { 0x264, 0xc0000 }, { 0x100000, 0x120000 },
    };
    (void)state;
    assert_int_equal(PLAN(in), 0);
    EXPECT(want, 917148);
    assert_false(bootmem_contains(&plan.bm, 0xc0000, 0xc0001));
    assert_false(bootmem_contains(&plan.bm, 0xfffff, 0x100000));
}

/* ---- rounding and limits ------------------------------------------------------------ */

static void test_unaligned_rounded_inward(void **state)
{
    static const struct mmap_entry in[] = {
        E(0x100800, 0x200400, RAM),         /* both ends inward */
        E(0x300fff, 0x302001, RAM),         /* one whole page inside */
        E(0x400001, 0x400fff, RAM),         /* none */
        E(0x500000, 0x600000, RAM),
        E(0x5ff800, 0x5ff900, RSV),         /* leaves less than a page above it */
    };
    /* Loader data rounds outward: [0x501800, 0x502001) takes pages 0x501, 0x502. */
    static const struct bi_range resv[] = { { 0x501800, 0x502001, "multiboot2 module" } };
    static const struct bootmem_region want[] = {
        { 0x101, 0x200 }, { 0x301, 0x302 }, { 0x500, 0x501 }, { 0x503, 0x5ff },
    };
    (void)state;
    /* The kernel sits in a hole of the map: it removes nothing. */
    assert_int_equal(plan_usable(in, ARRAY_SIZE(in), 0x1000000, 0x1064000, resv, 1, &plan), 0);
    EXPECT(want, 0xff + 1 + 1 + 0xfc);
    assert_int_equal(plan.ram_bytes, 0xffc00 + 0x1002 + 0xffe + 0xff800 + 0x700);
    assert_int_equal(plan.usable_bytes, (0xffull + 1 + 0xff) << PAGE_SHIFT);
    assert_int_equal(plan.zapped[1], 0);
    assert_int_equal(plan.zapped[2], 2);
}

static void test_above_16tib_dropped(void **state)
{
    static const struct mmap_entry across[] = {
        E(0x100000000, TiB(1), RAM),
        E(TiB(15), TiB(17), RAM),
        E(TiB(20), TiB(21), RAM),
    };
    static const struct bootmem_region across_want[] = {
        { 0x100000, 0x10000000 }, { 0xf0000000, 0x100000000 },
    };
    static const struct mmap_entry at_limit[] = {
        E(MAX_PHYS_ADDR - 0x1000, MAX_PHYS_ADDR, RAM),      /* the last page kept */
        E(MAX_PHYS_ADDR + 0x1000, MAX_PHYS_ADDR + 0x3000, RAM),
    };
    static const struct bootmem_region at_limit_want[] = { { 0xffffffff, 0x100000000 } };
    static const struct mmap_entry only_above[] = {
        E(MAX_PHYS_ADDR, TiB(32), RAM),
        E(0x40000000000000, 0x40000000100000, RAM),
    };
    (void)state;
    assert_int_equal(PLAN(across), 0);
    EXPECT(across_want, (TiB(1) - GiB(4) + TiB(1)) >> PAGE_SHIFT);
    assert_int_equal(plan.ignored_bytes, TiB(1) + TiB(1));
    assert_int_equal(plan.usable_bytes, TiB(1) - GiB(4) + TiB(1));
    assert_int_equal(plan.ram_bytes, TiB(1) - GiB(4) + TiB(2) + TiB(1));

    assert_int_equal(PLAN(at_limit), 0);
    EXPECT(at_limit_want, 1);
    assert_int_equal(plan.ignored_bytes, 0x2000);

    assert_int_equal(PLAN(only_above), 0);
    expect_regions(NULL, 0, 0);
    assert_int_equal(plan.ignored_bytes, TiB(16) + 0x100000);
    assert_int_equal(plan.usable_bytes, 0);
}

/*
 * RAM that is less than a page and lies above 16 TiB, and RAM based in the
 * last page below 2^64: nothing of either is usable or ignored (rounding up
 * that base must not wrap to MFN 0).
 */
static void test_sub_page_and_top_of_space(void **state)
{
    static const struct mmap_entry sub_page[] = {
        E(TiB(17) + 0x800, TiB(17) + 0xf00, RAM),
    };
    static const struct mmap_entry top_page[] = {
        E(0x100000, 0x200000, RAM),
        { 0xfffffffffffff001, 0xffe, RAM },
    };
    static const struct bootmem_region top_page_want[] = { { 0x100, 0x200 } };
    (void)state;
    assert_int_equal(PLAN(sub_page), 0);
    expect_regions(NULL, 0, 0);
    assert_int_equal(plan.ignored_bytes, 0);
    assert_int_equal(plan.ram_bytes, 0x700);

    assert_int_equal(PLAN(top_page), 0);
    EXPECT(top_page_want, 0x100);
    assert_int_equal(plan.ignored_bytes, 0);
    assert_int_equal(plan.usable_bytes, 0x100000);
}

/* ---- reservations ---------------------------------------------------------------------- */

static void test_loader_ranges(void **state)
{
    static const struct mmap_entry in[] = {
        E(0, 0x9fc00, RAM),
        E(0x100000, 0x40000000, RAM),
        E(0x100000000, 0x140000000, RAM),
    };
    static const struct bi_range resv[] = {
        { 0x10000, 0x11000, "multiboot2 info" },            /* in the first MiB */
        { 0x1000000, 0x1800000, "multiboot2 module" },      /* splits a region */
        { 0x3ffff000, 0x100001000, "multiboot2 module" },   /* across the hole */
        { 0x200000, 0x264000, "multiboot2 module" },        /* the kernel's pages again */
        { 0x80000000, 0x90000000, "multiboot2 module" },    /* no RAM there */
        { 0x13ffff800, 0x13ffff801, "multiboot2 module" },  /* one byte: its page */
    };
    static const struct bootmem_region want[] = {
        { 0x100, 0x200 }, { 0x264, 0x1000 }, { 0x1800, 0x3ffff }, { 0x100001, 0x13ffff },
    };
    static const uint64_t zapped[] = { 0x9f, 0x64, 0, 0x800, 2, 0, 0, 1 };
    (void)state;
    assert_int_equal(plan_usable(in, ARRAY_SIZE(in), KSTART, KEND, resv, ARRAY_SIZE(resv), &plan), 0);
    EXPECT(want, 0x100 + (0x1000 - 0x264) + (0x3ffff - 0x1800) + (0x13ffff - 0x100001));
    for (unsigned i = 0; i < ARRAY_SIZE(zapped); i++)
        assert_int_equal(plan.zapped[i], zapped[i]);
}

/* ---- more ranges than the boot allocator keeps ------------------------------------ */

static struct mmap_entry big[E820_MAX + 1];

/* n RAM ranges above 4 MiB, three pages each, a page apart: all of one size. */
static void separate_ram(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        big[i] = (struct mmap_entry){ MiB(4) + ((uint64_t)i << 14), 0x3000, RAM };
}

/* n RAM ranges above 4 MiB, 256 KiB apart, of 1 to 37 pages in a scrambled order. */
static uint64_t varied_pages(unsigned i)
{
    return 1 + (i * 7919u) % 37;
}

static void varied_ram(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        big[i] = (struct mmap_entry){ MiB(4) + ((uint64_t)i << 18), varied_pages(i) << 12, RAM };
}

static int by_size_then_address(const void *a, const void *b)
{
    const struct bootmem_region *x = a, *y = b;
    uint64_t nx = x->e - x->s, ny = y->e - y->s;

    if (nx != ny)
        return nx > ny ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

static int by_address(const void *a, const void *b)
{
    const struct bootmem_region *x = a, *y = b;

    return x->s < y->s ? -1 : x->s > y->s;
}

/*
 * Checks the plan against the rule, worked out here with qsort(): of the
 * usable ranges (want[0..n)), the boot allocator gets the USABLE_KEEP_MAX
 * largest, the lower address first among equal sizes, and st.left lists
 * exactly the others, with their pages; together they are every usable page.
 */
static void expect_largest_kept(struct bootmem_region *want, unsigned n)
{
    static struct bootmem_region kept[USABLE_MAX_RANGES], left[USABLE_MAX_RANGES];
    unsigned nkept = n < USABLE_KEEP_MAX ? n : USABLE_KEEP_MAX;
    uint64_t left_pages = 0;

    qsort(want, n, sizeof(want[0]), by_size_then_address);
    memcpy(kept, want, nkept * sizeof(want[0]));
    memcpy(left, want + nkept, (n - nkept) * sizeof(want[0]));
    qsort(kept, nkept, sizeof(kept[0]), by_address);
    qsort(left, n - nkept, sizeof(left[0]), by_address);
    for (unsigned i = 0; i < n - nkept; i++)
        left_pages += left[i].e - left[i].s;

    assert_int_equal(plan.st.ranges, n);
    expect_regions(kept, nkept, bootmem_pages(&plan.bm));
    assert_int_equal(plan.st.nleft, n - nkept);
    for (unsigned i = 0; i < n - nkept; i++) {
        assert_int_equal(plan.st.left[i].s, left[i].s);
        assert_int_equal(plan.st.left[i].e, left[i].e);
    }
    assert_int_equal(plan.st.left_pages, left_pages);
    /* Nothing lost: kept, left out and reserved pages make up the usable ones. */
    uint64_t zapped = 0;
    for (unsigned i = 0; i < NR_FIXED + BI_RESV_MAX; i++)
        zapped += plan.zapped[i];
    assert_int_equal(bootmem_pages(&plan.bm) + left_pages + zapped, plan.usable_bytes >> 12);
    /* The boot allocator keeps room for the splits of the kernel's own allocations. */
    assert_true(plan.bm.nr <= BOOTMEM_MAX_REGIONS - 16);
}

/* The usable ranges of varied_ram(n) as the plan should see them. */
static struct bootmem_region *varied_want(unsigned n)
{
    static struct bootmem_region want[USABLE_MAX_RANGES];

    for (unsigned i = 0; i < n; i++) {
        uint64_t s = (MiB(4) >> 12) + ((uint64_t)i << 6);
        want[i] = (struct bootmem_region){ s, s + varied_pages(i) };
    }
    return want;
}

static void test_ranges_at_the_keep_limit(void **state)
{
    (void)state;
    /* As many ranges as the boot allocator keeps: all of them, nothing left out. */
    separate_ram(USABLE_KEEP_MAX);
    assert_int_equal(plan_usable(big, USABLE_KEEP_MAX, KSTART, KEND, NULL, 0, &plan), 0);
    assert_int_equal(plan.bm.nr, USABLE_KEEP_MAX);
    assert_int_equal(bootmem_pages(&plan.bm), 3 * USABLE_KEEP_MAX);
    assert_int_equal(plan.st.nleft, 0);
    assert_int_equal(plan.st.left_pages, 0);
    /* One more, all of one size: the highest is the one left out. */
    separate_ram(USABLE_KEEP_MAX + 1);
    assert_int_equal(plan_usable(big, USABLE_KEEP_MAX + 1, KSTART, KEND, NULL, 0, &plan), 0);
    assert_int_equal(plan.bm.nr, USABLE_KEEP_MAX);
    assert_int_equal(plan.st.nleft, 1);
    assert_int_equal(plan.st.left[0].s, (MiB(4) >> 12) + 4 * USABLE_KEEP_MAX);
    assert_int_equal(plan.st.left_pages, 3);
}

static void test_257_ranges(void **state)
{
    (void)state;
    /* One more than the boot allocator's whole list: a panic until now. */
    varied_ram(BOOTMEM_MAX_REGIONS + 1);
    assert_int_equal(plan_usable(big, BOOTMEM_MAX_REGIONS + 1, KSTART, KEND, NULL, 0, &plan), 0);
    expect_largest_kept(varied_want(BOOTMEM_MAX_REGIONS + 1), BOOTMEM_MAX_REGIONS + 1);
    assert_int_equal(plan.st.nleft, BOOTMEM_MAX_REGIONS + 1 - USABLE_KEEP_MAX);
}

static void test_300_ranges_and_a_split(void **state)
{
    /* A loader range inside the 38th range (37 pages) splits it into two of 18. */
    static const struct bi_range resv[] = {
        { MiB(4) + (36ull << 18) + (18 << 12), MiB(4) + (36ull << 18) + (19 << 12), "multiboot2 module" },
    };
    struct bootmem_region *want = varied_want(300);
    (void)state;
    assert_int_equal(varied_pages(36), 37);
    varied_ram(300);
    assert_int_equal(plan_usable(big, 300, KSTART, KEND, resv, 1, &plan), 0);
    memmove(&want[37], &want[36], (300 - 36) * sizeof(want[0]));
    want[36].e = want[36].s + 18;
    want[37].s = want[36].e + 1;
    assert_int_equal(plan.zapped[NR_FIXED], 1);
    expect_largest_kept(want, 301);
}

static void test_5000_ranges(void **state)
{
    (void)state;
    varied_ram(5000);
    assert_int_equal(plan_usable(big, 5000, KSTART, KEND, NULL, 0, &plan), 0);
    expect_largest_kept(varied_want(5000), 5000);
    /* No range left out is larger than any range kept. */
    uint64_t smallest_kept = UINT64_MAX, largest_left = 0;
    for (unsigned i = 0; i < plan.bm.nr; i++)
        smallest_kept = MIN(smallest_kept, plan.bm.r[i].e - plan.bm.r[i].s);
    for (unsigned i = 0; i < plan.st.nleft; i++)
        largest_left = MAX(largest_left, plan.st.left[i].e - plan.st.left[i].s);
    assert_true(largest_left <= smallest_kept);
}

static void test_map_at_and_past_the_entry_limit(void **state)
{
    (void)state;
    /* The most entries a map may have, every one a usable range. */
    varied_ram(E820_MAX);
    assert_int_equal(plan_usable(big, E820_MAX, KSTART, KEND, NULL, 0, &plan), 0);
    expect_largest_kept(varied_want(E820_MAX), E820_MAX);
    /* One more entry is refused before anything is read, with the limit named. */
    varied_ram(E820_MAX + 1);
    assert_int_equal(plan_usable(big, E820_MAX + 1, KSTART, KEND, NULL, 0, &plan), -E2BIG);
    assert_string_equal(err.msg, "memory map has 8193 entries; the limit is 8192");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_ram),
        cmocka_unit_test(test_ram_below_1mib),
        cmocka_unit_test(test_qemu_q35_8g),
        cmocka_unit_test(test_ovmf_2g),
        cmocka_unit_test(test_1tib),
        cmocka_unit_test(test_1tib_across_hole),
        cmocka_unit_test(test_hole_3_4gib),
        cmocka_unit_test(test_unaligned_rounded_inward),
        cmocka_unit_test(test_above_16tib_dropped),
        cmocka_unit_test(test_sub_page_and_top_of_space),
        cmocka_unit_test(test_loader_ranges),
        cmocka_unit_test(test_ranges_at_the_keep_limit),
        cmocka_unit_test(test_257_ranges),
        cmocka_unit_test(test_300_ranges_and_a_split),
        cmocka_unit_test(test_5000_ranges),
        cmocka_unit_test(test_map_at_and_past_the_entry_limit),
    };
    return cmocka_run_group_tests_name("usable RAM plan", tests, NULL, NULL);
}
