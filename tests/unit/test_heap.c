// SPDX-License-Identifier: MIT
// Host tests of the buddy heap and every init strategy over synthetic
// region lists: exact block sets, equal digests, green audits, allocation,
// a seeded random stress, and the lazy strategy's own cases.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/heap_priv.h"
#include "tests/unit/host_support.h"


static uint64_t *bitmap;

/* A fresh world: frame table and M2P for max frames, the given free regions. */
static void world(const struct bootmem_region *r, unsigned n, uint64_t frames)
{
    bitmap = host_frames(frames);
    host_heap_world(r, n);
}

static const struct heap_strategy *strategy(const char *name)
{
    const struct heap_strategy *s = heap_strategy_find(name, strlen(name));
    assert_non_null(s);
    return s;
}

static const char *const all[] = { "page", "chunk", "chunk-72b02bc", "sweep", "lazy" };
#define NR_ALL (sizeof(all) / sizeof(all[0]))

/* Builds the heap with s and returns its digest after a green audit. */
static uint64_t build(const char *name)
{
    struct heap_audit a;

    heap_reset();
    end_boot_allocator(&heap_default, strategy(name));
    if (!heap_audit(&a)) {
        for (unsigned i = 0; i < a.nerrors && i < AUDIT_MAX_ERRORS; i++)
            fprintf(stderr, "audit (%s): %s\n", name, a.errors[i]);
        fail_msg("audit failed after %s", name);
    }
    assert_int_equal(a.free_pages, heap_handover_pages());
    return a.digest;
}

/* Every strategy builds the same heap; returns its digest. */
static uint64_t all_equal(void)
{
    uint64_t d = build("page");

    for (unsigned i = 1; i < NR_ALL; i++) {
        uint64_t di = build(all[i]);
        if (di != d)
            fail_msg("digest of %s is %llx, page gave %llx", all[i], (unsigned long long)di,
                     (unsigned long long)d);
    }
    return d;
}

struct blk { uint64_t mfn; unsigned order; };

static int cmp_blk(const void *a, const void *b)
{
    const struct blk *x = a, *y = b;
    return x->mfn < y->mfn ? -1 : x->mfn > y->mfn;
}

/* The free blocks, sorted by MFN. */
static unsigned blocks(struct blk *out, unsigned max)
{
    unsigned n = 0;

    for (unsigned node = 0; node < MAX_NUMNODES; node++)
        for (unsigned zone = 0; zone < NR_ZONES; zone++)
            for (unsigned order = 0; order <= MAX_ORDER; order++)
                for (struct page_info *pg = heap(&heap_default, node, zone, order).next; pg; pg = pl_page(pg->list.next)) {
                    assert_true(n < max);
                    out[n++] = (struct blk){ page_to_mfn(pg), order };
                }
    qsort(out, n, sizeof(*out), cmp_blk);
    return n;
}

static void expect_blocks(const char *name, const struct blk *want, unsigned nwant)
{
    struct blk got[64];

    build(name);
    unsigned n = blocks(got, 64);
    assert_int_equal(n, nwant);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(got[i].mfn, want[i].mfn);
        assert_int_equal(got[i].order, want[i].order);
    }
}

static void expect_all(const struct bootmem_region *r, unsigned nr, uint64_t frames,
                       const struct blk *want, unsigned nwant)
{
    world(r, nr, frames);
    for (unsigned i = 0; i < NR_ALL; i++)
        expect_blocks(all[i], want, nwant);
}

