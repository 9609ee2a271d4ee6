// SPDX-License-Identifier: MIT
// Host tests for mm/e820.c: hostile and real firmware memory maps through
// e820_sanitise, each checked against the exact map or the exact error.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "mm/e820.h"

#define RAM      E820_RAM
#define RSV      E820_RESERVED
#define ACPI     E820_ACPI
#define NVS      E820_NVS
#define BAD      E820_UNUSABLE
#define GRUB_CODE 20            /* GRUB's number for EFI runtime-services code */

/* An entry by its bounds [s, e): the length is what firmware gets wrong. */
#define E(s, e, t) { (s), (e) - (s), (t) }

static struct e820_map out;
static struct err err;

static void print_map(const char *title, const struct mmap_entry *e, unsigned n)
{
    print_error("%s (%u entries):\n", title, n);
    for (unsigned i = 0; i < n; i++)
        print_error("  [%#018llx, +%#llx) type %u\n", (unsigned long long)e[i].addr,
                    (unsigned long long)e[i].len, e[i].type);
}

/* What every sanitised map must be, whatever the input. */
static void check_shape(const struct e820_map *m)
{
    for (unsigned i = 0; i < m->count; i++) {
        const struct mmap_entry *e = &m->e[i];
        assert_true(e->len > 0);
        assert_true(e->addr <= UINT64_MAX - e->len);    /* never wraps */
        assert_true(e->type >= RAM && e->type <= BAD);
        if (i > 0) {
            const struct mmap_entry *p = &m->e[i - 1];
            assert_true(p->addr + p->len <= e->addr);   /* sorted, disjoint */
            if (p->addr + p->len == e->addr)
                assert_int_not_equal(p->type, e->type); /* touching: merged */
        }
    }
}

static void expect_map(const struct mmap_entry *in, unsigned n, const struct mmap_entry *want,
                       unsigned nwant)
{
    bool same;

    /* Poison the output so nothing stale can pass for a result. */
    memset(&out, 0xa5, sizeof(out));
    err.msg[0] = '\0';
    int rc = e820_sanitise(in, n, &out, &err);
    if (rc)
        fail_msg("e820_sanitise returned %d: %s", rc, err.msg);
    check_shape(&out);
    same = out.count == nwant;
    for (unsigned i = 0; same && i < nwant; i++)
        same = out.e[i].addr == want[i].addr && out.e[i].len == want[i].len &&
               out.e[i].type == want[i].type;
    if (!same) {
        print_map("got", out.e, out.count);
        print_map("want", want, nwant);
        fail_msg("sanitised map differs");
    }
}

#define EXPECT(in, want) expect_map((in), ARRAY_SIZE(in), (want), ARRAY_SIZE(want))

static void expect_error(const struct mmap_entry *in, unsigned n, const char *msg)
{
    err.msg[0] = '\0';
    assert_int_equal(e820_sanitise(in, n, &out, &err), -E2BIG);
    assert_string_equal(err.msg, msg);
}

/* ---- the list ---------------------------------------------------------- */

static void test_empty(void **state)
{
    static const struct mmap_entry zeros[] = {
        { 0, 0, RAM }, { 0x100000, 0, RAM }, { UINT64_MAX, 0, RSV },
    };
    (void)state;
    expect_map(NULL, 0, NULL, 0);
    expect_map(zeros, ARRAY_SIZE(zeros), NULL, 0);
}

static void test_no_ram(void **state)
{
    static const struct mmap_entry in[] = {
        E(0xb0000000, 0xc0000000, RSV),
        E(0xf0000, 0x100000, RSV),
        E(0x7fe0000, 0x8000000, ACPI),
        E(0xd0000, 0xf0000, NVS),
    };
    static const struct mmap_entry want[] = {
        E(0xd0000, 0xf0000, NVS),
        E(0xf0000, 0x100000, RSV),          /* touches the NVS: both stay */
        E(0x7fe0000, 0x8000000, ACPI),
        E(0xb0000000, 0xc0000000, RSV),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_ram_below_1mib(void **state)
{
    static const struct mmap_entry in[] = {
        E(0xf0000, 0x100000, RSV),
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xe8000, 0xf0000, RSV),
    };
    static const struct mmap_entry want[] = {
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xe8000, 0x100000, RSV),          /* the two BIOS areas merge */
    };
    (void)state;
    EXPECT(in, want);
}

