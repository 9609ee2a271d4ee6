// SPDX-License-Identifier: MIT
// Host tests for mm/bootmem.c, the Xen-style boot allocator: every step
// asserts the exact region list it leaves behind.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kernel/lib/errno.h"
#include "mm/bootmem.h"

static struct bootmem bm;

static void print_regions(const char *title, const struct bootmem_region *r, unsigned n)
{
    print_error("%s (%u regions):\n", title, n);
    for (unsigned i = 0; i < n; i++)
        print_error("  [%#llx, %#llx)\n", (unsigned long long)r[i].s, (unsigned long long)r[i].e);
}

/* Compares the whole list, and shows both lists when they differ. */
static void expect_regions(const struct bootmem *b, const struct bootmem_region *want, unsigned n)
{
    bool same = b->nr == n;

    for (unsigned i = 0; same && i < n; i++)
        same = b->r[i].s == want[i].s && b->r[i].e == want[i].e;
    if (!same) {
        print_regions("got", b->r, b->nr);
        print_regions("want", want, n);
        fail_msg("boot allocator regions differ");
    }
}

#define REGIONS(...) ((const struct bootmem_region[]){ __VA_ARGS__ })
#define EXPECT(b, ...) \
    expect_regions((b), REGIONS(__VA_ARGS__), sizeof(REGIONS(__VA_ARGS__)) / sizeof(struct bootmem_region))
#define EXPECT_EMPTY(b) expect_regions((b), NULL, 0)

/* Fills the list to capacity with three-page regions [4k, 4k + 3), so each can be split. */
static void fill(struct bootmem *b)
{
    bootmem_reset(b);
    for (uint64_t k = 0; k < BOOTMEM_MAX_REGIONS; k++)
        assert_int_equal(bootmem_add(b, 4 * k, 4 * k + 3), 0);
    assert_int_equal(b->nr, BOOTMEM_MAX_REGIONS);
}

static bool same_list(const struct bootmem *a, const struct bootmem *b)
{
    return a->nr == b->nr && !memcmp(a->r, b->r, a->nr * sizeof(a->r[0]));
}

static int setup(void **state)
{
    (void)state;
    /* Stale contents must not matter after a reset. */
    memset(&bm, 0xa5, sizeof(bm));
    bootmem_reset(&bm);
    return 0;
}

/* ---- add ------------------------------------------------------------------- */

static void test_add_sorted(void **state)
{
    (void)state;
    EXPECT_EMPTY(&bm);
    assert_int_equal(bootmem_add(&bm, 100, 200), 0);
    assert_int_equal(bootmem_add(&bm, 10, 20), 0);          /* before the first */
    assert_int_equal(bootmem_add(&bm, 1000, 1001), 0);      /* after the last */
    assert_int_equal(bootmem_add(&bm, 50, 60), 0);          /* between two */
    EXPECT(&bm, { 10, 20 }, { 50, 60 }, { 100, 200 }, { 1000, 1001 });
    assert_int_equal(bootmem_pages(&bm), 10 + 10 + 100 + 1);
}

static void test_add_adjacent_not_merged(void **state)
{
    (void)state;
    /* Regions that touch stay separate, as in Xen: the list is not merged. */
    assert_int_equal(bootmem_add(&bm, 20, 30), 0);
    assert_int_equal(bootmem_add(&bm, 10, 20), 0);
    assert_int_equal(bootmem_add(&bm, 30, 40), 0);
    EXPECT(&bm, { 10, 20 }, { 20, 30 }, { 30, 40 });
}