static void test_exact_small(void **state)
{
    (void)state;
    /* MFNs 1..15: 1 + 2 + 4 + 8. */
    const struct bootmem_region r1[] = { { 1, 16 } };
    const struct blk b1[] = { { 1, 0 }, { 2, 1 }, { 4, 2 }, { 8, 3 } };
    expect_all(r1, 1, 64, b1, 4);

    /* A region starting at MFN 0: MFN 0 stays out. */
    const struct bootmem_region r2[] = { { 0, 8 } };
    const struct blk b2[] = { { 1, 0 }, { 2, 1 }, { 4, 2 } };
    expect_all(r2, 1, 64, b2, 3);

    /* Ending one page short of alignment: 0x40..0x7f without 0x7f. */
    const struct bootmem_region r3[] = { { 0x40, 0x7f } };
    const struct blk b3[] = { { 0x40, 5 }, { 0x60, 4 }, { 0x70, 3 }, { 0x78, 2 }, { 0x7c, 1 }, { 0x7e, 0 } };
    expect_all(r3, 1, 256, b3, 6);

    /* A hole in the middle and odd alignment on both sides. */
    const struct bootmem_region r4[] = { { 3, 9 }, { 11, 13 } };
    const struct blk b4[] = { { 3, 0 }, { 4, 2 }, { 8, 0 }, { 11, 0 }, { 12, 0 } };
    expect_all(r4, 2, 64, b4, 5);

    /* Two regions that touch merge into one block whoever goes first. */
    const struct bootmem_region r5[] = { { 0x100, 0x180 }, { 0x180, 0x200 } };
    const struct blk b5[] = { { 0x100, 8 } };
    expect_all(r5, 2, 0x400, b5, 1);

    /* Three touching regions with odd edges. */
    const struct bootmem_region r6[] = { { 0x21, 0x30 }, { 0x30, 0x33 }, { 0x33, 0x40 } };
    const struct blk b6[] = { { 0x21, 0 }, { 0x22, 1 }, { 0x24, 2 }, { 0x28, 3 }, { 0x30, 4 } };
    expect_all(r6, 3, 0x100, b6, 5);
}

/*
 * The blocks a fully merged buddy heap must hold, worked out without the
 * heap: regions that touch joined into runs, MFN 0 left out, runs cut at
 * the given node boundaries (sorted), and each run taken from its start in
 * the largest naturally aligned blocks of at most MAX_ORDER (18). Returns
 * how many blocks, sorted by MFN.
 */
static unsigned by_hand(const struct bootmem_region *r, unsigned n, const uint64_t *cuts, unsigned ncuts,
                        struct blk *out, unsigned max)
{
    struct bootmem_region runs[256];
    unsigned nruns = 0, nb = 0;

    for (unsigned i = 0; i < n; i++) {
        uint64_t s = r[i].s ? r[i].s : 1, e = r[i].e;
        if (s >= e)
            continue;
        if (nruns && runs[nruns - 1].e == s)
            runs[nruns - 1].e = e;          /* the test's regions come sorted */
        else
            runs[nruns++] = (struct bootmem_region){ s, e };
    }
    for (unsigned i = 0; i < nruns; i++) {
        uint64_t s = runs[i].s;
        while (s < runs[i].e) {
            uint64_t e = runs[i].e;
            for (unsigned c = 0; c < ncuts; c++)
                if (cuts[c] > s && cuts[c] < e)
                    e = cuts[c];
            unsigned order = 0;
            while (order < 18 && !(s & ((2ull << order) - 1)) && s + (2ull << order) <= e)
                order++;
            assert_true(nb < max);
            out[nb++] = (struct blk){ s, order };
            s += 1ull << order;
        }
    }
    return nb;
}

/* Every strategy's heap holds exactly the blocks by_hand() works out. */
static void expect_by_hand(const struct bootmem_region *r, unsigned n, const uint64_t *cuts,
                           unsigned ncuts)
{
    enum { MAXB = 8192 };
    struct blk *want = calloc(MAXB, sizeof(*want)), *got = calloc(MAXB, sizeof(*got));
    unsigned nwant = by_hand(r, n, cuts, ncuts, want, MAXB);

    for (unsigned k = 0; k < NR_ALL; k++) {
        build(all[k]);
        unsigned ngot = blocks(got, MAXB);
        if (ngot != nwant)
            fail_msg("%s: %u blocks, %u worked out by hand", all[k], ngot, nwant);
        for (unsigned i = 0; i < ngot; i++)
            if (got[i].mfn != want[i].mfn || got[i].order != want[i].order)
                fail_msg("%s: block %u is 0x%llx order %u, by hand 0x%llx order %u", all[k], i,
                         (unsigned long long)got[i].mfn, got[i].order,
                         (unsigned long long)want[i].mfn, want[i].order);
    }
    free(want);
    free(got);
}

