// SPDX-License-Identifier: MIT
// Host tests for kernel/lib/sort.c, against the C library's qsort() on the same
// inputs: empty, single, sorted, reversed, all equal and seeded random.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/sort.h"

struct item {
    uint64_t key;
    uint32_t tag;           /* rides along: elements move whole */
};

static bool item_before(const void *a, const void *b)
{
    return ((const struct item *)a)->key < ((const struct item *)b)->key;
}

static int item_cmp(const void *a, const void *b)
{
    uint64_t x = ((const struct item *)a)->key, y = ((const struct item *)b)->key;

    return x < y ? -1 : x > y;
}

/* Sorts a copy both ways: the keys must agree, and every tag must survive. */
static void check(const struct item *in, size_t n)
{
    struct item *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
    uint64_t tags_in = 0, tags_out = 0;

    assert_non_null(a);
    assert_non_null(b);
    memcpy(a, in, n * sizeof(*a));
    memcpy(b, in, n * sizeof(*b));
    sort(a, n, sizeof(*a), item_before);
    qsort(b, n, sizeof(*b), item_cmp);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a[i].key, b[i].key);
        tags_in += in[i].tag * (uint64_t)in[i].key;
        tags_out += a[i].tag * (uint64_t)a[i].key;
    }
    assert_int_equal(tags_in, tags_out);
    free(a);
    free(b);
}

static void test_shapes(void **state)
{
    static struct item v[1000];
    (void)state;
    check(v, 0);
    v[0] = (struct item){ 7, 1 };
    check(v, 1);
    for (size_t i = 0; i < 1000; i++)
        v[i] = (struct item){ i, (uint32_t)i };
    check(v, 1000);
    for (size_t i = 0; i < 1000; i++)
        v[i] = (struct item){ 1000 - i, (uint32_t)i };
    check(v, 1000);
    for (size_t i = 0; i < 1000; i++)
        v[i] = (struct item){ 42, (uint32_t)i };
    check(v, 1000);
}

static void test_random(void **state)
{
    static struct item v[5000];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    (void)state;
    for (size_t n = 2; n <= 5000; n = n * 3 + 1) {
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v[i] = (struct item){ x % (n / 2 + 1), (uint32_t)i };   /* many repeats */
        }
        check(v, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests_name("sort", tests, NULL, NULL);
}
