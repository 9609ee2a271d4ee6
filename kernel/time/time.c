// SPDX-License-Identifier: MIT
// time_init(): the TSC calibration at boot, from finding the clocks to the
// rate every figure is converted with.
#include "kernel/time/time.h"

#include "kernel/acpi.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/time/calibrate.h"
#include "kernel/time/hpet.h"
#include "kernel/time/leaves.h"
#include "kernel/time/pmtimer.h"
#include "kernel/time/tsc.h"

/*
 * 5 clean windows of 20 ms: about 105 ms in all when none is thrown away,
 * and the retries stop at the calibration's budget, inside 250 ms.
 */
static unsigned opt_pit_windows = 5;
static unsigned opt_pit_ms = 20;
static bool opt_time_verbose;

CMDLINE_OPT(pit_windows, .key = "pit_windows", .type = OPT_UINT, .dst = &opt_pit_windows,
            .min = 1, .max = TSC_WINDOWS_MAX,
            .help = "clean PIT calibration windows wanted (1-16; default 5; up to twice "
                    "as many are run)");
CMDLINE_OPT(pit_ms, .key = "pit_ms", .type = OPT_UINT, .dst = &opt_pit_ms, .min = 1, .max = 54,
            .help = "length of one PIT window in ms (1-54, the 16-bit count's limit; default 20)");
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

/* The HPET and the PM timer, as the ACPI tables describe them. */
static void find_refs(const struct bootinfo *bi, time_map_fn map, struct cal *c)
{
    struct acpi_timers at;

    c->hpet.src = TSC_SRC_HPET;
    c->pm.src = TSC_SRC_PMTIMER;
    acpi_find_timers(bi->rsdp, bi->rsdp_len, acpi_phys, &map, &at);
    for (unsigned i = 0; i < at.nnotes; i++)
        printk("time: %s\n", at.notes[i]);
    if (at.hpet == ACPI_OK)
        hpet_open(&c->hpet, at.hpet_base, map);
    else if (at.hpet == ACPI_BAD)
        c->hpet.why = "bad ACPI HPET table";
    if (at.pm == ACPI_OK)
        pmtmr_open(&c->pm, at.pm_port, at.pm_32bit);
    else if (at.pm == ACPI_BAD)
        c->pm.why = "bad ACPI FADT";
}

void time_init(const struct bootinfo *bi, time_map_fn map)
{
    struct time_result *t = &result;
    struct cal *c = &t->cal;
    struct tsc_leaves leaves;
    uint64_t t0 = tsc_now();

    memset(t, 0, sizeof(*t));
    c->want = opt_pit_windows;
    c->ms = opt_pit_ms;
    tsc_leaves_read(&leaves);
    tsc_leaves_clocks(&leaves, t->clk);
    find_refs(bi, map, c);

    calibrate(c, t0);
    hpet_close(&c->hpet);
    ref_result(&c->hpet, &t->clk[TSC_SRC_HPET]);
    ref_result(&c->pm, &t->clk[TSC_SRC_PMTIMER]);
    t->clk[TSC_SRC_PIT].hz = c->res.hz;
    t->clk[TSC_SRC_PIT].state = c->res.usable ? TSC_CLK_OK : TSC_CLK_BAD;
    t->clk[TSC_SRC_PIT].why = c->res.why;

    tsc_choose(t->clk, &t->choice);
    tsc_set_rate(t->choice.source, t->choice.calibrated ? t->choice.hz : 0);
    t->duration_ns = tsc_to_ns(tsc_now() - t0);
    time_report(t, opt_time_verbose);
}
