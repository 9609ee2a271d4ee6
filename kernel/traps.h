/* SPDX-License-Identifier: MIT */
/* Exceptions: the IDT, the fatal-exception report, and backtraces. */
#ifndef KERNEL_TRAPS_H
#define KERNEL_TRAPS_H

#include <stdint.h>

#include "kernel/lib/compiler.h"

#define IST_STACK_SIZE  16384
#define IST_COUNT       3           /* #DF, NMI, #MC each get a stack */

struct tss {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __packed;
_Static_assert(sizeof(struct tss) == 104, "64-bit TSS");

/* One CPU's GDT, TSS and exception stacks. */
struct trap_cpu {
    uint64_t gdt[5];
    struct tss tss;
    uint8_t ist[IST_COUNT][IST_STACK_SIZE] __aligned(16);
};

/* Saved by kernel/isr.asm; the order matches its pushes. */
struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error;
    uint64_t rip, cs, rflags, rsp, ss;      /* pushed by the CPU */
};

/*
 * On the boot CPU: builds the IDT (the 32 exceptions, the wake-up and
 * spurious interrupt vectors) and loads it with the boot CPU's GDT and TSS.
 */
void traps_init(void);

/* On any other CPU: loads a GDT and TSS in tc (filled here) and the shared IDT. */
void traps_init_cpu(struct trap_cpu *tc);

/* Nonzero once some CPU is reporting a fatal exception: waiters stop waiting. */
extern volatile int traps_fatal;

/* Prints the frame-pointer chain from rbp with symbol names. */
void backtrace(uintptr_t rbp);

/* Called from kernel/isr.asm: reports the exception and fails the run. */
void trap_handler(struct trap_frame *f);

#endif
