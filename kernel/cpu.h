/* SPDX-License-Identifier: MIT */
/* CPU access: port I/O, CPUID, MSRs, control registers, the TSC, features. */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <stdbool.h>
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint16_t inw(uint16_t port) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

struct cpuid_regs { uint32_t eax, ebx, ecx, edx; };

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_regs r;

    __asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                     : "a"(leaf), "c"(subleaf));
    return r;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;

    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

/* Unordered TSC read; timed windows use tsc_now() from kernel/time/tsc.h. */
static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void lfence(void) { __asm__ volatile("lfence" ::: "memory"); }
static inline void sfence(void) { __asm__ volatile("sfence" ::: "memory"); }
static inline void mfence(void) { __asm__ volatile("mfence" ::: "memory"); }

static inline uint64_t read_cr0(void) { uint64_t v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr2(void) { uint64_t v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr3(void) { uint64_t v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr4(void) { uint64_t v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static inline void write_cr0(uint64_t v) { __asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory"); }
static inline void write_cr3(uint64_t v) { __asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory"); }
static inline void write_cr4(uint64_t v) { __asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory"); }

#define MSR_EFER        0xc0000080
#define EFER_LME        (1u << 8)       /* long mode: boot/entry.asm sets it */
#define EFER_NXE        (1u << 11)      /* no-execute: boot/entry.asm sets it when CPUID has NX */

/*
 * What runs the benchmark: bare metal (none), a hypervisor named by CPUID, or
 * the hosted runner (hosted/): Linux user space on the host's own CPU.
 */
enum accel { ACCEL_NONE, ACCEL_KVM, ACCEL_TCG, ACCEL_OTHER, ACCEL_HOST };

/* What the boot CPU offers, read once by cpu_init(). */
struct cpu_info {
    char vendor[13];
    char brand[49];
    uint32_t max_leaf, max_ext_leaf;
    uint32_t family, model, stepping;
    bool nx;                    /* EFER.NXE is on (set by boot/entry.asm) */
    bool gbpages;               /* 1 GiB pages: CPUID 0x80000001 EDX bit 26 */
    bool invariant_tsc;         /* CPUID 0x80000007 EDX bit 8 */
    bool rdtscp;                /* CPUID 0x80000001 EDX bit 27 */
    bool sse2;
    bool hypervisor;            /* CPUID 1 ECX bit 31 */
    char hv_signature[13];      /* leaf 0x40000000, e.g. "KVMKVMKVM" */
    uint32_t hv_max_leaf;
    enum accel accel;           /* from the signature */
    uint32_t phys_bits, virt_bits;
};

extern struct cpu_info cpu;

void cpu_init(void);

/* "none", "KVM", "TCG", "other hypervisor" or "host": the records' accel. */
const char *accel_name(enum accel a);

/*
 * What timings taken under a are worth, as a note for the reports' accelerator
 * line (": ..."), or "" when they are plain hardware or hypervisor time.
 */
const char *accel_caveat(enum accel a);

#endif
