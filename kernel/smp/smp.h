/* SPDX-License-Identifier: MIT */
/*
 * Every CPU: bring-up (kernel/smp/smp_boot.c), and the two things parallel work
 * needs (kernel/smp/smp.c): run a function on a set of CPUs and wait for them,
 * with a timed window on the boot CPU, and a barrier. CPUs that are up are
 * numbered 0 .. smp_ncpus - 1, the boot CPU 0; between jobs the others
 * sleep in HLT and a wake-up interrupt brings them back.
 */
#ifndef KERNEL_SMP_SMP_H
#define KERNEL_SMP_SMP_H

#include <stdint.h>

#include "kernel/acpi/topo.h"
#include "kernel/smp/percpu.h"

#define SMP_MAX_CPUS    TOPO_MAX_CPUS

/* A set of CPUs: bit k is CPU k. */
typedef uint64_t cpumask_t;
_Static_assert(SMP_MAX_CPUS <= 64, "cpumask_t has a bit per CPU");

/* Indexed by CPU number; entries below smp_ncpus are up. */
extern struct percpu percpus[SMP_MAX_CPUS];
extern unsigned smp_ncpus;

/* Every CPU that is up. */
static inline cpumask_t smp_online_mask(void)
{
    return smp_ncpus >= 64 ? ~0ull : (1ull << smp_ncpus) - 1;
}

/*
 * Starts every enabled CPU the firmware tables list, through the AP
 * trampoline, in the APIC mode apic_init_boot() chose; a CPU that does not
 * answer within a second is reported and left out. Then measures each
 * CPU's TSC against the boot CPU's, and prints the smp line and record.
 * After time_init() and topo_init(), before mm_heap_takeover() (stacks and
 * tables come from the boot allocator). Never fails: the worst case is one CPU.
 */
void smp_init(void);

/*
 * Picks the trampoline's pages below 1 MiB (RAM in the loader's map, clear
 * of loader data) and keeps them out of the boot allocator. Before
 * mm_init(); without such pages smp_init() starts no CPU and says why.
 */
void smp_reserve_trampoline(void);

/* The function a job runs: cpu is the CPU running it. */
typedef void (*smp_fn)(unsigned cpu, void *arg);

/*
 * Runs fn(cpu, arg) on every CPU in mask that is up, the boot CPU too when
 * bit 0 is set, and returns when every one has returned. When window is
 * not NULL, the boot CPU reads tsc_now() into window[0] once every
 * participant has passed the start barrier and into window[1] once every
 * participant has passed the end barrier: the job's timed window. Call on
 * the boot CPU only, one job at a time.
 */
void smp_call(cpumask_t mask, smp_fn fn, void *arg, uint64_t window[2]);

/* A reusable barrier for n participants. */
struct smp_barrier {
    volatile unsigned count;
    volatile unsigned gen;
    unsigned n;
};

void smp_barrier_init(struct smp_barrier *b, unsigned n);

/* Returns once all n participants have called it for this round. */
void smp_barrier_wait(struct smp_barrier *b);

/* Measures every AP's TSC offset into percpus[] (kernel/smp/smp.c). */
void smp_measure_tsc(void);

/*
 * AP side of bring-up: the C entry the trampoline jumps to, and the park
 * loop, which marks the CPU online and then waits for jobs.
 */
__noreturn void smp_ap_entry(struct percpu *pc);
__noreturn void smp_park(void);

#endif
