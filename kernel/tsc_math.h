/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of TSC calibration, free of port I/O so the host tests can
 * drive it: the ticks-to-ns scale, the PIT window rule, the median and spread
 * across windows, and the choice of the clock the kernel believes.
 */
#ifndef KERNEL_TSC_MATH_H
#define KERNEL_TSC_MATH_H

#include <stdbool.h>
#include <stdint.h>

#define PIT_HZ          1193182u        /* 8254 input clock */
#define PMTMR_HZ        3579545u        /* ACPI PM timer */
#define FS_PER_S        1000000000000000ull
#define NS_PER_S        1000000000ull

/* A TSC figure outside [1 MHz, 100 GHz] is a broken clock, not a fast CPU. */
#define TSC_HZ_MIN      1000000ull
#define TSC_HZ_MAX      100000000000ull

/* floor(a * b / c) without overflow; UINT64_MAX when c is 0 or it does not fit. */
uint64_t tsc_muldiv(uint64_t a, uint64_t b, uint64_t c);

/*
 * The TSC rate that tsc_ticks over ref_ticks of a reference clock running at
 * ref_num / ref_den Hz implies, in Hz, rounded to nearest. Returns 0 when
 * ref_ticks or ref_den is 0 or the result does not fit.
 */
uint64_t tsc_hz_measured(uint64_t tsc_ticks, uint64_t ref_ticks, uint64_t ref_num,
                         uint64_t ref_den);

/* (hz - ref_hz) / ref_hz in parts per million, rounded to nearest; 0 if ref_hz is 0. */
int64_t tsc_ppm(uint64_t hz, uint64_t ref_hz);

/* ---- ticks to nanoseconds ----------------------------------------------- */

/* ns = (ticks * mult) >> shift, the product taken in 128 bits. */
struct tsc_scale {
    uint64_t hz;        /* 0: no scale */
    uint64_t mult;
    unsigned shift;
};

/* Fills s for a TSC of hz Hz; returns false (and a zero scale) when hz is 0. */
bool tsc_scale_init(struct tsc_scale *s, uint64_t hz);

/*
 * ticks in ns: never below the exact value, and less than 1 ns above it for
 * any interval under 2^63 ns; UINT64_MAX when the result does not fit in 64
 * bits or s is a zero scale. See tsc_math.c for the proof.
 */
uint64_t tsc_scale_ns(const struct tsc_scale *s, uint64_t ticks);

/* ---- PIT windows --------------------------------------------------------- */

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
 * Linux's pit_calibrate_tsc() asks (1000 passes in 10 ms).
 */
#define TSC_WIN_PASSES_PER_MS   100u
/* A gap longer than this many typical polls is outsized... */
#define TSC_WIN_GAP_FACTOR      8u
/* ...unless it is too short to matter: at most this share of the window. */
#define TSC_WIN_GAP_MIN_PPM     50u

/*
 * Judges one window of latch PIT input clocks. Rejected: OUT2 high at the
 * first poll or never high; fewer polls than the window's length asks; an
 * outsized gap at either edge (the count's start bracket or the final poll).
 * See tsc_math.c for why a gap inside the window is kept.
 */
enum tsc_win_verdict tsc_window_check(const struct tsc_window *w, uint32_t latch);
const char *tsc_win_verdict_name(enum tsc_win_verdict v);

/* Sorts v[0..n) ascending and returns its median (README's rule); 0 for n = 0. */
uint64_t tsc_median(uint64_t *v, unsigned n);

/* (max - min) / median of v[0..n) in ppm, rounded to nearest; 0 for n < 2. */
uint32_t tsc_spread_ppm(const uint64_t *v, unsigned n, uint64_t median);

/*
 * Windows that passed the rule can still be off when a clock stood still
 * across an edge without any poll noticing (an emulated clock that freezes
 * and catches up). The honest ones agree to a few ppm, so the result rests
 * on the largest group lying within this band of one another.
 */
#define TSC_BAND_PPM            500u

struct tsc_consensus {
    uint64_t hz;            /* median of the group; 0 for no values */
    unsigned kept;          /* its size */
    uint32_t spread_ppm;    /* (max - min) / median within it */
};

/*
 * The largest group of v[0..n) whose members all lie within band_ppm of its
 * lowest (the lowest such group on a tie): its median, size and spread.
 * Sorts v.
 */
void tsc_consensus(uint64_t *v, unsigned n, uint32_t band_ppm, struct tsc_consensus *out);

