// SPDX-License-Identifier: MIT
// The self-test runner: KTAP version 1 on serial, a human summary on screen.
#include "kernel/lib/selftest.h"

#include <stdarg.h>

#include "kernel/cmdline.h"
#include "kernel/console/printk.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

static char opt_only[128];
CMDLINE_OPT(selftest_only, .key = "selftest_only", .type = OPT_STR, .dst = opt_only,
            .size = sizeof(opt_only),
            .help = "run only the self-tests whose names are listed (comma-separated)");

/* True when the test is selected: no list, or its name is in the list. */
static bool selected(const char *name)
{
    size_t n = strlen(name);

    if (!opt_only[0])
        return true;
    for (const char *p = opt_only; *p;) {
        const char *item = p;
        if (cmdline_list_item(&p) == n && !strncmp(item, name, n))
            return true;
    }
    return false;
}

extern const struct selftest __selftests_start[], __selftests_end[];

bool ktest_check(struct ktest *t, bool cond, const char *expr, const char *file,
                 int line, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    t->checks++;
    if (cond)
        return true;
    t->failures++;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    serial_printk("# %s: %s:%d: expected %s: %s\n", t->name, file, line, expr, msg);
    return false;
}

static void end_as(struct ktest *t, enum ktest_end end, const char *fmt, va_list ap)
{
    t->end = end;
    vsnprintf(t->why, sizeof(t->why), fmt, ap);
}

void ktest_skip(struct ktest *t, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    end_as(t, KT_SKIPPED, fmt, ap);
    va_end(ap);
}

void ktest_inconclusive(struct ktest *t, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    end_as(t, KT_INCONCLUSIVE, fmt, ap);
    va_end(ap);
}

/* 0 when every name in selftest_only is a self-test's; else -EINVAL naming the first that is not. */
static int check_only(struct err *e)
{
    unsigned total = (unsigned)(__selftests_end - __selftests_start);

    for (const char *p = opt_only; *p;) {
        const char *item = p;
        size_t len = cmdline_list_item(&p);
        unsigned i = 0;

        while (i < total && !(strlen(__selftests_start[i].name) == len &&
                              !strncmp(item, __selftests_start[i].name, len)))
            i++;
        if (i == total)
            return err_set(e, -EINVAL, "selftest_only=%s: no self-test is named '%.*s'", opt_only,
                           (int)len, item);
    }
    return 0;
}

/*
 * Runs the selected tests. selftest_only naming a test that does not exist
 * is a mistake, not a selection of nothing: nothing runs, and the run fails
 * naming it.
 */
int selftest_run_all(struct err *e)
{
    unsigned total = (unsigned)(__selftests_end - __selftests_start);
    unsigned n = 0, num = 0, failed = 0, skipped = 0, unsure = 0;
    int rc = check_only(e);

    if (rc)
        return rc;
    for (unsigned i = 0; i < total; i++)
        n += selected(__selftests_start[i].name);
    serial_printk("KTAP version 1\n1..%u\n", n);
    for (unsigned i = 0; i < total; i++) {
        const struct selftest *st = &__selftests_start[i];
        struct ktest t = { .name = st->name };

        if (!selected(st->name))
            continue;
        num++;
        st->fn(&t);
        /* A failed check outweighs any reason to end without a verdict. */
        if (t.failures) {
            failed++;
            serial_printk("not ok %u %s\n", num, st->name);
        } else if (t.end == KT_SKIPPED) {
            skipped++;
            serial_printk("ok %u %s # SKIP %s\n", num, st->name, t.why);
        } else if (t.end == KT_INCONCLUSIVE) {
            unsure++;
            serial_printk("ok %u %s # SKIP inconclusive: %s\n", num, st->name, t.why);
        } else {
            serial_printk("ok %u %s\n", num, st->name);
        }
    }
    serial_printk("# selftests: %u passed, %u failed, %u skipped, %u inconclusive\n",
                  n - failed - skipped - unsure, failed, skipped, unsure);
    printk("self-tests: %u of %u passed, %u failed, %u skipped, %u inconclusive\n",
           n - failed - skipped - unsure, n, failed, skipped, unsure);
    return failed ? err_set(e, -EINVAL, "%u of %u self-tests failed", failed, n) : 0;
}
