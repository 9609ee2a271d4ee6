// SPDX-License-Identifier: MIT
// Host tests of heap_list_blocks(), the block list an audit record carries:
// lowest MFNs first, cut at the cap with the full count, each block's list
// node and zone, and a corrupt list read only as far as it is sound.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "mm/heap_priv.h"
#include "tests/unit/host_support.h"

static void build(const char *name)
{
    struct heap_audit a;

    heap_reset();
    end_boot_allocator(&heap_default, heap_strategy_find(name, strlen(name)));
    assert_true(heap_audit(&a));
}

/* MFNs [3, 21) and [0x100, 0x180): worked out by hand below. */
static const struct bootmem_region odd[] = { { 3, 21 }, { 0x100, 0x180 } };
static const struct heap_block odd_blocks[] = {
    { 3, 0, 0, 2 }, { 4, 2, 0, 3 }, { 8, 3, 0, 4 }, { 16, 2, 0, 5 }, { 20, 0, 0, 5 }, { 0x100, 7, 0, 9 },
};

static void expect_listed(const struct heap_block *got, const struct heap_block *want, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(got[i].mfn, want[i].mfn);
        assert_int_equal(got[i].order, want[i].order);
        assert_int_equal(got[i].node, want[i].node);
        assert_int_equal(got[i].zone, want[i].zone);
    }
}

static void test_every_block_in_mfn_order(void **state)
{
    (void)state;
    struct heap_block got[16];

    host_frames(0x200);
    host_heap_world(odd, 2);
    /* page frees one page at a time: its lists are far from MFN order. */
    for (unsigned s = 0; s < 2; s++) {
        build(s ? "chunk" : "page");
        assert_int_equal(heap_list_blocks(got, 16), 6);
        expect_listed(got, odd_blocks, 6);
    }
}

static void test_cut_keeps_the_lowest(void **state)
{
    (void)state;
    struct heap_block got[6];

    host_frames(0x200);
    host_heap_world(odd, 2);
    build("sweep");
    for (unsigned max = 0; max <= 6; max++) {
        memset(got, 0xee, sizeof(got));
        assert_int_equal(heap_list_blocks(got, max), 6);
        expect_listed(got, odd_blocks, max);
        if (max < 6)
            assert_int_equal(got[max].mfn, 0xeeeeeeee);    /* nothing written past the cap */
    }
}

static void test_node_of_each_block(void **state)
{
    (void)state;
    /* Node 1 from MFN 0x40000 (1 GiB) up: the block there cannot merge down. */
    const struct bootmem_region r[] = { { 0x3ff00, 0x40200 } };
    const struct heap_block want[] = { { 0x3ff00, 8, 0, 18 }, { 0x40000, 9, 1, 19 } };
    struct heap_block got[4];

    host_frames(0x80000);
    host_heap_world(r, 1);
    numa_set_range(0x40000, 0x80000, 1);
    build("lazy");
    assert_int_equal(heap_list_blocks(got, 4), 2);
    expect_listed(got, want, 2);
}

static void test_corrupt_link_stops_the_list(void **state)
{
    (void)state;
    struct heap_block got[16];

    host_frames(0x200);
    host_heap_world(odd, 2);
    build("chunk");
    /* MFN 3 is alone on its list (order 0, zone 2): link it past the frame table. */
    mfn_to_page(3)->list.next = 0x7fffffff;
    assert_int_equal(heap_list_blocks(got, 16), 6);
    /* Two blocks linked to each other: a loop, read for max_pfn blocks and no more. */
    mfn_to_page(3)->list.next = 8;
    mfn_to_page(8)->list.next = 3;
    assert_int_equal(heap_list_blocks(got, 16), max_pfn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_block_in_mfn_order),
        cmocka_unit_test(test_cut_keeps_the_lowest),
        cmocka_unit_test(test_node_of_each_block),
        cmocka_unit_test(test_corrupt_link_stops_the_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