static void test_exact_by_hand(void **state)
{
    (void)state;
    /* The maps the other tests only compare across strategies. */
    const struct bootmem_region irregular[] = {
        { 1, 0x9f }, { 0x100, 0x1ff }, { 0x260, 0x3f400 }, { 0x3fe00, 0x3ffef },
        { 0x40000, 0x40001 }, { 0x40002, 0x7ffff }, { 0x80000, 0x80800 },
    };
    world(irregular, 7, 0x100000);
    expect_by_hand(irregular, 7, NULL, 0);

    struct bootmem_region tiny[200];
    for (unsigned i = 0; i < 200; i++)
        tiny[i] = (struct bootmem_region){ 16 + 4 * i, 16 + 4 * i + 3 };
    world(tiny, 200, 1024);
    expect_by_hand(tiny, 200, NULL, 0);

    const struct bootmem_region stress[] = { { 1, 0x9f }, { 0x100, 0x1ff }, { 0x260, 0x8000 }, { 0x8001, 0x10000 } };
    world(stress, 4, 0x10000);
    expect_by_hand(stress, 4, NULL, 0);

    /* A node boundary stops merging; MAX_ORDER stops it too. */
    const struct bootmem_region nodes[] = { { 0x3ff00, 0x40200 }, { 0x40200, 0xc1234 } };
    const uint64_t cut[] = { 0x40000 };
    world(nodes, 2, 0x100000);
    numa_set_range(0x40000, 0x100000, 1);
    expect_by_hand(nodes, 2, cut, 1);
}

static void test_max_order_region(void **state)
{
    (void)state;
    /* One region of 2^20 pages: four MAX_ORDER blocks, all strategies. */
    const struct bootmem_region r[] = { { 1ull << 20, 2ull << 20 } };
    const struct blk b[] = {
        { 1ull << 20, 18 }, { (1ull << 20) + (1 << 18), 18 },
        { (1ull << 20) + (2 << 18), 18 }, { (1ull << 20) + (3 << 18), 18 },
    };
    expect_all(r, 1, 2ull << 20, b, 4);
}

static void test_many_tiny_regions(void **state)
{
    struct bootmem_region r[200];
    (void)state;
    /* 200 regions of three pages with one-page holes: nothing merges across. */
    for (unsigned i = 0; i < 200; i++)
        r[i] = (struct bootmem_region){ 16 + 4 * i, 16 + 4 * i + 3 };
    world(r, 200, 1024);
    all_equal();
}

static void test_irregular_regions(void **state)
{
    (void)state;
    const struct bootmem_region r[] = {
        { 1, 0x9f }, { 0x100, 0x1ff }, { 0x260, 0x3f400 }, { 0x3fe00, 0x3ffef },
        { 0x40000, 0x40001 }, { 0x40002, 0x7ffff }, { 0x80000, 0x80800 },
    };
    world(r, 7, 0x100000);
    all_equal();
}

static void test_node_boundaries(void **state)
{
    (void)state;
    /* Two nodes split at 1 GiB: blocks never cross, on every strategy. */
    const struct bootmem_region r[] = { { 0x3ff00, 0x40200 } };
    world(r, 1, 0x80000);
    numa_set_range(0x40000, 0x80000, 1);
    uint64_t d = all_equal();
    (void)d;
    struct blk b[64];
    unsigned n = blocks(b, 64);
    for (unsigned i = 0; i < n; i++) {
        uint64_t end = b[i].mfn + (1ull << b[i].order);
        assert_true(end <= 0x40000 || b[i].mfn >= 0x40000);
    }
    /* The node boundary stops the merge a single node would make. */
    assert_int_equal(b[n - 1].mfn, 0x40000);
    assert_int_equal(b[n - 1].order, 9);
}

