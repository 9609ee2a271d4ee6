/* SPDX-License-Identifier: MIT */
/*
 * What the CPU and the hypervisor say the TSC rate is, without measuring:
 * CPUID 0x15 (TSC/crystal ratio and crystal Hz), CPUID 0x16 (base MHz) and
 * the hypervisor timing leaf 0x40000010 (TSC kHz).
 */
#ifndef KERNEL_TIME_LEAVES_H
#define KERNEL_TIME_LEAVES_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/cpu.h"
#include "kernel/time/choose.h"
#include "kernel/time/tsc.h"

/* The raw leaves, as read; a leaf beyond the CPU's range reads as zeros. */
struct tsc_leaves {
    char vendor[13];
    uint32_t family, model;         /* display family and model, as cpu_init() computes them */
    uint32_t max_leaf;
    struct cpuid_regs l15, l16;
    bool hypervisor;                /* CPUID 1 ECX bit 31 */
    char hv_signature[13];
    uint32_t hv_max_leaf;
    struct cpuid_regs l40000010;
    uint32_t max_ext_leaf;
    uint32_t ext21_eax;             /* CPUID 0x80000021 EAX */
};

/* Reads the leaves from this CPU. */
void tsc_leaves_read(struct tsc_leaves *l);

/*
 * How a TSC read must be fenced on this CPU (kernel/time/tsc.h): LFENCE on
 * every vendor but AMD and Hygon, and on those when CPUID 0x80000021 EAX
 * bit 2 says LFENCE always serialises; MFENCE otherwise.
 */
enum tsc_fence tsc_leaves_fence(const struct tsc_leaves *l);

/* "lfence" or "mfence", for reports. */
const char *tsc_fence_name(enum tsc_fence f);

/*
 * Fills the CPUID 0x15, CPUID 0x16 and hypervisor entries of clk (indexed
 * by enum tsc_src) from l; leaves the other entries alone.
 */
void tsc_leaves_clocks(const struct tsc_leaves *l, struct tsc_clock *clk);

#endif
