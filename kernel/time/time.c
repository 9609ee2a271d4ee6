// SPDX-License-Identifier: MIT
// time_init(): the TSC calibration at boot, from finding the clocks to the
// rate every figure is converted with.
#include "kernel/time/time.h"

#include "kernel/bootinfo/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/console/printk.h"
#include "kernel/lib/string.h"
#include "kernel/time/calibrate.h"
#include "kernel/time/window.h"
#include "kernel/time/leaves.h"
#include "kernel/time/tsc.h"

/*
 * 5 clean windows of 20 ms: about 105 ms in all when none is thrown away,
 * and the retries stop at the calibration's budget, inside 250 ms.
 */
static unsigned opt_pit_windows = 5;
static unsigned opt_pit_ms = 20;
static bool opt_time_verbose;
static unsigned opt_hpet_skew_ppm, opt_hpet_cal_skew_ppm;

CMDLINE_OPT(pit_windows, .key = "pit_windows", .type = OPT_UINT, .dst = &opt_pit_windows,
            .min = 1, .max = TSC_WINDOWS_MAX,
            .help = "clean PIT calibration windows wanted (1-16; default 5; up to twice "
                    "as many are run)");
_Static_assert(PIT_MS_MIN == 2, "the help text below says 2");
CMDLINE_OPT(pit_ms, .key = "pit_ms", .type = OPT_UINT, .dst = &opt_pit_ms, .min = PIT_MS_MIN,
            .max = PIT_MS_MAX,
            .help = "length of one PIT window in ms (2-54: a clock of phase within the "
                    "consensus band, the 16-bit count's limit; default 20)");
CMDLINE_OPT(hpet_skew_ppm, .key = "hpet_skew_ppm", .type = OPT_UINT, .dst = &opt_hpet_skew_ppm,
            .min = 0, .max = 500000,
            .help = "for tests: take the HPET's period as N ppm longer than it says, in "
                    "every read (0-500000; default 0)");
CMDLINE_OPT(hpet_cal_skew_ppm, .key = "hpet_cal_skew_ppm", .type = OPT_UINT,
            .dst = &opt_hpet_cal_skew_ppm, .min = 0, .max = 500000,
            .help = "for tests: lower the calibration's HPET figure by N ppm, as disturbed "
                    "windows would (0-500000; default 0)");
CMDLINE_OPT(time_verbose, .key = "time_verbose", .type = OPT_FLAG, .dst = &opt_time_verbose,
            .help = "print every PIT calibration window");

static struct time_result result;   /* static: too big for a boot stack frame */

const struct time_result *time_result(void)
{
    return &result;
}

/* ACPI tables through the caller's mapping function, passed as ctx. */
static const void *acpi_phys(uint64_t paddr, uint64_t len, void *ctx)
{
    time_map_fn map = *(time_map_fn *)ctx;

    return map(paddr, len, false);
}

void time_init(const struct bootinfo *bi, time_map_fn map)
{
    struct time_opts o = { .windows = opt_pit_windows, .ms = opt_pit_ms,
                           .hpet_skew_ppm = opt_hpet_skew_ppm,
                           .hpet_cal_skew_ppm = opt_hpet_cal_skew_ppm };
    struct time_result *t = &result;
    struct acpi_timers at;
    struct tsc_leaves leaves;
    char warnings[TIME_WARNINGS_MAX];
    uint64_t t0;

    /* First how to order a TSC read on this CPU: every read after uses it. */
    tsc_leaves_read(&leaves);
    tsc_fence = tsc_leaves_fence(&leaves);
    t0 = tsc_now();

    acpi_find_timers(bi->rsdp, bi->rsdp_len, acpi_phys, &map, &at);
    for (unsigned i = 0; i < at.nnotes; i++)
        printk("time: %s\n", at.notes[i]);
    time_measure(t, &o, &at, map, t0);
    time_warnings(&t->choice, cpu.invariant_tsc, warnings, sizeof(warnings));
    tsc_set_rate(t->choice.source, t->choice.calibrated ? t->choice.hz : 0, warnings);
    t->duration_ns = tsc_to_ns(tsc_now() - t0);
    time_report(t, opt_time_verbose);
}
