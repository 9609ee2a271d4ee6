/* SPDX-License-Identifier: MIT */
/*
 * The calibration run: PIT windows with the reference counters sampled at
 * every boundary. Shared by time_init(), its report and its self-tests;
 * free of printing, so the host tests run it against simulated devices.
 */
#ifndef KERNEL_TIME_CALIBRATE_H
#define KERNEL_TIME_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/acpi/acpi.h"
#include "kernel/time/choose.h"
#include "kernel/time/clkio.h"
#include "kernel/time/refclock.h"
#include "kernel/time/window.h"

struct cal {
    unsigned want;                  /* pit_windows: clean windows wanted */
    unsigned ms;                    /* pit_ms: the length of one, as asked */
    bool pit_loads_next_clock;      /* a real 8254, not an emulated one (pit_clocks_x2()) */
    struct tsc_pit_setup pit;       /* the windows as run: longer where polls are slow */
    struct tsc_window w[TSC_RUNS_MAX];
    unsigned n;                     /* PIT windows run */
    bool pit_fires;                 /* the PIT counted down in the probe */
    struct tsc_pit_result res;
    struct ref hpet, pm;            /* set up by the caller; absent when not */
};

/*
 * Runs the calibration into c, whose want, ms, hpet and pm the caller set:
 * a probe that finds a dead PIT, then PIT windows (or, with the PIT dead,
 * windows paced by a reference counter), the references sampled at every
 * boundary, and the PIT's summary in c->res. t0 is the TSC when the
 * calibration began: retries stop at its time budget.
 */
void calibrate(struct cal *c, uint64_t t0);

#define TIME_WARNINGS_MAX   400

/*
 * The warnings every report of timed results must print about the rate
 * chosen in ch, one line each, each starting "warning: ", joined by
 * newlines into buf; empty when there is nothing to warn about.
 */
void time_warnings(const struct tsc_choice *ch, bool invariant_tsc, char *buf, size_t len);

/*
 * Installs the rate the choice settled on (hz 0: none) for tsc_to_ns() and
 * friends, with the warnings (time_warnings()) every report must print.
 * Called once, by time_init().
 */
void tsc_set_rate(enum tsc_src source, uint64_t hz, const char *warnings);

/* Everything time_init() found, kept for the report and the self-tests. */
struct time_result {
    struct cal cal;
    struct tsc_clock clk[TSC_SRC_COUNT];    /* by enum tsc_src */
    struct tsc_choice choice;
    uint64_t duration_ns;           /* the whole of time_init() up to the report */
};

/* The command line's say in the calibration. */
struct time_opts {
    unsigned windows;               /* pit_windows */
    unsigned ms;                    /* pit_ms */
    /*
     * Faults for the tests, in ppm: hpet_skew_ppm takes the HPET's period
     * as that much longer than its register says, for every read (a
     * firmware whose period is wrong: the HPET really disagrees);
     * hpet_cal_skew_ppm lowers only the calibration's HPET figure (windows
     * that looked clean and were not: a fresh interval agrees again).
     */
    unsigned hpet_skew_ppm, hpet_cal_skew_ppm;
};

/*
 * Everything time_init() does short of installing the rate and reporting:
 * the CPUID leaves, the HPET and PM timer that at describes (the HPET
 * mapped through map), the calibration run, and the choice, into t. t0 is
 * the TSC when time_init() began.
 */
void time_measure(struct time_result *t, const struct time_opts *o, const struct acpi_timers *at,
                  time_map_fn map, uint64_t t0);

/*
 * Whether clock s can check the TSC rate in use independently, in a
 * self-test. RUN: it can. SKIP: it does not apply here (the clock is
 * absent, dead, broken, or the source itself). INCONCLUSIVE: the clock
 * had no clean samples (a loaded host). FAIL: it was measured cleanly and
 * disagreed with the chosen rate beyond the bound (the self-test measures
 * it again, and fails only if fresh intervals repeat it). For all but RUN,
 * the reason in words is in buf.
 */
enum time_check { TIME_CHECK_RUN, TIME_CHECK_SKIP, TIME_CHECK_INCONCLUSIVE, TIME_CHECK_FAIL };
enum time_check time_check_clock(const struct time_result *t, enum tsc_src s, char *buf, size_t len);

/* The result of the boot's time_init() (kernel only). */
const struct time_result *time_result(void);

/* Prints the calibration report and the `calibration` record; every window with verbose. */
void time_report(const struct time_result *t, bool verbose);

#endif
