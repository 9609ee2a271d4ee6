// SPDX-License-Identifier: MIT
// Host tests for kernel/cmdline.c.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/lib/errno.h"

static bool flag;
static unsigned runs;
static char strat[16];
enum mode { MODE_AUTO, MODE_QEMU, MODE_HALT };
static enum mode mode;
/* Out of order on purpose: the names follow the enum, not their position. */
static const char *const modes[] = { [MODE_QEMU] = "qemu", [MODE_HALT] = "halt", [MODE_AUTO] = "auto" };
static unsigned set = 7;
static const char *const items[] = { "red", "green", "blue" };
static char warned[256];

static const struct cmdline_opt opts[] = {
    { .key = "selftest", .type = OPT_FLAG, .dst = &flag },
    { .key = "runs", .type = OPT_UINT, .dst = &runs, .min = 1, .max = 1000 },
    { .key = "strategies", .type = OPT_STR, .dst = strat, .size = sizeof(strat) },
    { .key = "exit", .type = OPT_CHOICE, .dst = &mode, .choices = modes, .nchoices = 3 },
    { .key = "colours", .type = OPT_SET, .dst = &set, .choices = items, .nchoices = 3 },
    { .key = "once_stores", .type = OPT_RENAMED, .renamed = "sweep_stores" },
};

static void warn(const char *msg)
{
    strncat(warned, msg, sizeof(warned) - strlen(warned) - 2);
    strcat(warned, ";");
}

static struct err err;

static int parse(const char *line)
{
    flag = false;
    runs = 5;
    strcpy(strat, "all");
    mode = MODE_AUTO;
    set = 7;
    warned[0] = '\0';
    err.msg[0] = '\0';
    return cmdline_parse(line, opts, sizeof(opts) / sizeof(opts[0]), &err, warn);
}

static void test_values(void **state)
{
    (void)state;
    assert_int_equal(parse("  selftest runs=12\tstrategies=page,chunk exit=halt "), 0);
    assert_true(flag);
    assert_int_equal(runs, 12);
    assert_string_equal(strat, "page,chunk");
    assert_int_equal(mode, MODE_HALT);
    assert_int_equal(parse("exit=qemu"), 0);
    assert_int_equal(mode, MODE_QEMU);
    assert_string_equal(warned, "");
}

static void test_loader_path_skipped(void **state)
{
    (void)state;
    assert_int_equal(parse("/boot/bootheap.elf runs=3"), 0);
    assert_int_equal(runs, 3);
    assert_string_equal(warned, "");
    /* Only the first word may be a path. */
    assert_int_equal(parse("runs=3 /boot/x"), 0);
    assert_string_equal(warned, "unknown command-line option '/boot/x' ignored;");
}

static void test_unknown_key_warns(void **state)
{
    (void)state;
    assert_int_equal(parse("frob=1 runs=7 zap"), 0);
    assert_int_equal(runs, 7);
    assert_string_equal(warned, "unknown command-line option 'frob=1' ignored;"
                                "unknown command-line option 'zap' ignored;");
}

static void test_a_renamed_key_names_its_new_name(void **state)
{
    (void)state;
    assert_int_equal(parse("runs=7 once_stores=nt"), -EINVAL);
    assert_string_equal(err.msg, "once_stores= is now called sweep_stores=");
    assert_int_equal(parse("once_stores"), -EINVAL);      /* with no value too */
    assert_string_equal(err.msg, "once_stores= is now called sweep_stores=");
    assert_string_equal(warned, "");
}

static void test_bad_values(void **state)
{
    (void)state;
    assert_int_equal(parse("runs=0"), -EINVAL);
    assert_string_equal(err.msg, "runs=0: expected a whole number from 1 to 1000");
    assert_int_equal(parse("runs=abc"), -EINVAL);
    assert_string_equal(err.msg, "runs=abc: expected a whole number from 1 to 1000");
    assert_int_equal(parse("runs=99999999999999999999"), -EINVAL);
    assert_string_equal(err.msg, "runs=99999999999999999999: expected a whole number from 1 to 1000");
    assert_int_equal(parse("runs"), -EINVAL);
    assert_string_equal(err.msg, "runs=: expected a whole number from 1 to 1000");
    assert_int_equal(parse("exit=later"), -EINVAL);
    assert_string_equal(err.msg, "exit=later: expected one of auto qemu halt");
    assert_int_equal(parse("strategies=0123456789abcdef"), -EINVAL);
    assert_string_equal(err.msg, "strategies=0123456789abcdef: expected a value of at most 15 characters");
    assert_int_equal(parse("selftest=maybe"), -EINVAL);
    assert_string_equal(err.msg, "selftest=maybe: expected on or off");
    assert_int_equal(parse("selftest=off"), 0);
    assert_false(flag);
}

