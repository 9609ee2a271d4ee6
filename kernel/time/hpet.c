// SPDX-License-Identifier: MIT
// The HPET driver: map the registers, check the period, run the main
// counter for the calibration and read it; nothing else of the HPET is used.
#include "kernel/time/hpet.h"

#include "kernel/time/clkio.h"
#include "kernel/time/tsc_math.h"

#define HPET_MMIO_LEN       0x400u
#define HPET_REG_CAP        0x000u
#define HPET_REG_CFG        0x010u
#define HPET_REG_COUNTER    0x0f0u
#define HPET_CAP_COUNT_64   (1ull << 13)
#define HPET_CFG_ENABLE     1ull
#define HPET_PERIOD_MAX_FS  100000000ull    /* the spec's upper bound: 100 ns */

#define HPET_READ_TRIES     4u

/*
 * The main counter. A 64-bit read reaches the HPET as two 32-bit cycles on
 * some buses, and the halves tear when the low one wraps between them, so
 * the halves are read apart: high, low, high again, until both highs match
 * (the low half wraps once in 43 s at the fastest period the spec allows,
 * so a second try always settles it).
 */
static uint64_t hpet_read(const struct ref *r)
{
    uint32_t hi, lo;

    if (r->mask == UINT32_MAX)
        return clkio_read32(r->regs + HPET_REG_COUNTER);
    hi = clkio_read32(r->regs + HPET_REG_COUNTER + 4);
    for (unsigned i = 0;; i++) {
        uint32_t again;

        lo = clkio_read32(r->regs + HPET_REG_COUNTER);
        again = clkio_read32(r->regs + HPET_REG_COUNTER + 4);
        if (again == hi || i + 1 == HPET_READ_TRIES)
            break;
        hi = again;
    }
    return (uint64_t)hi << 32 | lo;
}

void hpet_open(struct ref *r, uint64_t base, time_map_fn map)
{
    uint64_t cap, period;

    r->regs = map(base, HPET_MMIO_LEN, true);
    if (!r->regs) {
        r->why = "registers cannot be mapped";
        return;
    }
    cap = clkio_read64(r->regs + HPET_REG_CAP);
    period = cap >> 32;
    if (cap == UINT64_MAX || period == 0 || period > HPET_PERIOD_MAX_FS) {
        r->why = "period out of spec (no HPET at the address?)";
        return;
    }
    r->read = hpet_read;
    r->mask = (cap & HPET_CAP_COUNT_64) ? UINT64_MAX : UINT32_MAX;
    r->num = FS_PER_S;
    r->den = period;
    r->hpet_cfg = clkio_read64(r->regs + HPET_REG_CFG);
    r->hpet_was_off = !(r->hpet_cfg & HPET_CFG_ENABLE);
    r->present = true;
    hpet_run(r, true);
}

void hpet_run(const struct ref *r, bool on)
{
    /* Only the main counter: no comparator has its interrupt enabled. */
    if (r->present && r->hpet_was_off)
        clkio_write64(r->regs + HPET_REG_CFG, on ? r->hpet_cfg | HPET_CFG_ENABLE : r->hpet_cfg);
}