static void test_add_overlap_rejected(void **state)
{
    (void)state;
    assert_int_equal(bootmem_add(&bm, 100, 200), 0);
    assert_int_equal(bootmem_add(&bm, 300, 400), 0);
    assert_int_equal(bootmem_add(&bm, 50, 101), -EINVAL);     /* over the front */
    assert_int_equal(bootmem_add(&bm, 199, 250), -EINVAL);    /* over the back */
    assert_int_equal(bootmem_add(&bm, 120, 130), -EINVAL);    /* inside */
    assert_int_equal(bootmem_add(&bm, 50, 500), -EINVAL);     /* over both */
    assert_int_equal(bootmem_add(&bm, 100, 200), -EINVAL);    /* identical */
    assert_int_equal(bootmem_add(&bm, 250, 301), -EINVAL);    /* gap into the second */
    EXPECT(&bm, { 100, 200 }, { 300, 400 });
    /* The gap itself is fine, edge to edge. */
    assert_int_equal(bootmem_add(&bm, 200, 300), 0);
    EXPECT(&bm, { 100, 200 }, { 200, 300 }, { 300, 400 });
}

static void test_add_empty_ignored(void **state)
{
    (void)state;
    assert_int_equal(bootmem_add(&bm, 5, 5), 0);
    assert_int_equal(bootmem_add(&bm, 9, 3), 0);              /* backwards */
    EXPECT_EMPTY(&bm);
    assert_int_equal(bootmem_add(&bm, 0, 10), 0);
    assert_int_equal(bootmem_add(&bm, 5, 5), 0);              /* empty, inside a region */
    EXPECT(&bm, { 0, 10 });
}

static void test_add_full(void **state)
{
    struct bootmem before;
    (void)state;
    fill(&bm);
    before = bm;
    assert_int_equal(bootmem_add(&bm, 4 * BOOTMEM_MAX_REGIONS, 4 * BOOTMEM_MAX_REGIONS + 1), -ENOSPC);
    assert_int_equal(bootmem_add(&bm, 3, 4), -ENOSPC);        /* the first gap */
    /* An overlap is still reported as such, and an empty range still ignored. */
    assert_int_equal(bootmem_add(&bm, 2, 4), -EINVAL);
    assert_int_equal(bootmem_add(&bm, 3, 3), 0);
    assert_true(same_list(&bm, &before));
    assert_int_equal(bootmem_pages(&bm), 3 * BOOTMEM_MAX_REGIONS);
}

static void test_add_extremes(void **state)
{
    (void)state;
    /* MFN 0 and the top of the 64-bit MFN space are ordinary values here. */
    assert_int_equal(bootmem_add(&bm, UINT64_MAX - 1, UINT64_MAX), 0);
    assert_int_equal(bootmem_add(&bm, 0, 1), 0);
    EXPECT(&bm, { 0, 1 }, { UINT64_MAX - 1, UINT64_MAX });
    assert_int_equal(bootmem_pages(&bm), 2);
}

/* ---- zap ------------------------------------------------------------------- */

static void test_zap_front_back_whole(void **state)
{
    (void)state;
    assert_int_equal(bootmem_add(&bm, 100, 200), 0);
    assert_int_equal(bootmem_add(&bm, 300, 400), 0);
    assert_int_equal(bootmem_add(&bm, 500, 600), 0);

    assert_int_equal(bootmem_zap(&bm, 90, 110), 0);           /* front, starting in a gap */
    EXPECT(&bm, { 110, 200 }, { 300, 400 }, { 500, 600 });
    assert_int_equal(bootmem_zap(&bm, 100, 120), 0);          /* front, from the old start */
    EXPECT(&bm, { 120, 200 }, { 300, 400 }, { 500, 600 });
    assert_int_equal(bootmem_zap(&bm, 350, 450), 0);          /* back, ending in a gap */
    EXPECT(&bm, { 120, 200 }, { 300, 350 }, { 500, 600 });
    assert_int_equal(bootmem_zap(&bm, 340, 350), 0);          /* back, exactly to the end */
    EXPECT(&bm, { 120, 200 }, { 300, 340 }, { 500, 600 });
    assert_int_equal(bootmem_zap(&bm, 300, 340), 0);          /* whole, exactly */
    EXPECT(&bm, { 120, 200 }, { 500, 600 });
    assert_int_equal(bootmem_zap(&bm, 0, 1000), 0);           /* whole, with margin */
    EXPECT_EMPTY(&bm);
}

