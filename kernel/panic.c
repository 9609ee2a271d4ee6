// SPDX-License-Identifier: MIT
// panic(): the report of a run that cannot go on, then the failed end. Apart
// from printk.c, so that a build with its own way of ending can keep printk.
#include "kernel/panic.h"

#include <stdarg.h>

#include "kernel/console/printk.h"
#include "kernel/exit.h"
#include "kernel/traps.h"

void panic(const char *fmt, ...)
{
    static bool in_panic;
    static char msg[192];
    va_list ap;

    __asm__ volatile("cli");
    if (in_panic)
        machine_exit(EXIT_FAIL);
    in_panic = true;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    printk("\npanic: %s\n", msg);
    backtrace((uintptr_t)__builtin_frame_address(0));
    machine_fail(msg);
}
