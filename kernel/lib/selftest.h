/* SPDX-License-Identifier: MIT */
/*
 * In-kernel self-tests, printed as KTAP version 1 on serial. A test is a
 * function registered with SELFTEST(); KT_EXPECT records a failure with its
 * file and line and lets the test go on.
 *
 * Besides pass and fail a test may end skipped (it does not apply to this
 * machine: a clock that is absent, say) or inconclusive (it needed clean
 * samples and the host's load left it none), each with its reason. KTAP
 * has no directive for the second, so both are written as
 * `ok N name # SKIP reason`, the inconclusive one's reason starting with
 * "inconclusive: ": every KTAP parser counts it as neither pass nor fail,
 * and tests/boot/bootlib.py tells the two apart by that word.
 */
#ifndef KERNEL_LIB_SELFTEST_H
#define KERNEL_LIB_SELFTEST_H

#include <stdbool.h>

#include "kernel/lib/compiler.h"

enum ktest_end { KT_RAN, KT_SKIPPED, KT_INCONCLUSIVE };

struct ktest {
    const char *name;
    unsigned checks, failures;
    enum ktest_end end;         /* set by ktest_skip() or ktest_inconclusive() */
    char why[160];              /* ...with the reason */
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
#define KT_SKIP(t, why) ktest_skip((t), "%s", (why))

/* Records one check; on failure prints a KTAP diagnostic. Returns cond. */
bool ktest_check(struct ktest *t, bool cond, const char *expr, const char *file,
                 int line, const char *fmt, ...) __printf(6, 7);

/* Ends the test as skipped, or as inconclusive, with the reason (printf-style). */
void ktest_skip(struct ktest *t, const char *fmt, ...) __printf(2, 3);
void ktest_inconclusive(struct ktest *t, const char *fmt, ...) __printf(2, 3);

struct err;

/*
 * Runs the registered tests (those selftest_only names, when it is set)
 * and prints KTAP. Returns 0 when none failed; -EINVAL, with the reason in
 * e, when some did or when selftest_only names a test that does not exist.
 */
int selftest_run_all(struct err *e);

#endif