static void test_sets(void **state)
{
    (void)state;
    /* From the default (all three), or from none when the list opens with a bare name. */
    assert_int_equal(parse("colours=-green"), 0);
    assert_int_equal(set, 5);
    assert_int_equal(parse("colours=blue"), 0);
    assert_int_equal(set, 4);
    assert_int_equal(parse("colours=none,+red,blue,-blue"), 0);
    assert_int_equal(set, 1);
    assert_int_equal(parse("colours=-red,-green,-blue,all"), 0);
    assert_int_equal(set, 7);
    assert_int_equal(parse("colours=none runs=2"), 0);
    assert_int_equal(set, 0);
    assert_int_equal(runs, 2);
    assert_int_equal(parse("colours=-grey"), -EINVAL);
    assert_string_equal(err.msg, "colours=-grey: '-grey' is not all, none or [+-] one of red green blue");
    assert_int_equal(parse("colours=red,,blue"), -EINVAL);
    assert_string_equal(err.msg, "colours=red,,blue: '' is not all, none or [+-] one of red green blue");
    assert_int_equal(parse("colours"), -EINVAL);
    assert_int_equal(parse("colours=red,"), -EINVAL);
    assert_int_equal(parse("colours=+-red"), -EINVAL);
    assert_int_equal(set, 7);
}

/*
 * A long bad value is echoed cut short, so the message still says what the
 * option takes: found by tests/fuzz/fuzz_cmdline.c, where a 150-byte set item
 * filled the 192-byte message and cut the list of names off.
 */
static void test_long_values_keep_the_message_whole(void **state)
{
    static unsigned costs;
    static const char *const names[] = { "lfence", "mfn_valid", "lock", "m2p", "node_heap",
                                         "heap_ptrs", "pdx", "memnode", "zone", "scrub_check" };
    const struct cmdline_opt xen[] = {
        { .key = "xen_costs", .type = OPT_SET, .dst = &costs, .choices = names, .nchoices = 10 },
    };
    char line[400], x30[31];
    (void)state;

    memset(x30, 'x', 30);
    x30[30] = '\0';
    snprintf(line, sizeof(line), "xen_costs=-%0300d", 0);
    assert_int_equal(cmdline_parse(line, xen, 1, &err, NULL), -EINVAL);
    assert_string_equal(err.msg, "xen_costs=-00000000000000000000000000000...: '-00000000000000000000000000000...' "
                                 "is not all, none or [+-] one of lfence mfn_valid lock m2p node_heap "
                                 "heap_ptrs pdx memnode zone scrub_check");
    snprintf(line, sizeof(line), "runs=%s%s", x30, x30);
    assert_int_equal(parse(line), -EINVAL);
    assert_string_equal(err.msg, "runs=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...: expected a whole number from 1 to 1000");
    /* Exactly 30 bytes: whole, no dots. */
    snprintf(line, sizeof(line), "exit=%s", x30);
    assert_int_equal(parse(line), -EINVAL);
    assert_string_equal(err.msg, "exit=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx: expected one of auto qemu halt");
}

static void test_list_items(void **state)
{
    const char *p = "page,,chunk,chunk-72b02bc";
    const char *item;
    (void)state;
    item = p;
    assert_int_equal(cmdline_list_item(&p), 4);
    assert_memory_equal(item, "page", 4);
    assert_int_equal(cmdline_list_item(&p), 0);    /* an empty item */
    item = p;
    assert_int_equal(cmdline_list_item(&p), 5);
    assert_memory_equal(item, "chunk", 5);
    item = p;
    assert_int_equal(cmdline_list_item(&p), 13);   /* a '-' is part of a name */
    assert_memory_equal(item, "chunk-72b02bc", 13);
    assert_int_equal(*p, '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_loader_path_skipped),
        cmocka_unit_test(test_unknown_key_warns),
        cmocka_unit_test(test_a_renamed_key_names_its_new_name),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_sets),
        cmocka_unit_test(test_long_values_keep_the_message_whole),
        cmocka_unit_test(test_list_items),
    };
    return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
