/* SPDX-License-Identifier: MIT */
/*
 * PIT windows: what one poll of channel 2 through a one-shot count saw, the
 * rule that keeps or rejects it, and the summary of a calibration's windows.
 */
#ifndef KERNEL_TIME_WINDOW_H
#define KERNEL_TIME_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/time/tsc_math.h"

#define PIT_HZ          1193182u        /* 8254 input clock */

/* What polling PIT channel 2 through one one-shot count saw, in TSC ticks. */
struct tsc_window {
    uint64_t ticks;         /* from the count being loaded to OUT2 seen high */
    uint64_t start_gap;     /* the TSC bracket around the write that loads the count */
    uint64_t last_gap;      /* the final poll: from the last read of OUT2 low to the end */
    uint64_t max_gap;       /* largest step between two consecutive polls, anywhere */
    uint32_t passes;        /* polls of port 0x61 */
    bool fired;             /* OUT2 rose before the timeout */
    bool high_at_start;     /* OUT2 was already high at the first poll */
};

enum tsc_win_verdict {
    TSC_WIN_OK,
    TSC_WIN_NO_RISE,        /* OUT2 never rose: a clock-gated or missing PIT */
    TSC_WIN_STUCK_HIGH,     /* OUT2 high before the count could expire */
    TSC_WIN_FEW_PASSES,     /* the loop hardly ran: the vCPU was mostly away */
    TSC_WIN_GAP,            /* an outsized gap at an edge: an SMI, a preempted vCPU */
};

/*
 * Polls needed per millisecond of window: one every 10 us on average, as
 * Linux's pit_calibrate_tsc() asks (1000 passes in 10 ms)...
 */
#define TSC_WIN_PASSES_PER_MS   100u
/* ...or, where one poll costs more, this share of the polls its cost allows. */
#define TSC_WIN_POLLS_DIV       4u
/* The consensus band holds this many polls of edge error, at least. */
#define TSC_BAND_POLLS          4u
/* A gap longer than this many typical polls is outsized... */
#define TSC_WIN_GAP_FACTOR      8u
/* ...unless it is too short to matter: at most this share of the window. */
#define TSC_WIN_GAP_MIN_PPM     50u

/*
 * Twice the PIT input clocks from the write that loads a count of latch to
 * OUT2's rise, in mode 0. A real 8254 loads the count on the first input
 * clock after the write, and that clock does not count: its datasheet has
 * OUT2 rise N + 1 clocks after the write of N. The write falls anywhere
 * within a clock, so the interval itself lies between N and N + 1 clocks,
 * N + 1/2 on average: that is used (N + 1 would be biased by half a clock,
 * 21 ppm of a 20 ms window), and the half clock goes into the uncertainty.
 * The PITs of QEMU, KVM and Xen load the count at the write: exactly N.
 */
static inline uint64_t pit_clocks_x2(uint32_t latch, bool loads_next_clock)
{
    return 2ull * latch + (loads_next_clock ? 1 : 0);
}

/*
 * The shortest window worth running, in ms: a real 8254's load phase makes
 * each window uncertain by up to one input clock, and that must stay within
 * the consensus band, or honest windows would disagree with one another.
 * 1 ms is 1193 clocks, 838 ppm a clock; 2 ms is 419 ppm.
 */
#define PIT_MS_MIN  ((1000000000ull + (uint64_t)PIT_HZ * TSC_BAND_PPM - 1) / \
                     ((uint64_t)PIT_HZ * TSC_BAND_PPM))
/* The longest: the 16-bit count's limit, 65535 clocks. */
#define PIT_MS_MAX  54u

/* PIT input clocks in us microseconds, for a one-shot count: 1..65535. */
uint32_t pit_latch_for_us(uint32_t us);

/* How a calibration's windows are run and judged. */
struct tsc_pit_setup {
    unsigned ms;                /* the length of one window */
    uint32_t latch;             /* its input clocks */
    bool loads_next_clock;      /* a real 8254 (pit_clocks_x2()) */
    uint64_t poll_ticks;        /* TSC ticks one poll of OUT2 takes; 0: not measured */
    uint32_t band_ppm;          /* the consensus band */
    unsigned want;              /* clean windows asked for */
};

/*
 * Plans windows of ms milliseconds, want of them, polled at poll_ticks each
 * by a TSC of about hz. A slow poll (a port read that exits to a
 * hypervisor costs 10 us or more) is a coarse edge: where TSC_BAND_POLLS
 * polls are more than the consensus band's share of the window, the window
 * is lengthened to PIT_MS_MAX, and the band widened to those polls where
 * they still do not fit, so that honest windows stay together.
 */
void tsc_pit_plan(struct tsc_pit_setup *s, unsigned ms, unsigned want, bool loads_next_clock,
                  uint64_t poll_ticks, uint64_t hz);

/*
 * Judges one window run as s says. Rejected: OUT2 high at the first poll or
 * never high; fewer polls than the window's length asks, or, where a poll
 * costs more, fewer than a TSC_WIN_POLLS_DIV'th of those its cost allows;
 * an outsized gap at either edge (the count's start bracket or the final
 * poll). See window.c for why a gap inside the window is kept.
 */
enum tsc_win_verdict tsc_window_check(const struct tsc_window *w, const struct tsc_pit_setup *s);
const char *tsc_win_verdict_name(enum tsc_win_verdict v);

/*
 * How far one window's ticks may lie from the truth, in ppm of the window:
 * its edges' brackets, and (tsc_load_phase_ppm) the half clock either way
 * of a real 8254's load phase, 0 for one that loads at the write.
 */
uint64_t tsc_window_edge_ppm(const struct tsc_window *w);
uint32_t tsc_load_phase_ppm(const struct tsc_pit_setup *s);

#define TSC_WINDOWS_MAX         16u                     /* pit_windows= */
#define TSC_RUNS_MAX            (2 * TSC_WINDOWS_MAX)   /* with retries */

struct tsc_pit_result {
    unsigned windows;               /* windows run */
    unsigned accepted;              /* windows the rate rests on */
    unsigned rejected[TSC_WIN_GAP + 1];     /* by verdict */
    unsigned outliers;              /* passed the rule, outside the consensus */
    uint64_t hz;                    /* the consensus; 0 if no window passed */
    uint32_t spread_ppm;
    uint32_t unc_ppm;               /* see struct tsc_clock: edges and half the spread */
    bool usable;
    bool disturbed;                 /* unusable for want of clean windows, not for a wrong PIT */
    enum tsc_win_verdict dead;      /* NO_RISE or STUCK_HIGH if the PIT is dead, else OK */
    char why[80];                   /* when not usable: the reason, for reports */
};

/*
 * Summarises n windows run as s says (their clocks counted as
 * pit_clocks_x2() says). Windows that pass tsc_window_check() go to
 * tsc_consensus() within s->band_ppm. The PIT is usable when the consensus
 * holds a strict majority of those windows, at least two of them (one if
 * s->want is 1), and lies in [TSC_HZ_MIN, TSC_HZ_MAX]. One window whose
 * OUT2 never rose, or OUT2 high at the start of every window, marks it dead.
 */
void tsc_pit_summarise(const struct tsc_window *w, unsigned n, const struct tsc_pit_setup *s,
                       struct tsc_pit_result *out);

#endif