static void test_alloc_all_free_all(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 1, 0x9f }, { 0x100, 0x1ff }, { 0x260, 0x2345 } };
    for (unsigned s = 0; s < 4; s++) {
        world(r, 3, 0x4000);
        uint64_t d = build(all[s]);
        uint64_t n = heap_free_count(), got = 0;
        uint32_t chain = PAGE_LIST_NULL;
        struct page_info *pg;
        /* Chain the pages through their list links, as first touch does. */
        while ((pg = heap_alloc_pages(0, NUMA_NO_NODE))) {
            pg->list.next = chain;
            chain = (uint32_t)page_to_mfn(pg);
            got++;
        }
        assert_int_equal(got, n);
        assert_int_equal(heap_free_count(), 0);
        while (chain != PAGE_LIST_NULL) {
            pg = mfn_to_page(chain);
            chain = pg->list.next;
            assert_int_equal(heap_free(pg, 0, false, NULL), 0);
        }
        struct heap_audit a;
        assert_true(heap_audit(&a));
        assert_int_equal(a.digest, d);
    }
}

/* The random state of host_xorshift64(), seeded per test. */
static uint64_t rng;

static void stress(const char *name, unsigned long ops)
{
    const struct bootmem_region r[] = { { 1, 0x9f }, { 0x100, 0x1ff }, { 0x260, 0x8000 }, { 0x8001, 0x10000 } };
    struct held { uint64_t mfn; unsigned order; } *held = calloc(0x10000, sizeof(*held));
    unsigned nheld = 0;
    struct heap_audit a;

    world(r, 4, 0x10000);
    uint64_t d = build(name);
    rng = 0x9e3779b97f4a7c15ull;
    for (unsigned long i = 0; i < ops; i++) {
        uint64_t x = host_xorshift64(&rng);
        if (nheld && (x & 1)) {
            unsigned k = (unsigned)((x >> 1) % nheld);
            assert_int_equal(heap_free(mfn_to_page(held[k].mfn), held[k].order, (x >> 40) & 1, NULL), 0);
            held[k] = held[--nheld];
        } else {
            unsigned order = (unsigned)((x >> 8) % 6);
            struct page_info *pg = heap_alloc_pages(order, NUMA_NO_NODE);
            if (pg)
                held[nheld++] = (struct held){ page_to_mfn(pg), order };
        }
        if (i % 250000 == 0) {
            if (!heap_audit(&a))
                fail_msg("%s: audit failed after %lu operations: %s", name, i, a.errors[0]);
        }
    }
    while (nheld) {
        nheld--;
        assert_int_equal(heap_free(mfn_to_page(held[nheld].mfn), held[nheld].order, false, NULL), 0);
    }
    assert_true(heap_audit(&a));
    assert_int_equal(a.digest, d);
    free(held);
}

static void test_stress(void **state)
{
    (void)state;
    for (unsigned s = 0; s < 4; s++)
        stress(all[s], 1000000);
}

/* The lazy strategy's own cases. */

static unsigned uninit_pages(uint64_t s, uint64_t e)
{
    unsigned n = 0;

    for (uint64_t m = s; m < e; m++)
        n += page_state_is(mfn_to_page(m), uninit);
    return n;
}

