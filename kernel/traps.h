/* SPDX-License-Identifier: MIT */
/* Exceptions: the IDT, the fatal-exception report, and backtraces. */
#ifndef KERNEL_TRAPS_H
#define KERNEL_TRAPS_H

#include <stdint.h>

/* Saved by kernel/isr.asm; the order matches its pushes. */
struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error;
    uint64_t rip, cs, rflags, rsp, ss;      /* pushed by the CPU */
};

/* Loads the GDT with a TSS (separate stacks for #DF, NMI, #MC) and the IDT. */
void traps_init(void);

/* Prints the frame-pointer chain from rbp with symbol names. */
void backtrace(uintptr_t rbp);

/* Called from kernel/isr.asm: reports the exception and fails the run. */
void trap_handler(struct trap_frame *f);

#endif
