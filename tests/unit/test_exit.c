// SPDX-License-Identifier: MIT
// Host test of how a run ends (kernel/exit.h): exit=auto's decision.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/exit.h"

static void test_exit_modes(void **state)
{
    (void)state;
    /* auto: QEMU's exit device only where CPUID says QEMU is there. */
    assert_true(exit_via_port(EXIT_MODE_AUTO, ACCEL_KVM));
    assert_true(exit_via_port(EXIT_MODE_AUTO, ACCEL_TCG));
    assert_false(exit_via_port(EXIT_MODE_AUTO, ACCEL_NONE));
    assert_false(exit_via_port(EXIT_MODE_AUTO, ACCEL_OTHER));
    /* qemu and halt: whatever the CPU says. */
    for (int a = ACCEL_NONE; a <= ACCEL_OTHER; a++) {
        assert_true(exit_via_port(EXIT_MODE_QEMU, (enum accel)a));
        assert_false(exit_via_port(EXIT_MODE_HALT, (enum accel)a));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_modes),
    };
    return cmocka_run_group_tests_name("exit", tests, NULL, NULL);
}