static void test_lazy_every_order(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 1ull << 18, 3ull << 18 } };
    world(r, 1, 3ull << 18);
    /* With M2P stores modelled, the deferred entries are written at allocation. */
    xen_costs = XC_ALL & ~XC(XC_M2P);
    build("lazy");
    /* Only the two block heads were written. */
    assert_int_equal(uninit_pages(1ull << 18, 3ull << 18), (2u << 18) - 2);
    for (unsigned order = 0; order <= MAX_ORDER - 1; order++) {
        struct page_info *pg = heap_alloc_pages(order, NUMA_NO_NODE);
        assert_non_null(pg);
        assert_true(IS_ALIGNED(page_to_mfn(pg), 1ull << order));
        for (uint64_t i = 0; i < (1ull << order); i++) {
            assert_true(page_state_is(&pg[i], inuse));
            assert_int_equal(m2p[page_to_mfn(pg) + i], INVALID_M2P_ENTRY);
        }
    }
    struct page_info *big = heap_alloc_pages(MAX_ORDER, NUMA_NO_NODE);
    assert_non_null(big);
    struct heap_audit a;
    assert_true(heap_audit(&a));
    xen_costs = XC_ALL;
}

static void test_lazy_split_max_to_zero(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 1ull << 18, 2ull << 18 } };
    world(r, 1, 2ull << 18);
    build("lazy");
    struct page_info *pg = heap_alloc_pages(0, NUMA_NO_NODE);
    assert_non_null(pg);
    /* The split put back 18 halves: their heads and the page handed out are
     * the only entries written; every other page is still uninitialised. */
    assert_int_equal(uninit_pages(1ull << 18, 2ull << 18), (1u << 18) - 1 - 18);
    assert_int_equal(page_to_mfn(pg), (2ull << 18) - 1);
    struct heap_audit a;
    assert_true(heap_audit(&a));
    assert_int_equal(a.free_pages, (1u << 18) - 1);
    for (unsigned o = 0; o < MAX_ORDER; o++)
        assert_int_equal(a.blocks[o], 1);
}

static void test_lazy_free_into_partial_block(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 1ull << 18, 2ull << 18 } };
    world(r, 1, 2ull << 18);
    uint64_t d = build("lazy");
    struct page_info *a0 = heap_alloc_pages(0, NUMA_NO_NODE);
    struct page_info *a3 = heap_alloc_pages(3, NUMA_NO_NODE);
    assert_non_null(a0);
    assert_non_null(a3);
    /* Give them back into blocks whose tails are mostly uninitialised. */
    assert_int_equal(heap_free(a3, 3, false, NULL), 0);
    assert_int_equal(heap_free(a0, 0, true, NULL), 0);
    struct heap_audit a;
    assert_true(heap_audit(&a));
    assert_int_equal(a.digest, d);
    assert_int_equal(a.blocks[MAX_ORDER], 1);
    assert_true(uninit_pages(1ull << 18, 2ull << 18) > (1u << 17));
}

static void test_lazy_audit_catches_corruption(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 1ull << 18, 2ull << 18 } };
    world(r, 1, 2ull << 18);
    build("lazy");
    struct heap_audit a;
    assert_true(heap_audit(&a));

    /* An uninitialised tail that claims to be in use. */
    struct page_info *t = mfn_to_page((1ull << 18) + 12345);
    t->count_info = PGC_state_inuse;
    assert_false(heap_audit(&a));
    assert_int_equal(a.nerrors, 1);
    assert_non_null(strstr(a.errors[0], "neither free nor uninitialised"));

    /* An uninitialised tail with stray bits. */
    t->count_info = PGC_need_scrub;
    assert_false(heap_audit(&a));
    assert_non_null(strstr(a.errors[0], "carries bits"));
    t->count_info = 0;
    assert_true(heap_audit(&a));
}

static void test_eager_audit_catches_uninit_tail(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x800 } };
    world(r, 1, 0x1000);
    build("sweep");
    mfn_to_page(0x555)->count_info = 0;
    struct heap_audit a;
    assert_false(heap_audit(&a));
    assert_non_null(strstr(a.errors[0], "is not free"));
}