#define TSC_WINDOWS_MAX         16u                     /* pit_windows= */
#define TSC_RUNS_MAX            (2 * TSC_WINDOWS_MAX)   /* with retries */

struct tsc_pit_result {
    unsigned windows;               /* windows run */
    unsigned accepted;              /* windows the rate rests on */
    unsigned rejected[TSC_WIN_GAP + 1];     /* by verdict */
    unsigned outliers;              /* passed the rule, outside the consensus */
    uint64_t hz;                    /* the consensus; 0 if no window passed */
    uint32_t spread_ppm;
    bool usable;
    enum tsc_win_verdict dead;      /* NO_RISE or STUCK_HIGH if the PIT is dead, else OK */
    char why[80];                   /* when not usable: the reason, for reports */
};

/*
 * Summarises n windows of latch input clocks each, want of them asked for.
 * Windows that pass tsc_window_check() go to tsc_consensus(). The PIT is
 * usable when the consensus holds a strict majority of those windows, at
 * least two of them (one if want is 1), and lies in [TSC_HZ_MIN, TSC_HZ_MAX].
 * One window whose OUT2 never rose, or OUT2 high at the start of every
 * window, marks it dead.
 */
void tsc_pit_summarise(const struct tsc_window *w, unsigned n, uint32_t latch, unsigned want,
                       struct tsc_pit_result *out);

/* ---- choosing the clock ------------------------------------------------- */

/* Every clock with an opinion on the TSC rate, best reference first after the PIT. */
enum tsc_src {
    TSC_SRC_PIT,
    TSC_SRC_HYPERVISOR,     /* CPUID 0x40000010 EAX: what the hypervisor programmed */
    TSC_SRC_CPUID15,        /* crystal * EBX / EAX: exact by definition */
    TSC_SRC_HPET,           /* measured, 10-100 ns resolution */
    TSC_SRC_PMTIMER,        /* measured, 279 ns resolution */
    TSC_SRC_CPUID16,        /* nominal base MHz: approximate */
    TSC_SRC_COUNT,
    TSC_SRC_NONE = TSC_SRC_COUNT,
};

/* README's names: pit, hypervisor, cpuid15, hpet, pmtimer, cpuid16, none. */
const char *tsc_src_name(enum tsc_src s);

enum tsc_clk_state { TSC_CLK_ABSENT, TSC_CLK_OK, TSC_CLK_BAD };

struct tsc_clock {
    enum tsc_clk_state state;
    uint64_t hz;            /* the TSC rate this clock implies; 0 when it has none */
    const char *why;        /* BAD or ABSENT: a short reason for the report, or NULL */
};

/*
 * Two clocks agree when they differ, relative to the lower figure, by at
 * most the looser of their tolerances. Measured clocks and exact CPUID/hypervisor figures: 1000 ppm,
 * five times the 200 ppm that a PIT window is expected to reach under KVM and
 * far below the percent-scale errors of a PIT that lies. CPUID 0x16 gives a
 * nominal base frequency in whole MHz, which can sit a few tenths of a
 * percent off the real TSC: 10000 ppm.
 */
#define TSC_AGREE_PPM           1000u
#define TSC_AGREE_NOMINAL_PPM   10000u
uint32_t tsc_agree_ppm(enum tsc_src s);

#define TSC_REASON_MAX 256

struct tsc_choice {
    enum tsc_src source;            /* TSC_SRC_NONE when nothing is usable */
    uint64_t hz;                    /* 0 when uncalibrated */
    bool calibrated;
    enum tsc_clk_state status[TSC_SRC_COUNT];   /* per clock, after the vote */
    bool has_ppm[TSC_SRC_COUNT];    /* ppm[] is set: clock and PIT both have a figure */
    int64_t ppm[TSC_SRC_COUNT];     /* clock vs the PIT */
    char reason[TSC_REASON_MAX];
};

/*
 * Chooses the TSC rate from clk[TSC_SRC_COUNT] (indexed by enum tsc_src).
 * The PIT wins when it is OK and agrees with every reference present, or
 * with a strict majority of them. Otherwise the first reference, in enum
 * order, that another usable clock corroborates; failing that the first
 * usable reference. No usable clock: source NONE, hz 0, not calibrated.
 * A clock's status ends BAD when it is unusable or disagrees with the
 * chosen rate. Never fails; reason says why, in words.
 */
void tsc_choose(const struct tsc_clock clk[TSC_SRC_COUNT], struct tsc_choice *out);

#endif
