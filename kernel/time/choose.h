/* SPDX-License-Identifier: MIT */
/*
 * The calibration's policy: every clock with an opinion on the TSC rate,
 * ranked by the kind of figure it gives, and the rule that decides which
 * one the kernel believes. docs/design.md ("Choosing the TSC's rate")
 * states the same rule.
 */
#ifndef KERNEL_TIME_CHOOSE_H
#define KERNEL_TIME_CHOOSE_H

#include <stdbool.h>
#include <stdint.h>

/* Every clock with an opinion on the TSC rate, in the record's order. */
enum tsc_src {
    TSC_SRC_PIT,
    TSC_SRC_HYPERVISOR,     /* CPUID 0x40000010 EAX: what the hypervisor programmed */
    TSC_SRC_CPUID15,        /* crystal * EBX / EAX */
    TSC_SRC_HPET,           /* measured, 10-100 ns resolution */
    TSC_SRC_PMTIMER,        /* measured, 279 ns resolution */
    TSC_SRC_CPUID16,        /* nominal base MHz: approximate */
    TSC_SRC_COUNT,
    TSC_SRC_NONE = TSC_SRC_COUNT,
};

/* The records' names: pit, hypervisor, cpuid15, hpet, pmtimer, cpuid16, none. */
const char *tsc_src_name(enum tsc_src s);

/*
 * What kind of figure a clock gives, least trusted first (so that a clock
 * nobody classified is nominal):
 *  - nominal: a stated frequency, good to about 1% at best: CPUID 0x16's
 *    base MHz, and the timing leaf of a hypervisor not known to fill it
 *    with the rate it runs the TSC at;
 *  - computed: the TSC's rate by the CPU's or the hypervisor's own
 *    definition: CPUID 0x15 with a crystal frequency that is enumerated or
 *    documented for the CPU model, the timing leaf of KVM or VMware;
 *  - measured: the TSC counted against a crystal-timed counter: the PIT,
 *    the HPET, the ACPI PM timer.
 */
enum tsc_kind { TSC_KIND_NOMINAL, TSC_KIND_COMPUTED, TSC_KIND_MEASURED };

/* "nominal", "computed", "measured". */
const char *tsc_kind_name(enum tsc_kind k);

enum tsc_clk_state { TSC_CLK_ABSENT, TSC_CLK_OK, TSC_CLK_BAD };

struct tsc_clock {
    enum tsc_clk_state state;
    enum tsc_kind kind;
    uint64_t hz;            /* the TSC rate this clock implies; 0 when it has none */
    /*
     * How far hz may lie from the rate its own reference implies, in ppm:
     * the measurement's edges, resolution and spread for a measured clock,
     * the rounding of a computed one, 1% for a nominal one. The accuracy
     * of the crystal behind a figure is not counted, for any kind.
     */
    uint32_t unc_ppm;
    const char *why;        /* BAD or ABSENT: a short reason for the report, or NULL */
    bool disturbed;         /* BAD for want of clean samples (a loaded host), not a wrong clock */
};

/*
 * Two clocks agree when they differ, relative to the lower figure, by at
 * most the looser of their kinds' tolerances plus both uncertainties.
 * Measured and computed clocks: 1000 ppm, five times the 200 ppm that a PIT
 * window is expected to reach under KVM and far below the percent-scale
 * errors of a PIT that lies. Nominal figures: 10000 ppm, the 1% they are
 * good to.
 */
#define TSC_AGREE_PPM           1000u
#define TSC_AGREE_NOMINAL_PPM   10000u
uint32_t tsc_agree_ppm(enum tsc_kind k);

/* How far, in ppm of the lower figure, a and b may differ and still agree. */
uint64_t tsc_agree_bound(const struct tsc_clock *a, const struct tsc_clock *b);

/* The uncertainty that a nominal figure carries, in ppm. */
#define TSC_NOMINAL_UNC_PPM     10000u

#define TSC_REASON_MAX 256

struct tsc_choice {
    enum tsc_src source;            /* TSC_SRC_NONE when nothing is usable */
    uint64_t hz;                    /* 0 when uncalibrated */
    bool calibrated;
    enum tsc_kind kind;             /* the chosen clock's */
    uint32_t unc_ppm;               /* the chosen clock's */
    enum tsc_clk_state status[TSC_SRC_COUNT];   /* per clock, after the vote */
    bool has_ppm[TSC_SRC_COUNT];    /* ppm[] is set: clock and PIT both have a figure */
    int64_t ppm[TSC_SRC_COUNT];     /* clock vs the PIT */
    char reason[TSC_REASON_MAX];
};

/*
 * Chooses the TSC rate from clk[TSC_SRC_COUNT] (indexed by enum tsc_src).
 * A clock is usable when its state is OK and its figure lies in
 * [TSC_HZ_MIN, TSC_HZ_MAX]. The rule:
 *  1. Only the most trusted kind among the usable clocks supplies the rate:
 *     a clock of a lesser kind never overrides one of a better kind, and is
 *     marked bad when it disagrees with the rate chosen.
 *  2. Within that kind, the clock that most others of the kind agree with
 *     wins; a tie goes to the one that more clocks of lesser kinds agree
 *     with; a remaining tie to the first in rank order: pit, hpet, pmtimer,
 *     cpuid15, hypervisor, cpuid16.
 * No usable clock: source NONE, hz 0, not calibrated. A clock's status ends
 * BAD when it is unusable or disagrees with the chosen rate. Never fails;
 * reason says why, in words.
 */
void tsc_choose(const struct tsc_clock clk[TSC_SRC_COUNT], struct tsc_choice *out);

#endif