static void test_audit_catches_counter_and_overlap(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x800 } };
    world(r, 1, 0x1000);
    build("chunk");
    struct heap_audit a;
    heap_default.total_avail_pages++;
    assert_false(heap_audit(&a));
    assert_non_null(strstr(a.errors[0], "total_avail_pages"));
    heap_default.total_avail_pages--;
    /* A block outside the handed-over memory. */
    struct page_info *pg = mfn_to_page(0x900);
    pg->count_info = PGC_state_free;
    frametable_mark_valid(0x900, 0x901);
    page_list_add_scrub(xen_costs, &heap_default, pg, 0, mfn_to_zone(0x900), 0, INVALID_DIRTY_IDX);
    assert_false(heap_audit(&a));
    assert_non_null(strstr(a.errors[0], "outside the handed-over memory"));
}

/* Pages the accounting gave the heap but no region holds: the audit says so. */
static void test_audit_holds_lists_to_accounting(void **state)
{
    struct heap_audit a;
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x800 } };
    world(r, 1, 0x1000);
    /* As if 16 pages had been dropped from the boot allocator without a word. */
    heap_setup(bitmap, 0x400 + 16);
    end_boot_allocator(&heap_default, strategy("sweep"));
    assert_false(heap_audit(&a));
    assert_int_equal(a.expected_pages, 0x410);
    assert_int_equal(a.free_pages, 0x400);
    assert_string_equal(a.errors[0], "the lists hold 1024 pages, 1040 were accounted to the heap "
                                     "and not allocated since");
}

/* A caller's mistake at the public entry: refused, named, and the heap untouched. */
static void test_heap_free_refuses_mistakes(void **state)
{
    struct err e;
    struct heap_audit a;
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x800 }, { 0x900, 0xa00 } };
    world(r, 2, 0x1000);
    uint64_t digest = build("chunk");
    struct page_info *pg = heap_alloc_pages(0, NUMA_NO_NODE);
    struct page_info *blk = heap_alloc_pages(2, NUMA_NO_NODE);
    assert_non_null(pg);
    assert_non_null(blk);
    uint64_t mfn = page_to_mfn(pg), bmfn = page_to_mfn(blk);
    char want[160];

    assert_int_equal(heap_free(pg, 0, false, &e), 0);
    assert_int_equal(heap_free(pg, 0, false, &e), -EINVAL);
    snprintf(want, sizeof(want), "freeing MFN 0x%llx, which is already free (count_info 0x%llx)",
             (unsigned long long)mfn, (unsigned long long)pg->count_info);
    assert_string_equal(e.msg, want);

    assert_int_equal(heap_free(blk, MAX_ORDER + 1, false, &e), -EINVAL);
    assert_string_equal(e.msg, "freeing a block of order 19, over MAX_ORDER (18)");
    assert_int_equal(heap_free(blk + 1, 1, false, &e), -EINVAL);
    snprintf(want, sizeof(want), "freeing MFN 0x%llx order 1, which is not an aligned block "
             "of the frame table", (unsigned long long)bmfn + 1);
    assert_string_equal(e.msg, want);
    assert_int_equal(heap_free(mfn_to_page(0x1000), 0, false, &e), -EINVAL);
    assert_string_equal(e.msg, "freeing MFN 0x1000 order 0, which is not an aligned block "
                               "of the frame table");
    /* Inside the frame table but never handed over: its state says so. */
    assert_int_equal(heap_free(mfn_to_page(0x880), 0, false, &e), -EINVAL);
    assert_string_equal(e.msg, "freeing MFN 0x880, which is not in use (count_info 0x0)");
    /* A block of four whose last page is free: nothing of it is freed. */
    assert_int_equal(heap_free(blk, 2, false, &e), 0);
    blk = heap_alloc_pages(1, NUMA_NO_NODE);
    assert_non_null(blk);
    assert_int_equal(heap_free(blk, 2, false, NULL), -EINVAL);
    assert_true(page_state_is(blk, inuse));
    assert_int_equal(heap_free(blk, 1, false, NULL), 0);
    /* The refusals changed nothing: every page is back, in the heap the strategy built. */
    assert_true(heap_audit(&a));
    assert_int_equal(a.digest, digest);
    assert_int_equal(heap_free_count(), heap_handover_pages());
}

