// SPDX-License-Identifier: MIT
// The kernel's side of the parallel heap init (mm/heap_par.h): its workers
// are the CPUs that are up, run through smp_call() with its timed window.
#include "kernel/smp/smp.h"
#include "kernel/time/tsc.h"
#include "mm/heap_par.h"

_Static_assert(HEAP_PAR_MAX_CPUS == SMP_MAX_CPUS, "a worker per CPU");

unsigned heap_par_platform_cpus(void)
{
    return smp_ncpus;
}

unsigned heap_par_platform_node(unsigned cpu)
{
    return percpus[cpu].node;
}

void heap_par_platform_run(unsigned n, heap_par_fn fn, void *arg, uint64_t window[2])
{
    smp_call(n >= 64 ? ~0ull : (1ull << n) - 1, fn, arg, window);
}

uint64_t heap_par_platform_now(void)
{
    return tsc_now();
}
