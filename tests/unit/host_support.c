// SPDX-License-Identifier: MIT
// What the kernel provides and the host tests must supply instead: storage
// for the frame table and M2P, and panic().
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/panic.h"
#include "mm/heap_par.h"
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

/*
 * Simulated CPUs for the parallel heap init: host_par_cpus workers, worker
 * c on node host_par_node[c], run one after another from the last to the
 * first, so that a splice never finds the lists in address order.
 */
unsigned host_par_cpus = 1;
unsigned host_par_node[HEAP_PAR_MAX_CPUS];

unsigned heap_par_platform_cpus(void)
{
    return host_par_cpus;
}

unsigned heap_par_platform_node(unsigned cpu)
{
    return host_par_node[cpu];
}

void heap_par_platform_run(unsigned n, heap_par_fn fn, void *arg, uint64_t window[2])
{
    window[0] = 0;
    for (unsigned c = n; c-- > 0;)
        fn(c, arg);
    window[1] = 0;
}

uint64_t heap_par_platform_now(void)
{
    return 0;
}
