/* SPDX-License-Identifier: MIT */
/*
 * A simulated machine for the clock drivers (kernel/time/clkio.h): a TSC,
 * an 8254 PIT channel 2 behind port 0x61, an HPET, an ACPI PM timer and a
 * CPUID table, all driven by one virtual clock that every access advances.
 * Time is in picoseconds; nothing here reads the host's clocks.
 */
#ifndef TESTS_UNIT_SIM_CLOCK_H
#define TESTS_UNIT_SIM_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/cpu.h"

#define SIM_PS_PER_US   1000000ull
#define SIM_PS_PER_MS   1000000000ull
#define SIM_HPET_BASE   0xfed00000ull
#define SIM_PM_PORT     0x608u

enum sim_pit_mode {
    SIM_PIT_OK,
    SIM_PIT_STUCK_HIGH,     /* port 0x61 floats high: no PIT behind it */
    SIM_PIT_NO_RISE,        /* a clock-gated PIT: OUT2 never rises */
};

struct sim_pit {
    enum sim_pit_mode mode;
    bool loads_next_clock;  /* a real 8254: the count loads on the next input clock */
    uint64_t read_ps;       /* cost of one read of port 0x61 */
    uint64_t write_ps;      /* cost of one port write */
    uint64_t write_jitter_ps;   /* up to this much more, pseudo-random, per write */
    uint64_t gap_ps;        /* an injected stall (an SMI, a preempted vCPU)... */
    unsigned gap_every;     /* ...before every gap_every-th read of port 0x61 (0: never) */
    unsigned gap_at_rise;   /* ...after the read that first sees OUT2 high, in every
                               gap_at_rise-th count (0: never) */
    /* state */
    bool gate;
    unsigned bytes;         /* count bytes written since the command */
    uint32_t latch;
    uint64_t rise_ps;       /* when OUT2 rises; UINT64_MAX before a count is loaded */
    bool seen_high;
    unsigned reads, counts;
    uint64_t rng;
};

struct sim_hpet {
    bool present;
    uint64_t period_fs;     /* 10^7: QEMU's 100 MHz */
    bool bits64;
    bool frozen;            /* enabled, but the counter does not count */
    bool split64;           /* a 64-bit read is two 32-bit cycles, low half first */
    uint64_t read_ps;
    /* state */
    uint64_t cfg;
    uint64_t count_at;      /* the counter's value at since_ps */
    uint64_t since_ps;
    unsigned reads64;
};

struct sim_pm {
    bool present;
    unsigned bits;          /* how wide the counter really is: 24 or 32 */
    bool frozen;
    uint64_t start;         /* its value at time 0 */
    uint64_t read_ps;
};

struct sim_cpuid {
    uint32_t leaf;
    struct cpuid_regs r;
};

struct sim {
    uint64_t now_ps;
    uint64_t tsc_hz;
    uint64_t tsc_read_ps;
    uint64_t relax_ps;
    struct sim_pit pit;
    struct sim_hpet hpet;
    struct sim_pm pm;
    unsigned ncpuid;
    struct sim_cpuid cpuid[16];
};

extern struct sim sim;

/*
 * Resets the machine to a QEMU q35 under TCG as the project sees it: a
 * 2.096 GHz TSC, an emulated PIT whose count loads at the write, a 64-bit
 * 100 MHz HPET (stopped, as firmware leaves it), a 24-bit PM timer, reads of
 * about 200 ns, and an Intel CPU without the TSC leaves, under TCG's
 * hypervisor signature.
 */
void sim_reset(void);

/* Sets (or adds) a CPUID leaf; subleaves are not modelled. */
void sim_set_cpuid(uint32_t leaf, uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx);

/* Puts a 12-byte vendor or hypervisor signature into a leaf's EBX, ECX, EDX (vendor order: EBX, EDX, ECX). */
void sim_set_vendor(const char *vendor, uint32_t max_leaf);
void sim_set_hypervisor(const char *signature, uint32_t max_leaf);

/* The time_map_fn of the machine: the HPET's registers, nothing else. */
void *sim_map(uint64_t phys, uint64_t len, bool mmio);

/* The TSC's count at a time, in ticks. */
uint64_t sim_tsc_at(uint64_t ps);

#endif
