// SPDX-License-Identifier: MIT
// Host tests of bench/stats.c, the kernel's integer statistics, on cases
// worked out by hand from docs/records.md's definitions.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/stats.h"

static void test_median(void **state)
{
    (void)state;
    assert_int_equal(stat_median((uint64_t[]){ 7 }, 1), 7);
    assert_int_equal(stat_median((uint64_t[]){ 30, 10, 20 }, 3), 20);
    /* Even n: the mean of the middle two, rounded down: (2 + 3) / 2. */
    assert_int_equal(stat_median((uint64_t[]){ 4, 1, 3, 2 }, 4), 2);
    assert_int_equal(stat_median((uint64_t[]){ 999, 1000 }, 2), 999);
    /* No overflow adding the middle two. */
    assert_int_equal(stat_median((uint64_t[]){ UINT64_MAX, UINT64_MAX - 1 }, 2), UINT64_MAX - 1);
    /* The input is left as it was. */
    uint64_t v[] = { 3, 1, 2 };
    stat_median(v, 3);
    assert_int_equal(v[0], 3);
    assert_int_equal(stat_median(v, 0), 0);
}

static void test_cv(void **state)
{
    (void)state;
    assert_int_equal(stat_cv_centipct((uint64_t[]){ 123 }, 1), 0);
    assert_int_equal(stat_cv_centipct((uint64_t[]){ 100, 100, 100 }, 3), 0);
    /* [10, 20]: mean 15, sample sd sqrt(50) = 7.0711: 47.14 %. */
    assert_int_equal(stat_cv_centipct((uint64_t[]){ 10, 20 }, 2), 4714);
    /* [2, 4, 4, 4, 5, 5, 7, 9]: mean 5, sd sqrt(32 / 7) = 2.1381: 42.76 %. */
    assert_int_equal(stat_cv_centipct((uint64_t[]){ 2, 4, 4, 4, 5, 5, 7, 9 }, 8), 4276);
    assert_int_equal(stat_cv_centipct((uint64_t[]){ 0, 0 }, 2), 0);
    /* Huge values take the path that avoids overflowing 128 bits:
     * [0, 2^62]: mean 2^61, sd 2^62 / sqrt(2): 141.42 %. */
    assert_int_equal(stat_cv_centipct((uint64_t[]){ 0, 1ull << 62 }, 2), 14142);
}

static void test_ratios(void **state)
{
    (void)state;
    assert_int_equal(stat_ratio_centi(1234, 100), 1234);
    assert_int_equal(stat_ratio_centi(1, 3), 33);               /* rounded down */
    assert_int_equal(stat_ratio_centi(2, 3), 66);
    assert_int_equal(stat_ratio_centi(5, 0), 0);
    assert_int_equal(stat_ratio_centi(UINT64_MAX, 1), UINT64_MAX);     /* saturates */
    assert_int_equal(stat_per_page_milli(1000, 3), 333333);
    assert_int_equal(stat_per_page_milli(7, 0), 0);
    /* Paired by index: 100/50, 200/50, 300/300 = 2, 4, 1: median 2.00. */
    assert_int_equal(stat_paired_ratio_centi((uint64_t[]){ 100, 200, 300 },
                                             (uint64_t[]){ 50, 50, 300 }, 3), 200);
    /* Even n: ratios 2.00 and 3.00, mean 2.50. */
    assert_int_equal(stat_paired_ratio_centi((uint64_t[]){ 4, 9 }, (uint64_t[]){ 2, 3 }, 2), 250);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_cv),
        cmocka_unit_test(test_ratios),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
