// SPDX-License-Identifier: MIT
// The self-test runner: KTAP version 1 on serial, a human summary on screen.
#include "kernel/selftest.h"

#include <stdarg.h>

#include "kernel/printk.h"

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

unsigned selftest_run_all(void)
{
    unsigned n = (unsigned)(__selftests_end - __selftests_start);
    unsigned failed = 0, skipped = 0;

    serial_printk("KTAP version 1\n1..%u\n", n);
    for (unsigned i = 0; i < n; i++) {
        const struct selftest *st = &__selftests_start[i];
        struct ktest t = { .name = st->name };

        st->fn(&t);
        if (t.skip) {
            skipped++;
            serial_printk("ok %u %s # SKIP %s\n", i + 1, st->name, t.skip);
        } else if (t.failures) {
            failed++;
            serial_printk("not ok %u %s\n", i + 1, st->name);
        } else {
            serial_printk("ok %u %s\n", i + 1, st->name);
        }
    }
    serial_printk("# selftests: %u passed, %u failed, %u skipped\n",
                  n - failed - skipped, failed, skipped);
    printk("self-tests: %u of %u passed, %u failed, %u skipped\n",
           n - failed - skipped, n, failed, skipped);
    return failed;
}
