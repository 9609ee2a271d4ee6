// SPDX-License-Identifier: MIT
// Host tests of the heap's scrub order (Xen's first_dirty): where a free
// block goes on its list when it is clean, fully dirty or partly dirty,
// first_dirty carried across merges in both orders and across splits, the
// free path as it runs after boot, and a seeded stress held to a model of
// which free pages need scrubbing that knows nothing of the heap's flags.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "mm/heap_priv.h"
#include "tests/unit/host_support.h"

/* One region of 1024 pages, all in zone 11 (MFNs of 11 bits), one node. */
#define LO 0x400ull
#define HI 0x800ull
#define FRAMES 0x1000ull

static const struct bootmem_region region[] = { { LO, HI } };

static const struct heap_strategy *strategy(const char *name)
{
    const struct heap_strategy *s = heap_strategy_find(name, strlen(name));
    assert_non_null(s);
    return s;
}

static void audit_ok(void)
{
    struct heap_audit a;

    if (!heap_audit(&a)) {
        for (unsigned i = 0; i < a.nerrors && i < AUDIT_MAX_ERRORS; i++)
            fprintf(stderr, "audit: %s\n", a.errors[i]);
        fail_msg("audit failed");
    }
}

/* The heap over region built by name, boot scrubbing pending or not. */
static void build(const char *name, bool boot_scrub)
{
    host_frames(FRAMES);
    host_heap_world(region, 1);
    heap_boot_scrub = boot_scrub;
    heap_reset();
    end_boot_allocator(&heap_default, strategy(name));
    audit_ok();
}

/* A clean heap with every page handed out again: frees then build blocks at will. */
static void all_in_use(void)
{
    build("chunk", false);
    while (heap_alloc_pages(0, NUMA_NO_NODE))
        ;
    assert_int_equal(heap_free_count(), 0);
}

static void give_back(uint64_t mfn, unsigned order, bool dirty)
{
    struct err e;

    if (heap_free(mfn_to_page(mfn), order, dirty, &e))
        fail_msg("freeing 0x%llx order %u: %s", (unsigned long long)mfn, order, e.msg);
}

static struct page_list_head *list(unsigned order)
{
    return &heap(&heap_default, 0, mfn_to_zone(LO), order);
}

/* The list of order holds exactly the heads want[0..n), from head to tail. */
static void expect_list(unsigned order, const uint64_t *want, unsigned n)
{
    unsigned i = 0;

    for (struct page_info *pg = list(order)->next; pg; pg = pl_page(pg->list.next), i++) {
        assert_true(i < n);
        if (page_to_mfn(pg) != want[i])
            fail_msg("order-%u list: block %u is 0x%llx, expected 0x%llx", order, i,
                     (unsigned long long)page_to_mfn(pg), (unsigned long long)want[i]);
    }
    assert_int_equal(i, n);
}

static uint32_t first_dirty(uint64_t mfn)
{
    return mfn_to_page(mfn)->u.free.first_dirty;
}

/*
 * The three list ends of page_list_add_scrub(): a clean block at the head,
 * a fully dirty one and a partly dirty one at the tail. The partly dirty
 * block is made by a merge, a clean lower page with a dirty upper one,
 * freed in the order given. 0x404 and 0x408 keep buddies in use, so they
 * stay order-1 blocks beside it.
 */
static void partly_dirty_merge(bool upper_first)
{
    all_in_use();
    give_back(0x404, 0, false);
    give_back(0x405, 0, false);             /* order 1, clean: the head */
    give_back(0x408, 0, true);
    give_back(0x409, 0, true);              /* order 1, dirty from its first page: the tail */
    give_back(upper_first ? 0x401 : 0x400, 0, upper_first);
    give_back(upper_first ? 0x400 : 0x401, 0, !upper_first);

    /* Clean page 0 and dirty page 1: the first dirty page is 1, and the block goes behind 0x408. */
    const uint64_t want[] = { 0x404, 0x408, 0x400 };
    expect_list(1, want, 3);
    expect_list(0, NULL, 0);
    assert_int_equal(first_dirty(0x404), INVALID_DIRTY_IDX);
    assert_int_equal(first_dirty(0x408), 0);
    assert_int_equal(first_dirty(0x400), 1);
    assert_int_equal(heap_default.nodes[0].need_scrub, 3);
    audit_ok();
}

