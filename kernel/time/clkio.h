/* SPDX-License-Identifier: MIT */
/*
 * How the clock drivers touch hardware: port I/O, device registers and the
 * mapping that reaches them, the TSC and CPUID. The kernel's are the CPU's
 * own instructions; host builds link a simulated machine instead
 * (tests/unit/sim_clock.c), so the drivers and the calibration run unchanged
 * against devices a test controls.
 */
#ifndef KERNEL_TIME_CLKIO_H
#define KERNEL_TIME_CLKIO_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/cpu.h"

/*
 * How timekeeping reaches physical memory: a pointer to len bytes at phys,
 * device registers (mmio) uncached, that stays valid until the kernel ends;
 * NULL when the range cannot be mapped. The kernel passes mm's phys_map().
 */
typedef void *(*time_map_fn)(uint64_t phys, uint64_t len, bool mmio);

#ifndef BOOTHEAP_HOST
#include "kernel/time/tsc.h"

static inline uint8_t clkio_inb(uint16_t port) { return inb(port); }
static inline uint32_t clkio_inl(uint16_t port) { return inl(port); }
static inline void clkio_outb(uint16_t port, uint8_t v) { outb(port, v); }
static inline uint32_t clkio_read32(const volatile void *reg) { return *(const volatile uint32_t *)reg; }
static inline uint64_t clkio_read64(const volatile void *reg) { return *(const volatile uint64_t *)reg; }
static inline void clkio_write64(volatile void *reg, uint64_t v) { *(volatile uint64_t *)reg = v; }
/* The ordered read of kernel/time/tsc.h. */
static inline uint64_t clkio_tsc(void) { return tsc_now(); }
static inline void clkio_relax(void) { cpu_relax(); }
static inline struct cpuid_regs clkio_cpuid(uint32_t leaf, uint32_t sub) { return cpuid(leaf, sub); }
#else
uint8_t clkio_inb(uint16_t port);
uint32_t clkio_inl(uint16_t port);
void clkio_outb(uint16_t port, uint8_t v);
uint32_t clkio_read32(const volatile void *reg);
uint64_t clkio_read64(const volatile void *reg);
void clkio_write64(volatile void *reg, uint64_t v);
uint64_t clkio_tsc(void);
void clkio_relax(void);
struct cpuid_regs clkio_cpuid(uint32_t leaf, uint32_t sub);
#endif

#endif
