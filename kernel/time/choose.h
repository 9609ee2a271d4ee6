/* SPDX-License-Identifier: MIT */
/*
 * The calibration's policy: every clock with an opinion on the TSC rate,
 * and the rule that decides which one the kernel believes.
 */
#ifndef KERNEL_TIME_CHOOSE_H
#define KERNEL_TIME_CHOOSE_H

#include <stdbool.h>
#include <stdint.h>

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
