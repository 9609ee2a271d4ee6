/* SPDX-License-Identifier: MIT */
/*
 * In-kernel self-tests, printed as KTAP version 1 on serial. A test is a
 * function registered with SELFTEST(); KT_EXPECT records a failure with its
 * file and line and lets the test go on.
 */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include <stdbool.h>

#include "kernel/compiler.h"

struct ktest {
    const char *name;
    unsigned checks, failures;
    const char *skip;           /* set by KT_SKIP: reason the test was skipped */
};

struct selftest {
    const char *name;
    void (*fn)(struct ktest *t);
};

#define SELFTEST(tname)                                                     \
    static void selftest_fn_##tname(struct ktest *t);                       \
    static const struct selftest selftest_##tname                           \
        __attribute__((used, section(".selftests"), aligned(8))) =          \
        { #tname, selftest_fn_##tname };                                    \
    static void selftest_fn_##tname(struct ktest *t)

#define KT_EXPECT(t, cond, ...)                                             \
    ktest_check((t), !!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)
#define KT_SKIP(t, why) ((t)->skip = (why))

/* Records one check; on failure prints a KTAP diagnostic. Returns cond. */
bool ktest_check(struct ktest *t, bool cond, const char *expr, const char *file,
                 int line, const char *fmt, ...) __printf(6, 7);

/* Runs every registered test and prints KTAP; returns the number failed. */
unsigned selftest_run_all(void);

#endif