static void test_zap_noop(void **state)
{
    (void)state;
    assert_int_equal(bootmem_add(&bm, 100, 200), 0);
    assert_int_equal(bootmem_add(&bm, 300, 400), 0);
    assert_int_equal(bootmem_zap(&bm, 200, 300), 0);          /* exactly the gap */
    assert_int_equal(bootmem_zap(&bm, 0, 100), 0);            /* below, touching */
    assert_int_equal(bootmem_zap(&bm, 400, 1000), 0);         /* above, touching */
    assert_int_equal(bootmem_zap(&bm, 150, 150), 0);          /* empty */
    assert_int_equal(bootmem_zap(&bm, 160, 140), 0);          /* backwards */
    EXPECT(&bm, { 100, 200 }, { 300, 400 });
    bootmem_reset(&bm);
    assert_int_equal(bootmem_zap(&bm, 0, UINT64_MAX), 0);     /* empty list */
    EXPECT_EMPTY(&bm);
}

static void test_zap_middle_split(void **state)
{
    (void)state;
    assert_int_equal(bootmem_add(&bm, 100, 200), 0);
    assert_int_equal(bootmem_add(&bm, 300, 400), 0);
    assert_int_equal(bootmem_zap(&bm, 120, 130), 0);
    EXPECT(&bm, { 100, 120 }, { 130, 200 }, { 300, 400 });
    assert_int_equal(bootmem_zap(&bm, 301, 399), 0);          /* one page left either side */
    EXPECT(&bm, { 100, 120 }, { 130, 200 }, { 300, 301 }, { 399, 400 });
    assert_int_equal(bootmem_pages(&bm), 20 + 70 + 1 + 1);
}

static void test_zap_spanning(void **state)
{
    (void)state;
    assert_int_equal(bootmem_add(&bm, 10, 20), 0);
    assert_int_equal(bootmem_add(&bm, 100, 200), 0);
    assert_int_equal(bootmem_add(&bm, 210, 220), 0);
    assert_int_equal(bootmem_add(&bm, 230, 240), 0);
    assert_int_equal(bootmem_add(&bm, 300, 400), 0);
    assert_int_equal(bootmem_add(&bm, 500, 510), 0);
    /* Back of one, two whole ones, front of another; the outer two untouched. */
    assert_int_equal(bootmem_zap(&bm, 150, 350), 0);
    EXPECT(&bm, { 10, 20 }, { 100, 150 }, { 350, 400 }, { 500, 510 });
    /* Adjacent regions: the zap crosses the shared edge. */
    bootmem_reset(&bm);
    assert_int_equal(bootmem_add(&bm, 0, 10), 0);
    assert_int_equal(bootmem_add(&bm, 10, 20), 0);
    assert_int_equal(bootmem_zap(&bm, 5, 15), 0);
    EXPECT(&bm, { 0, 5 }, { 15, 20 });
}