/* Inside mm/, a double free is a bug: the unchecked path panics, as Xen BUG()s. */
static void test_double_free_panics(void **state)
{
    jmp_buf jb;
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x800 } };
    world(r, 1, 0x1000);
    build("page");
    struct page_info *pg = heap_alloc_pages(0, NUMA_NO_NODE);
    heap_free_pages(&heap_default, pg, 0, false);
    panic_jump = &jb;
    if (setjmp(jb) == 0) {
        heap_free_pages(&heap_default, pg, 0, false);
        panic_jump = NULL;
        fail_msg("double free did not panic");
    }
    panic_jump = NULL;
    assert_non_null(strstr(panic_message, "already free"));
    /* The kernel never returns from panic(); the test did, holding the lock. */
    assert_true(spin_is_locked(&heap_default.lock));
    spin_unlock(&heap_default.lock);
}

/* Xen's mark_page_free(): a broken page is a bug (BUG_ON), whether it was in
 * use or, at boot, never initialised. */
static void test_broken_page_panics(void **state)
{
    jmp_buf jb;
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x800 } };
    world(r, 1, 0x1000);
    heap_reset();
    mfn_to_page(0x500)->count_info = PGC_broken;
    panic_jump = &jb;
    if (setjmp(jb) == 0) {
        end_boot_allocator(&heap_default, strategy("chunk"));
        panic_jump = NULL;
        fail_msg("handing over a broken page did not panic");
    }
    panic_jump = NULL;
    assert_string_equal(panic_message, "freeing MFN 0x500, which is broken (count_info 0x1000000000000000)");
    spin_unlock(&heap_default.lock);

    world(r, 1, 0x1000);
    build("page");
    struct page_info *pg = heap_alloc_pages(0, NUMA_NO_NODE);
    pg->count_info |= PGC_broken;
    panic_jump = &jb;
    if (setjmp(jb) == 0) {
        heap_free(pg, 0, false, NULL);
        panic_jump = NULL;
        fail_msg("freeing a broken page did not panic");
    }
    panic_jump = NULL;
    assert_non_null(strstr(panic_message, "which is broken"));
    spin_unlock(&heap_default.lock);
}

/* An offlining page makes the block tainted, as in Xen; setting it aside
 * (Xen's reserve_offlined_page()) is not modelled, and says so. */
static void test_offlining_page_refused(void **state)
{
    jmp_buf jb;
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x800 } };
    world(r, 1, 0x1000);
    heap_reset();
    mfn_to_page(0x600)->count_info = PGC_state_offlining | PGC_broken;
    panic_jump = &jb;
    if (setjmp(jb) == 0) {
        end_boot_allocator(&heap_default, strategy("chunk"));
        panic_jump = NULL;
        fail_msg("freeing an offlining page did not panic");
    }
    panic_jump = NULL;
    assert_string_equal(panic_message, "freeing MFN 0x400 order 10: it holds an offlining page, and "
                        "page offlining is not modelled");
    /* Xen's offlined page keeps its broken flag and takes no free state. */
    assert_int_equal(mfn_to_page(0x600)->count_info & ~PGC_need_scrub, PGC_state_offlining | PGC_broken);
    spin_unlock(&heap_default.lock);
}

/* What heap_init_blocks() asked its mark function to write. */
static struct { uint64_t s, e; } marked[8];
static unsigned nmarked;

static void record_mark(uint64_t s, uint64_t e, uint64_t count_info)
{
    (void)count_info;
    if (nmarked < 8)
        marked[nmarked].s = s, marked[nmarked].e = e;
    nmarked++;
}