static void test_partly_dirty_merge_upper_first(void **state)
{
    (void)state;
    partly_dirty_merge(true);
}

static void test_partly_dirty_merge_lower_first(void **state)
{
    (void)state;
    partly_dirty_merge(false);
}

/* A dirty lower page and a clean upper one: dirty from page 0, whichever came first. */
static void test_dirty_lower_clean_upper(void **state)
{
    (void)state;
    for (unsigned upper_first = 0; upper_first < 2; upper_first++) {
        all_in_use();
        give_back(0x404, 0, false);
        give_back(0x405, 0, false);
        give_back(upper_first ? 0x401 : 0x400, 0, !upper_first);
        give_back(upper_first ? 0x400 : 0x401, 0, upper_first);
        const uint64_t want[] = { 0x404, 0x400 };
        expect_list(1, want, 2);
        assert_int_equal(first_dirty(0x400), 0);
        assert_int_equal(heap_default.nodes[0].need_scrub, 1);
        audit_ok();
    }
}

/*
 * Two merges: the dirty page 0x403 first becomes page 1 of the order-1
 * block at 0x402, then page 3 of the order-2 block at 0x400, whether the
 * clean lower pair is free before or after it.
 */
static void test_first_dirty_carried_up_two_merges(void **state)
{
    (void)state;
    for (unsigned lower_first = 0; lower_first < 2; lower_first++) {
        all_in_use();
        if (lower_first) {
            give_back(0x400, 1, false);
            give_back(0x402, 0, false);
            give_back(0x403, 0, true);
        } else {
            give_back(0x403, 0, true);
            give_back(0x402, 0, false);
            assert_int_equal(first_dirty(0x402), 1);
            give_back(0x400, 1, false);
        }
        const uint64_t want[] = { 0x400 };
        expect_list(2, want, 1);
        expect_list(1, NULL, 0);
        assert_int_equal(first_dirty(0x400), 3);
        audit_ok();
    }
}

/*
 * A split hands each lower half back with the part of first_dirty that
 * falls in it, else clean, and carries the rest up: 0x400 order 2 dirty
 * from page 3 leaves 0x400 order 1 and 0x402 order 0 clean, at the heads.
 */
static void test_split_carries_first_dirty_up(void **state)
{
    (void)state;
    all_in_use();
    give_back(0x403, 0, true);
    give_back(0x402, 0, false);
    give_back(0x400, 1, false);
    assert_int_equal(first_dirty(0x400), 3);
    struct page_info *pg = heap_alloc_pages(0, NUMA_NO_NODE);
    assert_ptr_equal(pg, mfn_to_page(0x403));
    const uint64_t one[] = { 0x400 }, zero[] = { 0x402 };
    expect_list(1, one, 1);
    expect_list(0, zero, 1);
    assert_int_equal(first_dirty(0x400), INVALID_DIRTY_IDX);
    assert_int_equal(first_dirty(0x402), INVALID_DIRTY_IDX);
    assert_int_equal(heap_default.nodes[0].need_scrub, 0);
    audit_ok();
}

/*
 * Dirty from page 1 of 4: the lower half keeps index 1; past the first
 * dirty page Xen no longer knows where dirt is, so the upper half's lower
 * page, clean as it is, goes back dirty from 0.
 */