static void test_zap_split_full(void **state)
{
    static struct bootmem before, want;
    (void)state;
    fill(&bm);
    before = bm;
    /* A split of [400, 403) needs a slot; there is none, and nothing moves. */
    assert_int_equal(bootmem_zap(&bm, 401, 402), -ENOSPC);
    assert_true(same_list(&bm, &before));
    /* Cuts that need no slot still work on a full list. */
    assert_int_equal(bootmem_zap(&bm, 400, 401), 0);          /* front of [400, 403) */
    assert_int_equal(bootmem_zap(&bm, 406, 407), 0);          /* back of [404, 407) */
    assert_int_equal(bm.nr, BOOTMEM_MAX_REGIONS);
    /* Removing a whole region frees a slot, and then a split fits. */
    assert_int_equal(bootmem_zap(&bm, 0, 3), 0);
    assert_int_equal(bm.nr, BOOTMEM_MAX_REGIONS - 1);
    assert_int_equal(bootmem_zap(&bm, 409, 410), 0);          /* middle of [408, 411) */
    assert_int_equal(bm.nr, BOOTMEM_MAX_REGIONS);

    bootmem_reset(&want);
    for (uint64_t k = 1; k < BOOTMEM_MAX_REGIONS; k++) {
        if (k == 100)
            assert_int_equal(bootmem_add(&want, 401, 403), 0);
        else if (k == 101)
            assert_int_equal(bootmem_add(&want, 404, 406), 0);
        else if (k == 102) {
            assert_int_equal(bootmem_add(&want, 408, 409), 0);
            assert_int_equal(bootmem_add(&want, 410, 411), 0);
        } else
            assert_int_equal(bootmem_add(&want, 4 * k, 4 * k + 3), 0);
    }
    expect_regions(&bm, want.r, want.nr);
    assert_int_equal(bootmem_pages(&bm), 3 * BOOTMEM_MAX_REGIONS - 3 - 1 - 1 - 1);
    /* Full again: the next split is refused. */
    assert_int_equal(bootmem_zap(&bm, 501, 502), -ENOSPC);
    expect_regions(&bm, want.r, want.nr);
}

/* ---- alloc ----------------------------------------------------------------- */

/* An MFN no allocation here can return: shows that a failure left *mfn alone. */
#define UNTOUCHED 0xdeadbeefull