static void test_marking_is_one_fill_per_node_range(void **state)
{
    (void)state;
    /*
     * Many blocks, two nodes: the mark function gets each same-node range
     * whole, heads included, in one call (one string store, as the floor's
     * memset of a region), never one call per block.
     */
    const struct bootmem_region r[] = { { 0x123, 0x80000 } };
    world(r, 1, 0x100000);
    numa_set_range(0x40000, 0x100000, 1);
    heap_reset();
    nmarked = 0;
    heap_init_blocks(&heap_default, r[0].s, r[0].e - r[0].s, record_mark);
    assert_int_equal(nmarked, 2);
    assert_int_equal(marked[0].s, 0x123);
    assert_int_equal(marked[0].e, 0x40000);
    assert_int_equal(marked[1].s, 0x40000);
    assert_int_equal(marked[1].e, 0x80000);
}

/*
 * Xen's free_heap_pages(): a block that needs scrubbing goes to the tail of
 * its free list, a clean one to the head. Two lone order-0 pages are freed,
 * one dirty, one clean; their buddies stay allocated so neither can merge.
 */
static void test_dirty_blocks_go_to_tail(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x800 } };
    world(r, 1, 0x1000);
    build("chunk");
    struct page_info *pg[4];
    for (unsigned i = 0; i < 4; i++)
        assert_non_null(pg[i] = heap_alloc_pages(0, NUMA_NO_NODE));
    /* Two pairs of buddies: each freed page keeps its buddy allocated. */
    struct page_info *dirty = NULL, *clean = NULL;
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 4; j++)
            if ((page_to_mfn(pg[i]) ^ 1) == page_to_mfn(pg[j]) && !dirty)
                dirty = pg[i];
    for (unsigned i = 0; i < 4; i++)
        if (pg[i] != dirty && (page_to_mfn(pg[i]) ^ 1) != page_to_mfn(dirty) && !clean)
            clean = pg[i];
    assert_non_null(dirty);
    assert_non_null(clean);
    unsigned zone = mfn_to_zone(page_to_mfn(dirty));
    assert_int_equal(mfn_to_zone(page_to_mfn(clean)), zone);
    struct page_list_head *h = &heap(&heap_default, 0, zone, 0);
    assert_null(h->next);                                  /* no free order-0 block yet */
    assert_int_equal(heap_free(dirty, 0, true, NULL), 0);
    assert_int_equal(heap_free(clean, 0, false, NULL), 0);
    /* Neither merged: both are order-0 heads, the clean one first. */
    assert_ptr_equal(h->next, clean);
    assert_ptr_equal(h->tail, dirty);
    assert_int_equal(clean->u.free.first_dirty, INVALID_DIRTY_IDX);
    assert_int_equal(dirty->u.free.first_dirty, 0);
    struct heap_audit a;
    assert_true(heap_audit(&a));
    assert_int_equal(a.free_pages, 0x400 - 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_small),
        cmocka_unit_test(test_exact_by_hand),
        cmocka_unit_test(test_max_order_region),
        cmocka_unit_test(test_many_tiny_regions),
        cmocka_unit_test(test_irregular_regions),
        cmocka_unit_test(test_node_boundaries),
        cmocka_unit_test(test_alloc_all_free_all),
        cmocka_unit_test(test_stress),
        cmocka_unit_test(test_lazy_every_order),
        cmocka_unit_test(test_lazy_split_max_to_zero),
        cmocka_unit_test(test_lazy_free_into_partial_block),
        cmocka_unit_test(test_lazy_audit_catches_corruption),
        cmocka_unit_test(test_eager_audit_catches_uninit_tail),
        cmocka_unit_test(test_audit_catches_counter_and_overlap),
        cmocka_unit_test(test_audit_holds_lists_to_accounting),
        cmocka_unit_test(test_heap_free_refuses_mistakes),
        cmocka_unit_test(test_double_free_panics),
        cmocka_unit_test(test_broken_page_panics),
        cmocka_unit_test(test_offlining_page_refused),
        cmocka_unit_test(test_dirty_blocks_go_to_tail),
        cmocka_unit_test(test_marking_is_one_fill_per_node_range),
    };
    return cmocka_run_group_tests_name("heap", tests, NULL, NULL);
}
