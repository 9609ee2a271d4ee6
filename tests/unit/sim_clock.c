// SPDX-License-Identifier: MIT
// The simulated machine behind kernel/time/clkio.h in host builds: every
// access costs virtual time, and the devices answer from that time alone.
#include "tests/unit/sim_clock.h"

#include <string.h>

#include "kernel/time/clkio.h"

typedef unsigned __int128 u128;

#define PS_PER_S        1000000000000ull
#define PIT_INPUT_HZ    1193182ull
#define PM_HZ           3579545ull

#define PORTB           0x61
#define PIT_CH2         0x42
#define PIT_CMD         0x43

#define HPET_REG_CAP        0x000u
#define HPET_REG_CFG        0x010u
#define HPET_REG_COUNTER    0x0f0u

struct sim sim;
static uint8_t hpet_regs[0x400] __attribute__((aligned(8)));

void sim_reset(void)
{
    memset(&sim, 0, sizeof(sim));
    sim.now_ps = 5 * SIM_PS_PER_MS;         /* the machine has been up a while */
    sim.tsc_hz = 2096000000ull;
    sim.tsc_read_ps = 10000;
    sim.relax_ps = 20000;
    sim.pit.read_ps = 200000;
    sim.pit.write_ps = 200000;
    sim.pit.rise_ps = UINT64_MAX;
    sim.hpet.present = true;
    sim.hpet.period_fs = 10000000;
    sim.hpet.bits64 = true;
    sim.hpet.read_ps = 100000;
    sim.pm.present = true;
    sim.pm.bits = 24;
    sim.pm.start = 0x123456;
    sim.pm.read_ps = 200000;
    sim_set_vendor("GenuineIntel", 0xd);
    sim_set_cpuid(1, 0x000506e3, 0, 0, 0);  /* family 6, model 0x5e */
    sim_set_hypervisor("TCGTCGTCGTCG", 0x40000001);
}

void sim_set_cpuid(uint32_t leaf, uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx)
{
    unsigned i = 0;

    while (i < sim.ncpuid && sim.cpuid[i].leaf != leaf)
        i++;
    if (i == sim.ncpuid) {
        if (i == sizeof(sim.cpuid) / sizeof(sim.cpuid[0]))
            return;
        sim.ncpuid++;
    }
    sim.cpuid[i] = (struct sim_cpuid){ leaf, { eax, ebx, ecx, edx } };
}

static uint32_t word(const char *s)
{
    uint32_t w;

    memcpy(&w, s, 4);
    return w;
}

void sim_set_vendor(const char *vendor, uint32_t max_leaf)
{
    sim_set_cpuid(0, max_leaf, word(vendor), word(vendor + 8), word(vendor + 4));
}

void sim_set_hypervisor(const char *signature, uint32_t max_leaf)
{
    struct cpuid_regs r = clkio_cpuid(1, 0);

    sim_set_cpuid(1, r.eax, r.ebx, r.ecx | (1u << 31), r.edx);
    sim_set_cpuid(0x40000000, max_leaf, word(signature), word(signature + 4), word(signature + 8));
}

struct cpuid_regs clkio_cpuid(uint32_t leaf, uint32_t sub)
{
    (void)sub;
    for (unsigned i = 0; i < sim.ncpuid; i++)
        if (sim.cpuid[i].leaf == leaf)
            return sim.cpuid[i].r;
    return (struct cpuid_regs){ 0, 0, 0, 0 };
}

uint64_t sim_tsc_at(uint64_t ps)
{
    return (uint64_t)((u128)ps * sim.tsc_hz / PS_PER_S);
}

uint64_t clkio_tsc(void)
{
    sim.now_ps += sim.tsc_read_ps;
    return sim_tsc_at(sim.now_ps);
}

void clkio_relax(void)
{
    sim.now_ps += sim.relax_ps;
}

/* ---- the PIT ----------------------------------------------------------------- */

/* Input clock edge k falls at ceil(k * 10^12 / PIT_INPUT_HZ) ps. */
static uint64_t pit_edge(uint64_t k)
{
    return (uint64_t)(((u128)k * PS_PER_S + PIT_INPUT_HZ - 1) / PIT_INPUT_HZ);
}

static void pit_load(void)
{
    struct sim_pit *p = &sim.pit;
    uint32_t n = p->latch ? p->latch : 0x10000;

    p->seen_high = false;
    p->counts++;
    if (p->loads_next_clock) {
        /* Loaded on the next input clock, which does not count: OUT2 rises
         * on the (N + 1)th clock after the write. */
        uint64_t k = (uint64_t)((u128)sim.now_ps * PIT_INPUT_HZ / PS_PER_S) + 1;
        p->rise_ps = pit_edge(k + n);
    } else {
        /* QEMU and KVM: loaded at the write, high N clocks later. */
        p->rise_ps = sim.now_ps + pit_edge(n);
    }
}

void clkio_outb(uint16_t port, uint8_t v)
{
    struct sim_pit *p = &sim.pit;

    if (p->write_jitter_ps) {
        /* A fixed LCG: the same run every time, phases spread over a clock. */
        p->rng = p->rng * 6364136223846793005ull + 1442695040888963407ull;
        sim.now_ps += (p->rng >> 33) % p->write_jitter_ps;
    }
    sim.now_ps += p->write_ps / 2;
    if (port == PORTB) {
        p->gate = v & 1;
    } else if (port == PIT_CMD) {
        p->bytes = 0;
        p->rise_ps = UINT64_MAX;
    } else if (port == PIT_CH2) {
        if (p->bytes++ == 0) {
            p->latch = v;
        } else {
            p->latch |= (uint32_t)v << 8;
            pit_load();
        }
    }
    sim.now_ps += p->write_ps - p->write_ps / 2;
}