static void test_zero_length(void **state)
{
    /* Zero-length entries inside and at the edges of RAM must not cut it. */
    static const struct mmap_entry in[] = {
        E(0, 0x80000, RAM),
        { 0x80000, 0, RSV },
        { 0x40000, 0, BAD },
        E(0x80000, 0x100000, RAM),
        { 0x100000, 0, NVS },
        { 0, 0, GRUB_CODE },
        { 0x200000, 0, RAM },
        { UINT64_MAX, 0, BAD },
    };
    static const struct mmap_entry want[] = {
        E(0, 0x100000, RAM),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_unsorted(void **state)
{
    static const struct mmap_entry in[] = {
        E(0xffff000000000000, 0xffff000000001000, RAM),
        E(0x5000, 0x6000, ACPI),
        E(0x1000, 0x2000, RAM),
        E(0x2000, 0x2800, NVS),
        E(0x3000, 0x4000, RSV),
        E(0x100000000, 0x200000000, RAM),
    };
    static const struct mmap_entry want[] = {
        E(0x1000, 0x2000, RAM),
        E(0x2000, 0x2800, NVS),
        E(0x3000, 0x4000, RSV),
        E(0x5000, 0x6000, ACPI),
        E(0x100000000, 0x200000000, RAM),
        E(0xffff000000000000, 0xffff000000001000, RAM),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_overlapping_ram(void **state)
{
    static const struct mmap_entry in[] = {
        E(0x2000, 0x5000, RAM),
        E(0, 0x3000, RAM),
        E(0x1000, 0x1800, RAM),             /* nested */
        E(0x4000, 0x6000, RAM),
    };
    static const struct mmap_entry want[] = {
        E(0, 0x6000, RAM),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_duplicates(void **state)
{
    static const struct mmap_entry in[] = {
        E(0x100000, 0x40000000, RAM),
        E(0xfee00000, 0xfee01000, RSV),
        E(0x100000, 0x40000000, RAM),
        E(0xfee00000, 0xfee01000, RSV),
        E(0x100000, 0x40000000, RAM),
    };
    static const struct mmap_entry want[] = {
        E(0x100000, 0x40000000, RAM),
        E(0xfee00000, 0xfee01000, RSV),
    };
    static struct mmap_entry many[E820_MAX];
    static const struct mmap_entry want_bad[] = {
        E(0x100000, 0x200000, RAM),
        E(0x200000, 0x201000, BAD),
        E(0x201000, 0x40000000, RAM),
    };
    (void)state;
    EXPECT(in, want);
    /* The limit's worth of one entry: the open count climbs to E820_MAX and back. */
    for (unsigned i = 0; i < E820_MAX; i++)
        many[i] = (struct mmap_entry)E(0x100000, 0x40000000, RAM);
    expect_map(many, E820_MAX, want, 1);
    many[E820_MAX / 2] = (struct mmap_entry)E(0x200000, 0x201000, BAD);
    EXPECT(many, want_bad);
}

static void test_ram_inside_reserved(void **state)
{
    static const struct mmap_entry in[] = {
        E(0x100000, 0x200000, RSV),
        E(0x140000, 0x180000, RAM),         /* strictly inside */
        E(0x300000, 0x310000, RAM),         /* same start, shorter */
        E(0x300000, 0x320000, RSV),
        E(0x400000, 0x410000, RSV),         /* identical bounds */
        E(0x400000, 0x410000, RAM),
    };
    static const struct mmap_entry want[] = {
        E(0x100000, 0x200000, RSV),
        E(0x300000, 0x320000, RSV),
        E(0x400000, 0x410000, RSV),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_reserved_inside_ram(void **state)
{
    static const struct mmap_entry in[] = {
        E(0x100000, 0x40000000, RAM),
        E(0x20000000, 0x20001000, RSV),     /* the middle: RAM either side */
        E(0x100000000, 0x200000000, RAM),
        E(0x100000000, 0x100001000, RSV),   /* its first page */
        E(0x1fffff000, 0x200001000, RSV),   /* its last page, and beyond */
    };
    static const struct mmap_entry want[] = {
        E(0x100000, 0x20000000, RAM),
        E(0x20000000, 0x20001000, RSV),
        E(0x20001000, 0x40000000, RAM),
        E(0x100000000, 0x100001000, RSV),
        E(0x100001000, 0x1fffff000, RAM),
        E(0x1fffff000, 0x200001000, RSV),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_wrapping(void **state)
{
    static const struct mmap_entry past_top[] = {
        { 0xffffffff00000000, 0x200000000, RAM },
    };
    static const struct mmap_entry past_top_want[] = {
        { 0xffffffff00000000, 0xffffffff, RAM },
    };
    /* addr + len is exactly 2^64: unrepresentable, so the end is 2^64 - 1. */
    static const struct mmap_entry to_2_64[] = {
        { 0xfffffffffffff000, 0x1000, RAM },
    };
    static const struct mmap_entry to_2_64_want[] = {
        { 0xfffffffffffff000, 0xfff, RAM },
    };
    /* Clipping leaves nothing of these. */
    static const struct mmap_entry nothing[] = {
        { UINT64_MAX, 1, RAM },
        { UINT64_MAX, UINT64_MAX, RSV },
    };
    /* The wrapped part must not reappear at address 0. */
    static const struct mmap_entry no_low_wrap[] = {
        { 0xfffffffffffff000, 0x3000, RSV },
        E(0, 0x1000, RAM),
    };
    static const struct mmap_entry no_low_wrap_want[] = {
        E(0, 0x1000, RAM),
        { 0xfffffffffffff000, 0xfff, RSV },
    };
    /* A wrapping reserved entry over the top of some RAM still wins. */
    static const struct mmap_entry over_ram[] = {
        E(0xfffffff000000000, 0xfffffff800000000, RAM),
        { 0xfffffff400000000, 0x1000000000000, RSV },
    };
    static const struct mmap_entry over_ram_want[] = {
        E(0xfffffff000000000, 0xfffffff400000000, RAM),
        E(0xfffffff400000000, UINT64_MAX, RSV),
    };
    /* Nearly everything, wrapping, over RAM that starts below it. */
    static const struct mmap_entry huge[] = {
        { 0x1000, UINT64_MAX, ACPI },
        E(0, 0x2000, RAM),
    };
    static const struct mmap_entry huge_want[] = {
        E(0, 0x1000, RAM),
        E(0x1000, UINT64_MAX, ACPI),
    };
    (void)state;
    EXPECT(past_top, past_top_want);
    EXPECT(to_2_64, to_2_64_want);
    expect_map(nothing, ARRAY_SIZE(nothing), NULL, 0);
    EXPECT(no_low_wrap, no_low_wrap_want);
    EXPECT(over_ram, over_ram_want);
    EXPECT(huge, huge_want);
}

static void test_unaligned(void **state)
{
    /* The sanitiser keeps bytes exactly; rounding to pages is mm's business. */
    static const struct mmap_entry in[] = {
        E(0x1001, 0x9fc01, RAM),
        E(0x9fc01, 0x9fc02, RSV),
        E(0x100123, 0x7ffff00d, RAM),
        E(0x12345678, 0x12345681, RSV),
        E(0x7fffe003, 0x80000005, ACPI),
        E(0x100000003, 0x100000004, RAM),   /* one byte */
    };
    static const struct mmap_entry want[] = {
        E(0x1001, 0x9fc01, RAM),
        E(0x9fc01, 0x9fc02, RSV),
        E(0x100123, 0x12345678, RAM),
        E(0x12345678, 0x12345681, RSV),
        E(0x12345681, 0x7fffe003, RAM),
        E(0x7fffe003, 0x80000005, ACPI),
        E(0x100000003, 0x100000004, RAM),
    };
    (void)state;
    EXPECT(in, want);
}

/* QEMU q35 with 1 TiB on an AMD CPU: 2 GiB below 4 GiB; the rest would cross
 * the HyperTransport hole at 1012 GiB, so QEMU moves it to start at 1 TiB. */
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
    static const struct mmap_entry want[] = {
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xd0000, 0xf0000, NVS),
        E(0xf0000, 0x100000, RSV),
        E(0x100000, 0x80000000, RAM),
        E(0xb0000000, 0xc0000000, RSV),
        E(0xfd00000000, 0x10000000000, RSV),
        E(0x10000000000, 0x1ff80000000, RAM),   /* touches the hole's end */
    };
    /* A firmware that keeps the RAM at 4 GiB and reports the hole over it. */
    static const struct mmap_entry across[] = {
        E(0x100000, 0xc0000000, RAM),
        E(0x100000000, 0x10080000000, RAM),
        E(0xfd00000000, 0x10000000000, RSV),
    };
    static const struct mmap_entry across_want[] = {
        E(0x100000, 0xc0000000, RAM),
        E(0x100000000, 0xfd00000000, RAM),
        E(0xfd00000000, 0x10000000000, RSV),
        E(0x10000000000, 0x10080000000, RAM),
    };
    (void)state;
    EXPECT(in, want);
    EXPECT(across, across_want);
}

/* i440fx with 3.5 GiB: 3 GiB below the PCI hole, 512 MiB above 4 GiB. */
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
    static const struct mmap_entry want[] = {
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xf0000, 0x100000, RSV),
        E(0x100000, 0xc0000000, RAM),
        E(0xfeffc000, 0xff000000, RSV),
        E(0xfffc0000, 0x100000000, RSV),
        E(0x100000000, 0x120000000, RAM),
    };
    /* A map that claims 4 GiB of RAM and lists the PCI hole on top of it. */
    static const struct mmap_entry lying[] = {
        E(0, 0x100000000, RAM),
        E(0xc0000000, 0x100000000, RSV),
        E(0xfee00000, 0xfee01000, BAD),
    };
    static const struct mmap_entry lying_want[] = {
        E(0, 0xc0000000, RAM),
        E(0xc0000000, 0xfee00000, RSV),
        E(0xfee00000, 0xfee01000, BAD),
        E(0xfee01000, 0x100000000, RSV),
    };
    (void)state;
    EXPECT(in, want);
    EXPECT(lying, lying_want);
}

/* ---- more hostile shapes ---------------------------------------------------------- */

static void test_covering_entry(void **state)
{
    /* Reserved over RAM, ACPI and a GRUB type; the NVS inside it outranks it. */
    static const struct mmap_entry in[] = {
        E(0, 0x9fc00, RAM),
        E(0xe0000, 0xf0000, ACPI),
        E(0xd0000, 0xd8000, NVS),
        E(0xc0000, 0xc8000, GRUB_CODE),
        E(0, 0x100000, RSV),
        /* Unusable over every other type: nothing of them is left. */
        E(0x200000, 0x280000, RAM),
        E(0x280000, 0x290000, ACPI),
        E(0x290000, 0x2a0000, NVS),
        E(0x2a0000, 0x2b0000, RSV),
        E(0x1ff000, 0x2c0000, BAD),
    };
    static const struct mmap_entry want[] = {
        E(0, 0xd0000, RSV),
        E(0xd0000, 0xd8000, NVS),
        E(0xd8000, 0x100000, RSV),
        E(0x1ff000, 0x2c0000, BAD),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_three_way(void **state)
{
    static const struct mmap_entry in[] = {
        E(0, 0x10000, RAM),
        E(0x4000, 0xc000, ACPI),
        E(0x6000, 0xe000, RSV),
        /* Three entries opening at one address. */
        E(0x20000, 0x21000, NVS),
        E(0x20000, 0x23000, RAM),
        E(0x20000, 0x20800, BAD),
    };
    static const struct mmap_entry want[] = {
        E(0, 0x4000, RAM),
        E(0x4000, 0x6000, ACPI),
        E(0x6000, 0xe000, RSV),
        E(0xe000, 0x10000, RAM),
        E(0x20000, 0x20800, BAD),
        E(0x20800, 0x21000, NVS),
        E(0x21000, 0x23000, RAM),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_priority(void **state)
{
    /* All five over one range. */
    static const struct mmap_entry same[] = {
        E(0x1000, 0x2000, RAM), E(0x1000, 0x2000, ACPI), E(0x1000, 0x2000, RSV),
        E(0x1000, 0x2000, BAD), E(0x1000, 0x2000, NVS),
    };
    static const struct mmap_entry same_want[] = { E(0x1000, 0x2000, BAD) };
    /* A staircase up and one down: each step shows one pair's order. */
    static const struct mmap_entry stairs[] = {
        E(0x4000, 0x5000, BAD),
        E(0x3000, 0x5000, NVS),
        E(0x2000, 0x5000, RSV),
        E(0x1000, 0x5000, ACPI),
        E(0, 0x5000, RAM),
        E(0x10000, 0x15000, RAM),
        E(0x10000, 0x14000, ACPI),
        E(0x10000, 0x13000, RSV),
        E(0x10000, 0x12000, NVS),
        E(0x10000, 0x11000, BAD),
    };
    static const struct mmap_entry stairs_want[] = {
        E(0, 0x1000, RAM),
        E(0x1000, 0x2000, ACPI),
        E(0x2000, 0x3000, RSV),
        E(0x3000, 0x4000, NVS),
        E(0x4000, 0x5000, BAD),
        E(0x10000, 0x11000, BAD),
        E(0x11000, 0x12000, NVS),
        E(0x12000, 0x13000, RSV),
        E(0x13000, 0x14000, ACPI),
        E(0x14000, 0x15000, RAM),
    };
    (void)state;
    EXPECT(same, same_want);
    EXPECT(stairs, stairs_want);
}

static void test_touching(void **state)
{
    static const struct mmap_entry in[] = {
        E(0x5000, 0x6000, RAM),
        E(0x1000, 0x2000, RSV),
        E(0, 0x1000, RAM),
        E(0x3000, 0x4000, NVS),
        E(0x2000, 0x3000, ACPI),
        E(0x4000, 0x5000, BAD),
        E(0x6000, 0x7000, RAM),             /* same type touching: merged */
        E(0x7000, 0x8000, BAD),
        E(0x8000, 0x9000, BAD),
    };
    static const struct mmap_entry want[] = {
        E(0, 0x1000, RAM),
        E(0x1000, 0x2000, RSV),
        E(0x2000, 0x3000, ACPI),
        E(0x3000, 0x4000, NVS),
        E(0x4000, 0x5000, BAD),
        E(0x5000, 0x7000, RAM),
        E(0x7000, 0x9000, BAD),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_unknown_types(void **state)
{
    static const struct mmap_entry in[] = {
        /* OVMF under GRUB: runtime code (20) between two reserved runs. */
        E(0x7f4ec000, 0x7f5ec000, RSV),
        E(0x7f5ec000, 0x7f6ec000, GRUB_CODE),
        E(0x7f6ec000, 0x7f76c000, RSV),
        /* 0, persistent memory (7, 12) and the largest number: all reserved. */
        E(0x1000, 0x2000, 0),
        E(0x2000, 0x3000, 7),
        E(0x3000, 0x4000, 12),
        E(0x5000, 0x6000, UINT32_MAX),
        /* Coreboot tables (16) inside RAM cut it like reserved does. */
        E(0x100000, 0x200000, RAM),
        E(0x180000, 0x181000, 16),
        /* Over ACPI a GRUB type wins; under NVS it loses. */
        E(0x300000, 0x302000, ACPI),
        E(0x301000, 0x303000, GRUB_CODE),
        E(0x400000, 0x402000, NVS),
        E(0x401000, 0x403000, GRUB_CODE),
    };
    static const struct mmap_entry want[] = {
        E(0x1000, 0x4000, RSV),
        E(0x5000, 0x6000, RSV),
        E(0x100000, 0x180000, RAM),
        E(0x180000, 0x181000, RSV),
        E(0x181000, 0x200000, RAM),
        E(0x300000, 0x301000, ACPI),
        E(0x301000, 0x303000, RSV),
        E(0x400000, 0x402000, NVS),
        E(0x402000, 0x403000, RSV),
        E(0x7f4ec000, 0x7f76c000, RSV),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_acpi_nvs_overlap(void **state)
{
    static const struct mmap_entry in[] = {
        E(0x7f77e000, 0x7f7fe000, NVS),
        E(0x7f76c000, 0x7f780000, ACPI),    /* its tail lies in the NVS */
        E(0x1000000, 0x1010000, ACPI),
        E(0x1004000, 0x1008000, NVS),       /* inside the ACPI */
    };
    static const struct mmap_entry want[] = {
        E(0x1000000, 0x1004000, ACPI),
        E(0x1004000, 0x1008000, NVS),
        E(0x1008000, 0x1010000, ACPI),
        E(0x7f76c000, 0x7f77e000, ACPI),
        E(0x7f77e000, 0x7f7fe000, NVS),
    };
    (void)state;
    EXPECT(in, want);
}

static void test_address_extremes(void **state)
{
    static const struct mmap_entry in[] = {
        { 0, UINT64_MAX, RAM },                     /* everything, from 0 */
        E(0xa0000, 0x100000, RSV),
        E(UINT64_MAX - 0x1000, UINT64_MAX, BAD),    /* ends exactly at 2^64 - 1 */
    };
    static const struct mmap_entry want[] = {
        E(0, 0xa0000, RAM),
        E(0xa0000, 0x100000, RSV),
        E(0x100000, UINT64_MAX - 0x1000, RAM),
        E(UINT64_MAX - 0x1000, UINT64_MAX, BAD),
    };
    static const struct mmap_entry tiny[] = {
        E(UINT64_MAX - 1, UINT64_MAX, RSV),
        E(0, 1, RAM),
    };
    static const struct mmap_entry tiny_want[] = {
        E(0, 1, RAM),
        E(UINT64_MAX - 1, UINT64_MAX, RSV),
    };
    (void)state;
    EXPECT(in, want);
    EXPECT(tiny, tiny_want);
}

/* ---- real maps ------------------------------------------------------------------ */

/* QEMU 7.2 q35, 8 GiB, PVH boot on an AMD CPU, exactly as handed over: RAM
 * above 1 MiB and above 4 GiB comes last, and the HyperTransport hole at
 * 1012 GiB is reported though no RAM comes near it. */
static void test_qemu_q35_pvh(void **state)
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
    static const struct mmap_entry want[] = {
        E(0, 0x9fc00, RAM),
        E(0x9fc00, 0xa0000, RSV),
        E(0xd0000, 0xf0000, NVS),
        E(0xf0000, 0x100000, RSV),
        E(0x100000, 0x80000000, RAM),
        E(0xb0000000, 0xc0000000, RSV),
        E(0x100000000, 0x280000000, RAM),
        E(0xfd00000000, 0x10000000000, RSV),
    };
    (void)state;
    EXPECT(in, want);
}

/* OVMF with 2 GiB, the shape of its EFI map as GRUB converts it: boot-time
 * and free memory in adjacent RAM runs, runtime code as type 20, runtime data
 * as reserved, ACPI tables and NVS between. */
static void test_ovmf_fragmented(void **state)
{
    static const struct mmap_entry in[] = {
        E(0, 0x1000, RAM),
        E(0x1000, 0x9f000, RAM),
        E(0x9f000, 0xa0000, RAM),
        E(0x100000, 0x400000, RAM),
        E(0x400000, 0x600000, RAM),
        E(0x600000, 0x806000, RAM),
        E(0x806000, 0x808000, NVS),
        E(0x808000, 0x80b000, RAM),
        E(0x80b000, 0x810000, RAM),
        E(0x810000, 0x900000, NVS),
        E(0x900000, 0x1000000, RAM),
        E(0x1000000, 0x3e000000, RAM),
        E(0x3e000000, 0x7e000000, RAM),
        E(0x7e000000, 0x7eaa0000, RAM),
        E(0x7eaa0000, 0x7eb00000, RSV),
        E(0x7eb00000, 0x7eba2000, RSV),
        E(0x7eba2000, 0x7f000000, RAM),
        E(0x7f000000, 0x7f4ec000, RAM),
        E(0x7f4ec000, 0x7f5ec000, RSV),
        E(0x7f5ec000, 0x7f66c000, GRUB_CODE),
        E(0x7f66c000, 0x7f6ec000, GRUB_CODE),
        E(0x7f6ec000, 0x7f76c000, RSV),
        E(0x7f76c000, 0x7f77e000, ACPI),
        E(0x7f77e000, 0x7f7fe000, NVS),
        E(0x7f7fe000, 0x7fa00000, RAM),
        E(0x7fa00000, 0x7fef4000, RAM),
        E(0x7fef4000, 0x7ff00000, RSV),
        E(0x7ff00000, 0x7ff78000, GRUB_CODE),
        E(0x7ff78000, 0x7ffd0000, NVS),
        E(0x7ffd0000, 0x80000000, NVS),
        E(0xb0000000, 0xc0000000, RSV),
        E(0xffc00000, 0x100000000, RSV),
    };
    /* What the kernel printed for this machine's map. */
    static const struct mmap_entry want[] = {
        E(0, 0xa0000, RAM),
        E(0x100000, 0x806000, RAM),
        E(0x806000, 0x808000, NVS),
        E(0x808000, 0x810000, RAM),
        E(0x810000, 0x900000, NVS),
        E(0x900000, 0x7eaa0000, RAM),
        E(0x7eaa0000, 0x7eba2000, RSV),
        E(0x7eba2000, 0x7f4ec000, RAM),
        E(0x7f4ec000, 0x7f76c000, RSV),
        E(0x7f76c000, 0x7f77e000, ACPI),
        E(0x7f77e000, 0x7f7fe000, NVS),
        E(0x7f7fe000, 0x7fef4000, RAM),
        E(0x7fef4000, 0x7ff78000, RSV),
        E(0x7ff78000, 0x80000000, NVS),
        E(0xb0000000, 0xc0000000, RSV),
        E(0xffc00000, 0x100000000, RSV),
    };
    (void)state;
    EXPECT(in, want);
}

/* ---- limits ----------------------------------------------------------------------- */

static struct mmap_entry big_in[E820_MAX + 1];
static struct mmap_entry big_want[E820_MAX];

static void test_exactly_max(void **state)
{
    (void)state;
    /* E820_MAX pages alternating RAM and reserved, listed top down: as many out. */
    for (unsigned i = 0; i < E820_MAX; i++) {
        uint64_t a = (uint64_t)i << 12;
        uint32_t t = i % 2 ? RSV : RAM;
        big_in[E820_MAX - 1 - i] = (struct mmap_entry){ a, 0x1000, t };
        big_want[i] = (struct mmap_entry){ a, 0x1000, t };
    }
    expect_map(big_in, E820_MAX, big_want, E820_MAX);
}

static void test_too_many_in(void **state)
{
    (void)state;
    /* Counted before anything is read: even empty entries count. */
    memset(big_in, 0, sizeof(big_in));
    expect_error(big_in, E820_MAX + 1, "memory map has 8193 entries; the limit is 8192");
    assert_int_equal(out.count, 0);
    expect_error(big_in, 1000000, "memory map has 1000000 entries; the limit is 8192");
    expect_error(big_in, UINT32_MAX, "memory map has 4294967295 entries; the limit is 8192");
}

/* RAM over [0, pages) pages with a reserved page on every odd page number. */
static unsigned islands(unsigned pages)
{
    unsigned n = 0;

    big_in[n++] = (struct mmap_entry){ 0, (uint64_t)pages << 12, RAM };
    for (unsigned p = 1; p < pages; p += 2)
        big_in[n++] = (struct mmap_entry){ (uint64_t)p << 12, 0x1000, RSV };
    return n;
}

static void test_too_many_out(void **state)
{
    unsigned n;
    (void)state;
    /* 4097 in, 8192 out: the last reserved page ends the map. */
    n = islands(E820_MAX);
    assert_int_equal(n, E820_MAX / 2 + 1);
    for (unsigned i = 0; i < E820_MAX; i++)
        big_want[i] = (struct mmap_entry){ (uint64_t)i << 12, 0x1000, i % 2 ? RSV : RAM };
    expect_map(big_in, n, big_want, E820_MAX);
    /* One more page of RAM after it needs an 8193rd entry. */
    n = islands(E820_MAX + 1);
    assert_int_equal(n, E820_MAX / 2 + 1);
    expect_error(big_in, n, "sanitised memory map needs more than 8192 entries");
    /* The most the input limit allows: 1 RAM + 8191 islands, 16383 out. */
    n = islands(2 * E820_MAX - 2);
    assert_int_equal(n, E820_MAX);
    expect_error(big_in, n, "sanitised memory map needs more than 8192 entries");
}

static void test_error_without_message(void **state)
{
    (void)state;
    memset(big_in, 0, sizeof(big_in));
    /* A caller that needs no reason passes no struct err: the errno alone. */
    assert_int_equal(e820_sanitise(big_in, E820_MAX + 1, &out, NULL), -E2BIG);
    assert_int_equal(out.count, 0);
}

static void test_type_names(void **state)
{
    (void)state;
    assert_string_equal(e820_type_name(RAM), "RAM");
    assert_string_equal(e820_type_name(RSV), "reserved");
    assert_string_equal(e820_type_name(ACPI), "ACPI");
    assert_string_equal(e820_type_name(NVS), "NVS");
    assert_string_equal(e820_type_name(BAD), "unusable");
    assert_string_equal(e820_type_name(GRUB_CODE), "other");
    assert_string_equal(e820_type_name(0), "other");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_no_ram),
        cmocka_unit_test(test_ram_below_1mib),
        cmocka_unit_test(test_zero_length),
        cmocka_unit_test(test_unsorted),
        cmocka_unit_test(test_overlapping_ram),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_ram_inside_reserved),
        cmocka_unit_test(test_reserved_inside_ram),
        cmocka_unit_test(test_wrapping),
        cmocka_unit_test(test_unaligned),
        cmocka_unit_test(test_1tib),
        cmocka_unit_test(test_hole_3_4gib),
        cmocka_unit_test(test_covering_entry),
        cmocka_unit_test(test_three_way),
        cmocka_unit_test(test_priority),
        cmocka_unit_test(test_touching),
        cmocka_unit_test(test_unknown_types),
        cmocka_unit_test(test_acpi_nvs_overlap),
        cmocka_unit_test(test_address_extremes),
        cmocka_unit_test(test_qemu_q35_pvh),
        cmocka_unit_test(test_ovmf_fragmented),
        cmocka_unit_test(test_exactly_max),
        cmocka_unit_test(test_too_many_in),
        cmocka_unit_test(test_too_many_out),
        cmocka_unit_test(test_error_without_message),
        cmocka_unit_test(test_type_names),
    };
    return cmocka_run_group_tests_name("e820", tests, NULL, NULL);
}
