/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU state, reached through the GS base: %gs:0 holds the structure's
 * own address and %gs:8 the CPU's index (0 is the boot CPU). Set by
 * kernel/smp/smp.c on every CPU before it runs any job.
 */
#ifndef KERNEL_SMP_PERCPU_H
#define KERNEL_SMP_PERCPU_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/cpu.h"

#define MSR_GS_BASE     0xc0000101

struct trap_cpu;

struct percpu {
    struct percpu *self;            /* %gs:0 */
    uint32_t cpu;                   /* %gs:8: index, 0 = the boot CPU */
    uint32_t apic_id;
    uint32_t node;                  /* NUMA node (kernel/acpi/topo.h) */
    volatile uint32_t online;       /* set by the CPU itself once it can take jobs */
    uintptr_t stack_lo, stack_hi;   /* its kernel stack */
    struct trap_cpu *traps;         /* its GDT, TSS and exception stacks */
    int64_t tsc_offset;             /* its TSC minus the boot CPU's, in ticks */
    uint64_t tsc_rtt;               /* round trip, in boot-CPU ticks, the offset rests on */
};
_Static_assert(offsetof(struct percpu, self) == 0, "this_cpu() reads %gs:0");
_Static_assert(offsetof(struct percpu, cpu) == 8, "smp_processor_id() reads %gs:8");

/* This CPU's state; only after percpu_install() ran on it. */
static inline struct percpu *this_cpu(void)
{
    struct percpu *p;

    __asm__ volatile("movq %%gs:0, %0" : "=r"(p));
    return p;
}

/* This CPU's index; only after percpu_install() ran on it. */
static inline unsigned smp_processor_id(void)
{
    uint32_t v;

    __asm__ volatile("movl %%gs:8, %0" : "=r"(v));
    return v;
}

/* Points this CPU's GS base at pc (pc->self is set here). */
static inline void percpu_install(struct percpu *pc)
{
    pc->self = pc;
    wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)pc);
}

/* This CPU's state, or NULL before percpu_install(): safe in any context. */
static inline struct percpu *percpu_current(void)
{
    return (struct percpu *)(uintptr_t)rdmsr(MSR_GS_BASE);
}

#endif
