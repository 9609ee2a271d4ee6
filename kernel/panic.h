/* SPDX-License-Identifier: MIT */
/* panic(): the end of a run that cannot go on. Host tests supply their own. */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "kernel/lib/compiler.h"

/* Prints "panic: <message>", the backtrace, then ends the run as failed. */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

#endif