static void test_split_past_first_dirty(void **state)
{
    (void)state;
    all_in_use();
    give_back(0x400, 0, false);
    give_back(0x401, 0, true);
    give_back(0x402, 1, false);
    assert_int_equal(first_dirty(0x400), 1);
    struct page_info *pg = heap_alloc_pages(0, NUMA_NO_NODE);
    assert_ptr_equal(pg, mfn_to_page(0x403));
    const uint64_t one[] = { 0x400 }, zero[] = { 0x402 };
    expect_list(1, one, 1);
    expect_list(0, zero, 1);
    assert_int_equal(first_dirty(0x400), 1);
    assert_int_equal(first_dirty(0x402), 0);
    assert_int_equal(heap_default.nodes[0].need_scrub, 1);
    audit_ok();
    /* A clean block given back goes ahead of the partly dirty one. */
    give_back(0x404, 1, false);
    const uint64_t both[] = { 0x404, 0x400 };
    expect_list(1, both, 2);
    audit_ok();
}

/*
 * After a boot with scrubbing pending, one page taken and given back clean
 * merges up into the dirty region again: dirty from page 0, at the tail,
 * every page but that one still counted as needing scrub.
 */
static void test_free_after_boot_scrub(void **state)
{
    (void)state;
    static const char *const names[] = { "page", "chunk", "chunk-72b02bc", "sweep", "lazy" };
    for (unsigned s = 0; s < 5; s++) {
        build(names[s], true);
        struct page_info *pg = heap_alloc_pages(0, NUMA_NO_NODE);
        assert_non_null(pg);
        assert_int_equal(heap_default.nodes[0].need_scrub, HI - LO - 1);
        give_back(page_to_mfn(pg), 0, false);
        const uint64_t want[] = { LO };
        expect_list(10, want, 1);
        assert_int_equal(first_dirty(LO), 0);
        assert_int_equal(heap_default.nodes[0].need_scrub, HI - LO - 1);
        assert_int_equal(pg->count_info & PGC_need_scrub, 0);
        audit_ok();
    }
}

/*
 * A whole 2^MAX_ORDER block through the public free, dirty: taken whole from
 * a clean heap, given back, dirty from page 0 at its list, every page
 * counted; then split down to one page, each half dirty from 0 as it goes
 * back.
 */
static void test_max_order_block_given_back_dirty(void **state)
{
    (void)state;
    const struct bootmem_region gib[] = { { 1ull << MAX_ORDER, 2ull << MAX_ORDER } };
    host_frames(2ull << MAX_ORDER);
    host_heap_world(gib, 1);
    heap_boot_scrub = false;
    heap_reset();
    end_boot_allocator(&heap_default, strategy("chunk"));
    struct page_info *pg = heap_alloc_pages(MAX_ORDER, NUMA_NO_NODE);
    assert_ptr_equal(pg, mfn_to_page(1ull << MAX_ORDER));
    give_back(1ull << MAX_ORDER, MAX_ORDER, true);
    struct page_list_head *l = &heap(&heap_default, 0, mfn_to_zone(1ull << MAX_ORDER), MAX_ORDER);
    assert_ptr_equal(l->next, pg);
    assert_int_equal(pg->u.free.first_dirty, 0);
    assert_int_equal(heap_default.nodes[0].need_scrub, 1ull << MAX_ORDER);
    audit_ok();
    /* The split keeps the top page: the half of order j left behind starts 2^(j + 1) below the end. */
    assert_ptr_equal(heap_alloc_pages(0, NUMA_NO_NODE), mfn_to_page((2ull << MAX_ORDER) - 1));
    for (unsigned j = 0; j < MAX_ORDER; j++) {
        struct page_info *half = mfn_to_page((2ull << MAX_ORDER) - (2ull << j));
        assert_int_equal(half->v.order, j);
        assert_int_equal(half->u.free.first_dirty, 0);
    }
    assert_int_equal(heap_default.nodes[0].need_scrub, (1ull << MAX_ORDER) - 1);
    audit_ok();
}

/*
 * The model: which pages are free and which of them need scrubbing, moved
 * only by what the test asks (a free marks its pages as asked, an
 * allocation takes them out), never read from the heap.
 */
static bool model_free[HI], model_dirty[HI];
static struct { uint64_t mfn; unsigned order; } taken[HI];
static unsigned ntaken;

