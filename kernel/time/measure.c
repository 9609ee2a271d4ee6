// SPDX-License-Identifier: MIT
// time_measure(): every clock the machine offers, measured or read, and the
// choice among them; no printing, so the host tests run it whole.
#include "kernel/lib/libc.h"
#include "kernel/time/calibrate.h"
#include "kernel/time/hpet.h"
#include "kernel/time/leaves.h"
#include "kernel/time/pmtimer.h"
#include "kernel/time/tsc_math.h"

/* The HPET and the PM timer, as the ACPI tables describe them. */
static void open_refs(struct cal *c, const struct acpi_timers *at, time_map_fn map)
{
    c->hpet.src = TSC_SRC_HPET;
    c->pm.src = TSC_SRC_PMTIMER;
    if (at->hpet == ACPI_OK)
        hpet_open(&c->hpet, at->hpet_base, map);
    else if (at->hpet == ACPI_BAD)
        c->hpet.why = "bad ACPI HPET table";
    if (at->pm == ACPI_OK)
        pmtmr_open(&c->pm, at->pm_port, at->pm_32bit);
    else if (at->pm == ACPI_BAD)
        c->pm.why = "bad ACPI FADT";
}

void time_measure(struct time_result *t, const struct time_opts *o, const struct acpi_timers *at,
                  time_map_fn map, uint64_t t0)
{
    struct cal *c = &t->cal;
    struct tsc_leaves leaves;

    memset(t, 0, sizeof(*t));
    c->want = o->windows;
    c->ms = o->ms;
    tsc_leaves_read(&leaves);
    tsc_leaves_clocks(&leaves, t->clk);
    /* Under a hypervisor the PIT is emulated, and those load at the write. */
    c->pit_loads_next_clock = !leaves.hypervisor;
    open_refs(c, at, map);
    if (c->hpet.present && o->hpet_skew_ppm)
        c->hpet.den = tsc_muldiv(c->hpet.den, 1000000u + o->hpet_skew_ppm, 1000000u);

    calibrate(c, t0);
    hpet_run(&c->hpet, false);
    pmtmr_check_width(&c->pm);
    ref_result(&c->hpet, &t->clk[TSC_SRC_HPET]);
    if (o->hpet_cal_skew_ppm && t->clk[TSC_SRC_HPET].hz)
        t->clk[TSC_SRC_HPET].hz = tsc_muldiv(t->clk[TSC_SRC_HPET].hz, 1000000u,
                                             1000000u + o->hpet_cal_skew_ppm);
    ref_result(&c->pm, &t->clk[TSC_SRC_PMTIMER]);
    t->clk[TSC_SRC_PIT].kind = TSC_KIND_MEASURED;
    t->clk[TSC_SRC_PIT].hz = c->res.hz;
    t->clk[TSC_SRC_PIT].unc_ppm = c->res.unc_ppm;
    t->clk[TSC_SRC_PIT].state = c->res.usable ? TSC_CLK_OK : TSC_CLK_BAD;
    t->clk[TSC_SRC_PIT].why = c->res.why;
    t->clk[TSC_SRC_PIT].disturbed = c->res.disturbed;
    tsc_choose(t->clk, &t->choice);
}

enum time_check time_check_clock(const struct time_result *t, enum tsc_src s, char *buf, size_t len)
{
    const struct tsc_clock *c = &t->clk[s], *chosen = &t->clk[t->choice.source];
    const char *name = tsc_src_name(s);

    if (!t->choice.calibrated) {
        snprintf(buf, len, "the TSC is uncalibrated");
        return TIME_CHECK_SKIP;
    }
    if (c->state == TSC_CLK_ABSENT) {
        snprintf(buf, len, "the %s is absent", name);
        return TIME_CHECK_SKIP;
    }
    if (c->state != TSC_CLK_OK || !c->hz) {
        /* The PIT's reasons say "dead (...)" or "unusable: ..." themselves. */
        snprintf(buf, len, "the %s is %s%s", name,
                 c->why && (!strncmp(c->why, "dead", 4) || !strncmp(c->why, "unusable", 8))
                     ? "" : "unusable: ", c->why ? c->why : "without a figure");
        return c->disturbed ? TIME_CHECK_INCONCLUSIVE : TIME_CHECK_SKIP;
    }
    if (t->choice.source == s) {
        snprintf(buf, len, "the %s is the source: the check would be circular", name);
        return TIME_CHECK_SKIP;
    }
    if (c->hz < TSC_HZ_MIN || c->hz > TSC_HZ_MAX) {
        snprintf(buf, len, "the %s's figure %llu Hz is out of range", name, (unsigned long long)c->hz);
        return TIME_CHECK_SKIP;
    }
    if (t->choice.status[s] != TSC_CLK_OK) {
        /* Measured with clean samples, and still beyond the bound: the clock or the rate is wrong. */
        snprintf(buf, len, "the %s disagreed with the chosen rate: %+lld ppm from the %s's, beyond "
                 "the bound of %llu ppm", name, (long long)tsc_ppm(c->hz, chosen->hz),
                 tsc_src_name(t->choice.source), (unsigned long long)tsc_agree_bound(c, chosen));
        return TIME_CHECK_FAIL;
    }
    return TIME_CHECK_RUN;
}

void time_warnings(const struct tsc_choice *ch, bool invariant_tsc, char *buf, size_t len)
{
    const char *inv = "the TSC is not invariant (CPUID 0x80000007 EDX bit 8 clear): its rate "
                      "may change with power states, so ns figures may be skewed";
    int n = 0;

    buf[0] = '\0';
    if (!ch->calibrated && !invariant_tsc)
        n = snprintf(buf, len, "warning: the TSC is uncalibrated, and %s", inv);
    else if (!ch->calibrated)
        n = snprintf(buf, len, "warning: the TSC is uncalibrated: results are raw ticks");
    else if (ch->kind == TSC_KIND_NOMINAL)
        n = snprintf(buf, len, "warning: the TSC rate is nominal (%s), good to about 1%%: every "
                     "ns figure may be off by as much", tsc_src_name(ch->source));
    if (ch->calibrated && !invariant_tsc && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "%swarning: %s", n ? "\n" : "", inv);
}