static bool pit_out(void)
{
    const struct sim_pit *p = &sim.pit;

    if (p->mode == SIM_PIT_NO_RISE || !p->gate)
        return false;
    return sim.now_ps >= p->rise_ps;
}

uint8_t clkio_inb(uint16_t port)
{
    struct sim_pit *p = &sim.pit;
    uint8_t v;

    if (port != PORTB)
        return 0xff;
    p->reads++;
    if (p->gap_every && p->reads % p->gap_every == 0)
        sim.now_ps += p->gap_ps;
    sim.now_ps += p->read_ps / 2;          /* the device answers mid-read */
    if (p->mode == SIM_PIT_STUCK_HIGH) {
        v = 0xff;
    } else {
        v = (uint8_t)((p->gate ? 1 : 0) | (pit_out() ? 0x20 : 0));
        if ((v & 0x20) && !p->seen_high) {
            p->seen_high = true;
            if (p->gap_at_rise && p->counts % p->gap_at_rise == 0)
                sim.now_ps += p->gap_ps;
        }
    }
    sim.now_ps += p->read_ps - p->read_ps / 2;
    return v;
}

/* ---- the ACPI PM timer ------------------------------------------------------- */

uint32_t clkio_inl(uint16_t port)
{
    const struct sim_pm *pm = &sim.pm;
    uint64_t mask = pm->bits == 32 ? 0xffffffffull : 0xffffffull;
    uint64_t v;

    if (port != SIM_PM_PORT || !pm->present)
        return 0xffffffffu;
    sim.now_ps += pm->read_ps / 2;
    v = pm->start + (pm->frozen ? 0 : (uint64_t)((u128)sim.now_ps * PM_HZ / PS_PER_S));
    sim.now_ps += pm->read_ps - pm->read_ps / 2;
    return (uint32_t)(v & mask);
}

/* ---- the HPET ------------------------------------------------------------------ */

static uint64_t hpet_count(void)
{
    const struct sim_hpet *h = &sim.hpet;
    uint64_t v = h->count_at;

    if ((h->cfg & 1) && !h->frozen)
        v += (uint64_t)((u128)(sim.now_ps - h->since_ps) * 1000u / h->period_fs);
    return h->bits64 ? v : (uint32_t)v;
}

static unsigned hpet_off(const volatile void *reg)
{
    const uint8_t *p = (const uint8_t *)(uintptr_t)reg;

    if (p < hpet_regs || p >= hpet_regs + sizeof(hpet_regs))
        return UINT32_MAX;
    return (unsigned)(p - hpet_regs);
}

static uint32_t hpet_reg32(unsigned off)
{
    const struct sim_hpet *h = &sim.hpet;
    uint64_t cap = (h->period_fs << 32) | (h->bits64 ? 1u << 13 : 0) | 0x80868201u;

    switch (off) {
    case HPET_REG_CAP: return (uint32_t)cap;
    case HPET_REG_CAP + 4: return (uint32_t)(cap >> 32);
    case HPET_REG_CFG: return (uint32_t)h->cfg;
    case HPET_REG_CFG + 4: return (uint32_t)(h->cfg >> 32);
    case HPET_REG_COUNTER: return (uint32_t)hpet_count();
    case HPET_REG_COUNTER + 4: return (uint32_t)(hpet_count() >> 32);
    }
    return 0;
}

uint32_t clkio_read32(const volatile void *reg)
{
    uint32_t v;

    sim.now_ps += sim.hpet.read_ps / 2;
    v = hpet_reg32(hpet_off(reg));
    sim.now_ps += sim.hpet.read_ps - sim.hpet.read_ps / 2;
    return v;
}

uint64_t clkio_read64(const volatile void *reg)
{
    unsigned off = hpet_off(reg);
    uint64_t lo, hi;

    if (!sim.hpet.split64) {
        sim.now_ps += sim.hpet.read_ps / 2;
        lo = hpet_reg32(off);
        hi = hpet_reg32(off + 4);
        sim.now_ps += sim.hpet.read_ps - sim.hpet.read_ps / 2;
    } else {
        /* Two bus cycles, low half first: they tear when the low half wraps between them. */
        lo = clkio_read32(reg);
        hi = clkio_read32((const volatile uint8_t *)reg + 4);
    }
    if (off == HPET_REG_COUNTER)
        sim.hpet.reads64++;
    return hi << 32 | lo;
}

void clkio_write64(volatile void *reg, uint64_t v)
{
    struct sim_hpet *h = &sim.hpet;

    sim.now_ps += h->read_ps;
    if (hpet_off(reg) == HPET_REG_CFG) {
        h->count_at = hpet_count();
        h->since_ps = sim.now_ps;
        h->cfg = v;
    }
}

void *sim_map(uint64_t phys, uint64_t len, bool mmio)
{
    if (mmio && sim.hpet.present && phys == SIM_HPET_BASE && len <= sizeof(hpet_regs))
        return hpet_regs;
    return NULL;
}
