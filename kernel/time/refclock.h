/* SPDX-License-Identifier: MIT */
/*
 * Reference counters (the HPET and the ACPI PM timer) read in step with the
 * TSC at every calibration window's boundary, so that they are measured over
 * the very intervals the PIT is, and a window spoiled by a clock that stood
 * still falls out of the consensus like a bad PIT window.
 */
#ifndef KERNEL_TIME_REFCLOCK_H
#define KERNEL_TIME_REFCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/time/choose.h"
#include "kernel/time/window.h"

/*
 * Before any clock has spoken the TSC rate is unknown, so timeouts assume
 * the fastest plausible TSC: waiting N ms "at 10 GHz" is N ms or longer on
 * any real one.
 */
#define TSC_HZ_CEIL         10000000000ull

#define REF_SAMPLES_MAX     (TSC_RUNS_MAX + 1)
#define REF_SAMPLE_TRIES    4u

struct ref {
    enum tsc_src src;
    bool present;
    const char *why;                /* when not usable */
    const char *note;               /* something the report should mention, or NULL */
    uint64_t (*read)(const struct ref *r);  /* the driver's counter read */
    uint64_t mask;                  /* counter width */
    uint64_t num, den;              /* counter rate: num / den Hz */
    uint16_t port;                  /* PM timer */
    volatile uint8_t *regs;         /* HPET registers */
    bool hpet_was_off;
    uint64_t hpet_cfg;
    unsigned n;                     /* samples taken */
    uint64_t tsc[REF_SAMPLES_MAX], cnt[REF_SAMPLES_MAX];
    uint64_t bracket[REF_SAMPLES_MAX];      /* TSC ticks around each read */
};

/*
 * Takes one (TSC, counter) sample into r: the counter read between two TSC
 * reads, the tightest bracket of REF_SAMPLE_TRIES kept. Does nothing when r
 * is absent or full.
 */
void ref_sample(struct ref *r);

/*
 * Spins until r has counted ms milliseconds since its last sample (or since
 * now, before the first), or twice that long at TSC_HZ_CEIL has passed on
 * the TSC: a counter that stops cannot hang the caller.
 */
void ref_wait(const struct ref *r, unsigned ms);

/*
 * True when r's counter moves within 1 ms at TSC_HZ_CEIL (5 ms at 2 GHz):
 * any counter of the rates the HPET and the PM timer may have does.
 */
bool ref_counts(const struct ref *r);

/*
 * Times about ms milliseconds of r against the TSC, outside the calibration:
 * returns the counts r advanced, with the TSC ticks between the two samples
 * in *ticks and the wider of their brackets in *bracket.
 */
uint64_t ref_interval(const struct ref *r, unsigned ms, uint64_t *ticks, uint64_t *bracket);

/* The consensus of r's windows, as a clock for tsc_choose(). */
void ref_result(const struct ref *r, struct tsc_clock *c);

#endif
