// SPDX-License-Identifier: MIT
// The self-test runner: KTAP version 1 on serial, a human summary on screen.
#include "kernel/selftest.h"

#include <stdarg.h>

#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"

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

unsigned selftest_run_all(void)
{
    unsigned total = (unsigned)(__selftests_end - __selftests_start);
    unsigned n = 0, num = 0, failed = 0, skipped = 0;

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
        if (t.skip) {
            skipped++;
            serial_printk("ok %u %s # SKIP %s\n", num, st->name, t.skip);
        } else if (t.failures) {
            failed++;
            serial_printk("not ok %u %s\n", num, st->name);
        } else {
            serial_printk("ok %u %s\n", num, st->name);
        }
    }
    serial_printk("# selftests: %u passed, %u failed, %u skipped\n",
                  n - failed - skipped, failed, skipped);
    printk("self-tests: %u of %u passed, %u failed, %u skipped\n",
           n - failed - skipped, n, failed, skipped);
    return failed;
}
