// SPDX-License-Identifier: MIT
// The 8254 PIT's channel 2 as a stopwatch for the TSC: a mode 0 one-shot,
// gated through port 0x61 with the speaker off, its OUT2 polled until it rises.
#include "kernel/time/pit.h"

#include "kernel/lib/libc.h"
#include "kernel/time/clkio.h"
#include "kernel/time/tsc_math.h"

#define PIT_CH2         0x42
#define PIT_CMD         0x43
/* Channel 2, low byte then high byte, mode 0 (interrupt on terminal count), binary. */
#define PIT_CMD_CH2_ONESHOT 0xb0
/* Port B of the PC's system control: gate of channel 2, speaker data, OUT2. */
#define PORTB           0x61
#define PORTB_GATE2     0x01
#define PORTB_SPEAKER   0x02
#define PORTB_OUT2      0x20
#define PORTB_WRITABLE  0x0f    /* the high nibble is read-only status */

/*
 * Polls may not run faster than one per 1/64 us: no port read is that quick.
 * The cap only matters if the TSC itself stood still, when the TSC timeout
 * would never come.
 */
#define PIT_POLLS_PER_US_MAX 64u

#define PIT_POLL_SAMPLES 15u

uint64_t pit_poll_ticks(void)
{
    uint64_t t[PIT_POLL_SAMPLES], prev = clkio_tsc();

    for (unsigned i = 0; i < PIT_POLL_SAMPLES; i++) {
        uint64_t now;

        (void)clkio_inb(PORTB);
        now = clkio_tsc();
        t[i] = now - prev;
        prev = now;
    }
    return tsc_median(t, PIT_POLL_SAMPLES);
}

/*
 * The window of Xen's init_pit_and_calibrate_tsc(), with the poll statistics
 * of Linux's pit_calibrate_tsc(): each poll reads OUT2 and then the TSC, so
 * the step between two TSC reads is one poll, and the last read is the end.
 */
void pit_oneshot(uint32_t latch, uint64_t timeout_ticks, struct tsc_window *w)
{
    uint8_t portb = clkio_inb(PORTB);
    uint64_t window_us = (uint64_t)latch * 1000000u / PIT_HZ + 1;
    uint64_t cap = window_us * PIT_POLLS_PER_US_MAX + 1000;
    uint64_t before, start, prev, now;

    memset(w, 0, sizeof(*w));
    if (latch == 0 || latch > 0xffff)
        return;
    /* Gate high so the count runs; speaker data low so nothing sounds. */
    clkio_outb(PORTB, (uint8_t)((portb & PORTB_WRITABLE & ~PORTB_SPEAKER) | PORTB_GATE2));
    clkio_outb(PIT_CMD, PIT_CMD_CH2_ONESHOT);
    clkio_outb(PIT_CH2, latch & 0xff);
    before = clkio_tsc();
    clkio_outb(PIT_CH2, (uint8_t)(latch >> 8));   /* the count loads on the next input clock */
    start = prev = now = clkio_tsc();
    w->start_gap = start - before;
    for (;;) {
        uint8_t v = clkio_inb(PORTB);

        now = clkio_tsc();
        w->last_gap = now - prev;
        if (w->last_gap > w->max_gap)
            w->max_gap = w->last_gap;
        prev = now;
        w->passes++;
        if (v & PORTB_OUT2) {
            w->fired = true;
            /* High at the very first poll: a count of a millisecond or
             * more cannot have run out yet, so OUT2 is stuck (or the port
             * floats high because there is no PIT behind it). */
            w->high_at_start = w->passes == 1;
            break;
        }
        /* OUT2 is read before the clock is checked, so a vCPU preempted
         * past the deadline still sees the rise instead of timing out. */
        if (now - start > timeout_ticks || w->passes >= cap)
            break;
    }
    w->ticks = now - start;
    /* Gate back as found; the speaker stays off. */
    clkio_outb(PORTB, (uint8_t)(portb & PORTB_WRITABLE & ~PORTB_SPEAKER));
}
