// SPDX-License-Identifier: MIT
// What the kernel provides and the host tests must supply instead: storage
// for the frame table and M2P, and panic().
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/panic.h"
#include "mm/frametable.h"
#include "tests/unit/host_support.h"

struct page_info *frame_table;
uint64_t *m2p;

jmp_buf *panic_jump;
char panic_message[256];

void panic(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(panic_message, sizeof(panic_message), fmt, ap);
    va_end(ap);
    if (panic_jump)
        longjmp(*panic_jump, 1);
    fprintf(stderr, "panic: %s\n", panic_message);
    abort();
}