static uint64_t rng;

/* Every free block against the model: no page before first_dirty dirty, each flag right, the count. */
static void held_to_model(void)
{
    uint64_t dirty = 0, free_pages = 0;

    audit_ok();
    for (unsigned order = 0; order <= MAX_ORDER; order++)
        for (struct page_info *pg = list(order)->next; pg; pg = pl_page(pg->list.next)) {
            uint64_t mfn = page_to_mfn(pg);
            uint32_t fd = pg->u.free.first_dirty;
            assert_true(fd == INVALID_DIRTY_IDX || fd < (1u << order));
            for (uint64_t i = 0; i < (1ull << order); i++) {
                assert_true(model_free[mfn + i]);
                if (model_dirty[mfn + i] && i < fd)
                    fail_msg("page 0x%llx needs scrubbing, but block 0x%llx order %u is dirty "
                             "only from page %u", (unsigned long long)(mfn + i),
                             (unsigned long long)mfn, order, fd);
                bool flag = page_state_is(&pg[i], uninit) ? heap_default.lazy_dirty
                                                          : (pg[i].count_info & PGC_need_scrub) != 0;
                assert_int_equal(flag, model_dirty[mfn + i]);
                dirty += model_dirty[mfn + i];
            }
            free_pages += 1ull << order;
        }
    assert_int_equal(heap_default.nodes[0].need_scrub, dirty);
    assert_int_equal(free_pages, heap_free_count());
}

/*
 * Seeded allocations and frees of orders 0 to 3, each free dirty or clean
 * at random, on heaps every strategy built with boot scrubbing on and off:
 * after each step the heap is held to the model and to the audit.
 */
static void test_stress_against_a_model(void **state)
{
    (void)state;
    static const char *const names[] = { "page", "chunk", "sweep", "lazy" };
    for (unsigned s = 0; s < 8; s++) {
        bool boot_scrub = s & 1;
        build(names[s / 2], boot_scrub);
        for (uint64_t m = LO; m < HI; m++)
            model_free[m] = true, model_dirty[m] = boot_scrub;
        ntaken = 0;
        rng = 0x9e3779b97f4a7c15ull + s;
        for (unsigned step = 0; step < 3000; step++) {
            uint64_t r = host_xorshift64(&rng);
            unsigned order = (unsigned)(r >> 8) % 4;
            if (r % 8 < 5 || !ntaken) {
                struct page_info *pg = heap_alloc_pages(order, NUMA_NO_NODE);
                if (!pg)
                    continue;
                uint64_t mfn = page_to_mfn(pg);
                for (uint64_t i = 0; i < (1ull << order); i++) {
                    assert_true(model_free[mfn + i]);
                    model_free[mfn + i] = model_dirty[mfn + i] = false;
                }
                taken[ntaken].mfn = mfn;
                taken[ntaken++].order = order;
            } else {
                unsigned k = (unsigned)((r >> 16) % ntaken);
                bool dirty = (r >> 40) & 1;
                give_back(taken[k].mfn, taken[k].order, dirty);
                for (uint64_t i = 0; i < (1ull << taken[k].order); i++)
                    model_free[taken[k].mfn + i] = true, model_dirty[taken[k].mfn + i] = dirty;
                taken[k] = taken[--ntaken];
            }
            held_to_model();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partly_dirty_merge_upper_first),
        cmocka_unit_test(test_partly_dirty_merge_lower_first),
        cmocka_unit_test(test_dirty_lower_clean_upper),
        cmocka_unit_test(test_first_dirty_carried_up_two_merges),
        cmocka_unit_test(test_split_carries_first_dirty_up),
        cmocka_unit_test(test_split_past_first_dirty),
        cmocka_unit_test(test_free_after_boot_scrub),
        cmocka_unit_test(test_max_order_block_given_back_dirty),
        cmocka_unit_test(test_stress_against_a_model),
    };
    return cmocka_run_group_tests_name("heap scrub order", tests, NULL, NULL);
}