static void test_alloc_from_top(void **state)
{
    uint64_t mfn;
    (void)state;
    assert_int_equal(bootmem_add(&bm, 100, 200), 0);
    assert_int_equal(bootmem_add(&bm, 300, 400), 0);
    assert_int_equal(bootmem_alloc(&bm, 10, 1, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 390);
    EXPECT(&bm, { 100, 200 }, { 300, 390 });
    /* The rest of the highest region, exactly: the region goes away. */
    assert_int_equal(bootmem_alloc(&bm, 90, 1, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 300);
    EXPECT(&bm, { 100, 200 });
    assert_int_equal(bootmem_alloc(&bm, 1, 1, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 199);
    EXPECT(&bm, { 100, 199 });
    assert_int_equal(bootmem_pages(&bm), 99);
}

static void test_alloc_align(void **state)
{
    uint64_t mfn;
    (void)state;
    assert_int_equal(bootmem_add(&bm, 100, 1000), 0);
    /* 990 rounds down to 960: pages 970..999 stay free as their own region. */
    assert_int_equal(bootmem_alloc(&bm, 10, 64, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 960);
    EXPECT(&bm, { 100, 960 }, { 970, 1000 });
    /* That remainder is now the highest region and is used first. */
    assert_int_equal(bootmem_alloc(&bm, 30, 1, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 970);
    EXPECT(&bm, { 100, 960 });
    /* An aligned block at the very start of a region: the rest stays in it. */
    bootmem_reset(&bm);
    assert_int_equal(bootmem_add(&bm, 128, 140), 0);
    assert_int_equal(bootmem_alloc(&bm, 4, 128, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 128);
    EXPECT(&bm, { 132, 140 });
    /* The largest power of two is a valid alignment. */
    bootmem_reset(&bm);
    assert_int_equal(bootmem_add(&bm, 0, 10), 0);
    assert_int_equal(bootmem_alloc(&bm, 2, 1ull << 63, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 0);
    EXPECT(&bm, { 2, 10 });
    /* 512-page alignment as the frame table asks for it. */
    bootmem_reset(&bm);
    assert_int_equal(bootmem_add(&bm, 0x264, 0x7fffb), 0);
    assert_int_equal(bootmem_alloc(&bm, 0x4000, 512, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 0x7be00);
    EXPECT(&bm, { 0x264, 0x7be00 }, { 0x7fe00, 0x7fffb });
}

static void test_alloc_fallback(void **state)
{
    uint64_t mfn;
    (void)state;
    assert_int_equal(bootmem_add(&bm, 0x100, 0x200), 0);
    assert_int_equal(bootmem_add(&bm, 0x300, 0x308), 0);
    /* Too big for the highest region. */
    assert_int_equal(bootmem_alloc(&bm, 16, 1, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 0x1f0);
    EXPECT(&bm, { 0x100, 0x1f0 }, { 0x300, 0x308 });
    /* Fits the highest region only at its aligned start. */
    assert_int_equal(bootmem_alloc(&bm, 4, 16, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 0x300);
    EXPECT(&bm, { 0x100, 0x1f0 }, { 0x304, 0x308 });
    /* Now alignment rules the highest region out; the lower one is split. */
    assert_int_equal(bootmem_alloc(&bm, 4, 16, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 0x1e0);
    EXPECT(&bm, { 0x100, 0x1e0 }, { 0x1e4, 0x1f0 }, { 0x304, 0x308 });
}

static void test_alloc_limit(void **state)
{
    uint64_t mfn;
    (void)state;
    assert_int_equal(bootmem_add(&bm, 0x100, 0x1000), 0);
    assert_int_equal(bootmem_add(&bm, 0x2000, 0x3000), 0);
    /* Wholly above the limit: skipped. Straddling it: pages just below it. */
    assert_int_equal(bootmem_alloc(&bm, 0x10, 1, 0x800, &mfn), 0);
    assert_int_equal(mfn, 0x7f0);
    EXPECT(&bm, { 0x100, 0x7f0 }, { 0x800, 0x1000 }, { 0x2000, 0x3000 });
    /* Just enough room below the limit: from the region's front. */
    assert_int_equal(bootmem_alloc(&bm, 0x10, 1, 0x2010, &mfn), 0);
    assert_int_equal(mfn, 0x2000);
    EXPECT(&bm, { 0x100, 0x7f0 }, { 0x800, 0x1000 }, { 0x2010, 0x3000 });
    /* A limit equal to the region's end does not cut anything. */
    assert_int_equal(bootmem_alloc(&bm, 1, 1, 0x3000, &mfn), 0);
    assert_int_equal(mfn, 0x2fff);
    EXPECT(&bm, { 0x100, 0x7f0 }, { 0x800, 0x1000 }, { 0x2010, 0x2fff });
    /* The one page below a limit of 0x101. */
    assert_int_equal(bootmem_alloc(&bm, 1, 1, 0x101, &mfn), 0);
    assert_int_equal(mfn, 0x100);
    EXPECT(&bm, { 0x101, 0x7f0 }, { 0x800, 0x1000 }, { 0x2010, 0x2fff });
    /* Nothing below the limit. */
    mfn = UNTOUCHED;
    assert_int_equal(bootmem_alloc(&bm, 1, 1, 0x101, &mfn), -ENOMEM);
    assert_int_equal(bootmem_alloc(&bm, 1, 1, 0, &mfn), -ENOMEM);
    assert_int_equal(bootmem_alloc(&bm, 2, 1, 0x102, &mfn), -ENOMEM);
    assert_int_equal(mfn, UNTOUCHED);
    EXPECT(&bm, { 0x101, 0x7f0 }, { 0x800, 0x1000 }, { 0x2010, 0x2fff });
}

static void test_alloc_nomem(void **state)
{
    uint64_t mfn = UNTOUCHED;
    (void)state;
    assert_int_equal(bootmem_alloc(&bm, 1, 1, UINT64_MAX, &mfn), -ENOMEM);  /* empty */
    assert_int_equal(bootmem_add(&bm, 100, 110), 0);
    assert_int_equal(bootmem_add(&bm, 200, 205), 0);
    assert_int_equal(bootmem_alloc(&bm, 11, 1, UINT64_MAX, &mfn), -ENOMEM);
    assert_int_equal(bootmem_alloc(&bm, 15, 1, UINT64_MAX, &mfn), -ENOMEM);  /* the sum */
    /* Big enough, but no aligned block inside either region. */
    assert_int_equal(bootmem_alloc(&bm, 8, 8, UINT64_MAX, &mfn), -ENOMEM);
    assert_int_equal(bootmem_alloc(&bm, 1, 256, UINT64_MAX, &mfn), -ENOMEM);
    assert_int_equal(bootmem_alloc(&bm, UINT64_MAX, 1, UINT64_MAX, &mfn), -ENOMEM);
    assert_int_equal(mfn, UNTOUCHED);
    EXPECT(&bm, { 100, 110 }, { 200, 205 });
}

static void test_alloc_einval(void **state)
{
    uint64_t mfn = UNTOUCHED;
    (void)state;
    assert_int_equal(bootmem_add(&bm, 0, 1000), 0);
    assert_int_equal(bootmem_alloc(&bm, 0, 1, UINT64_MAX, &mfn), -EINVAL);
    assert_int_equal(bootmem_alloc(&bm, 1, 0, UINT64_MAX, &mfn), -EINVAL);
    assert_int_equal(bootmem_alloc(&bm, 1, 3, UINT64_MAX, &mfn), -EINVAL);
    assert_int_equal(bootmem_alloc(&bm, 1, 6, UINT64_MAX, &mfn), -EINVAL);
    assert_int_equal(bootmem_alloc(&bm, 1, (1ull << 63) | 1, UINT64_MAX, &mfn), -EINVAL);
    assert_int_equal(bootmem_alloc(&bm, 1, UINT64_MAX, UINT64_MAX, &mfn), -EINVAL);
    assert_int_equal(mfn, UNTOUCHED);
    EXPECT(&bm, { 0, 1000 });
}

static void test_alloc_split_full(void **state)
{
    static struct bootmem before;
    uint64_t mfn = UNTOUCHED;
    (void)state;
    fill(&bm);
    bm.r[BOOTMEM_MAX_REGIONS - 1].e++;      /* [1020, 1024) */
    before = bm;
    /* 1023 rounds down to 1022: page 1023 would need a slot of its own. */
    assert_int_equal(bootmem_alloc(&bm, 1, 2, UINT64_MAX, &mfn), -ENOSPC);
    assert_int_equal(mfn, UNTOUCHED);
    assert_true(same_list(&bm, &before));
    /* Allocations that need no slot still work. */
    assert_int_equal(bootmem_alloc(&bm, 1, 1, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 1023);
    assert_int_equal(bootmem_alloc(&bm, 2, 4, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 1020);
    assert_int_equal(bm.nr, BOOTMEM_MAX_REGIONS);
    assert_int_equal(bm.r[BOOTMEM_MAX_REGIONS - 1].s, 1022);
    assert_int_equal(bm.r[BOOTMEM_MAX_REGIONS - 1].e, 1023);
}

/* ---- pages and contains ------------------------------------------------------ */

/* Sealed, the allocator hands out nothing, and its regions stay as they were. */
static void test_alloc_sealed(void **state)
{
    uint64_t mfn = 0xdead;
    (void)state;
    assert_int_equal(bootmem_add(&bm, 0x100, 0x200), 0);
    bootmem_seal(&bm);
    assert_int_equal(bootmem_alloc(&bm, 1, 1, UINT64_MAX, &mfn), -EPERM);
    assert_int_equal(mfn, 0xdead);
    EXPECT(&bm, { 0x100, 0x200 });
    /* A reset unseals. */
    bootmem_reset(&bm);
    assert_int_equal(bootmem_add(&bm, 0x100, 0x200), 0);
    assert_int_equal(bootmem_alloc(&bm, 1, 1, UINT64_MAX, &mfn), 0);
    assert_int_equal(mfn, 0x1ff);
}

static void test_pages(void **state)
{
    (void)state;
    assert_int_equal(bootmem_pages(&bm), 0);
    assert_int_equal(bootmem_add(&bm, 0, 1ull << 32), 0);   /* 16 TiB of pages */
    assert_int_equal(bootmem_add(&bm, 1ull << 40, (1ull << 40) + 3), 0);
    assert_int_equal(bootmem_pages(&bm), (1ull << 32) + 3);
    assert_int_equal(bootmem_zap(&bm, 1, (1ull << 32) - 1), 0);
    assert_int_equal(bootmem_pages(&bm), 5);
    EXPECT(&bm, { 0, 1 }, { (1ull << 32) - 1, 1ull << 32 }, { 1ull << 40, (1ull << 40) + 3 });
}

static void test_contains(void **state)
{
    (void)state;
    assert_false(bootmem_contains(&bm, 0, 1));              /* empty list */
    assert_true(bootmem_contains(&bm, 5, 5));               /* empty range */
    assert_int_equal(bootmem_add(&bm, 100, 200), 0);
    assert_int_equal(bootmem_add(&bm, 200, 300), 0);        /* adjacent */
    assert_int_equal(bootmem_add(&bm, 400, 500), 0);
    assert_true(bootmem_contains(&bm, 100, 200));
    assert_true(bootmem_contains(&bm, 150, 160));
    assert_true(bootmem_contains(&bm, 100, 101));
    assert_true(bootmem_contains(&bm, 499, 500));
    assert_false(bootmem_contains(&bm, 99, 101));
    assert_false(bootmem_contains(&bm, 499, 501));
    assert_false(bootmem_contains(&bm, 300, 301));          /* the gap */
    assert_false(bootmem_contains(&bm, 250, 450));          /* across the gap */
    assert_false(bootmem_contains(&bm, 100, 500));
    assert_false(bootmem_contains(&bm, 600, 700));
    /* Every page of these is free, though they run across two regions. */
    assert_true(bootmem_contains(&bm, 150, 250));
    assert_true(bootmem_contains(&bm, 100, 300));
    assert_true(bootmem_contains(&bm, 350, 350));
    assert_true(bootmem_contains(&bm, 360, 340));           /* backwards is empty */
    /* Allocated pages are no longer contained. */
    uint64_t mfn;
    assert_int_equal(bootmem_alloc(&bm, 10, 1, UINT64_MAX, &mfn), 0);
    assert_false(bootmem_contains(&bm, 490, 491));
    assert_true(bootmem_contains(&bm, 400, 490));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_add_sorted, setup),
        cmocka_unit_test_setup(test_add_adjacent_not_merged, setup),
        cmocka_unit_test_setup(test_add_overlap_rejected, setup),
        cmocka_unit_test_setup(test_add_empty_ignored, setup),
        cmocka_unit_test_setup(test_add_full, setup),
        cmocka_unit_test_setup(test_add_extremes, setup),
        cmocka_unit_test_setup(test_zap_front_back_whole, setup),
        cmocka_unit_test_setup(test_zap_noop, setup),
        cmocka_unit_test_setup(test_zap_middle_split, setup),
        cmocka_unit_test_setup(test_zap_spanning, setup),
        cmocka_unit_test_setup(test_zap_split_full, setup),
        cmocka_unit_test_setup(test_alloc_from_top, setup),
        cmocka_unit_test_setup(test_alloc_align, setup),
        cmocka_unit_test_setup(test_alloc_fallback, setup),
        cmocka_unit_test_setup(test_alloc_limit, setup),
        cmocka_unit_test_setup(test_alloc_nomem, setup),
        cmocka_unit_test_setup(test_alloc_einval, setup),
        cmocka_unit_test_setup(test_alloc_split_full, setup),
        cmocka_unit_test_setup(test_alloc_sealed, setup),
        cmocka_unit_test_setup(test_pages, setup),
        cmocka_unit_test_setup(test_contains, setup),
    };
    return cmocka_run_group_tests_name("bootmem", tests, NULL, NULL);
}
