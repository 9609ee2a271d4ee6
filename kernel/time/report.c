// SPDX-License-Identifier: MIT
// The calibration's report: a few human lines on every console and the
// `calibration` record on serial (docs/records.md lists its keys).
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/cpu.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/string.h"
#include "kernel/time/calibrate.h"
#include "kernel/time/leaves.h"
#include "kernel/time/tsc.h"

static const char *const status_names[] = {
    [TSC_CLK_ABSENT] = "absent", [TSC_CLK_OK] = "ok", [TSC_CLK_BAD] = "bad",
};

static uint64_t hz_to_khz(uint64_t hz) { return (hz + 500) / 1000; }

/*
 * The next line of the warnings at *p into line (without its newline);
 * false when there is none left.
 */
static bool next_warning(const char **p, char *line, size_t len)
{
    const char *nl;
    size_t n;

    if (!*p || !**p)
        return false;
    nl = strchr(*p, '\n');
    n = nl ? (size_t)(nl - *p) : strlen(*p);
    snprintf(line, len, "%.*s", (int)n, *p);
    *p += n + (nl ? 1 : 0);
    return true;
}

/* time_verbose: every window, for a reader who doubts the summary. */
static void print_windows(const struct cal *c)
{
    for (unsigned i = 0; i < c->n; i++) {
        const struct tsc_window *w = &c->w[i];

        printk("time:   window %u: %llu ticks, %u polls, edges %llu/%llu ticks, "
               "longest gap %llu ticks: %s\n", i, (unsigned long long)w->ticks, w->passes,
               (unsigned long long)w->start_gap, (unsigned long long)w->last_gap,
               (unsigned long long)w->max_gap,
               tsc_win_verdict_name(tsc_window_check(w, &c->pit)));
    }
}

static void print_pit(const struct cal *c)
{
    const struct tsc_pit_result *p = &c->res;

    if (c->pit.ms != c->ms)
        printk("time: PIT: one poll takes %llu ns: windows lengthened from %u to %u ms, "
               "consensus band %u ppm\n", (unsigned long long)tsc_to_ns(c->pit.poll_ticks),
               c->ms, c->pit.ms, c->pit.band_ppm);
    if (c->n && p->hz)
        printk("time: PIT: %u of %u windows of %u ms kept (%u too few polls, %u edge gaps, "
               "%u outliers), TSC %llu kHz, spread %u ppm\n", p->accepted, c->n, c->pit.ms,
               p->rejected[TSC_WIN_FEW_PASSES], p->rejected[TSC_WIN_GAP], p->outliers,
               (unsigned long long)hz_to_khz(p->hz), p->spread_ppm);
    else if (c->n)
        printk("time: PIT: none of %u windows of %u ms kept (%u too few polls, %u edge gaps)\n",
               c->n, c->pit.ms, p->rejected[TSC_WIN_FEW_PASSES], p->rejected[TSC_WIN_GAP]);
    else
        printk("time: PIT: %s\n", p->why);
}

/* One line with every other clock's figure and its distance from the PIT. */
static void print_checks(const struct tsc_clock *clk, const struct tsc_choice *ch)
{
    char line[360];
    size_t len = 0;

    line[0] = '\0';
    for (int i = TSC_SRC_PIT + 1; i < TSC_SRC_COUNT; i++) {
        const char *name = tsc_src_name(i);
        int k;

        if (clk[i].hz && ch->has_ppm[i])
            k = snprintf(line + len, sizeof(line) - len, "%s %s %llu kHz (%+lld ppm)",
                         len ? "," : "", name, (unsigned long long)hz_to_khz(clk[i].hz),
                         (long long)ch->ppm[i]);
        else if (clk[i].hz)
            k = snprintf(line + len, sizeof(line) - len, "%s %s %llu kHz", len ? "," : "",
                         name, (unsigned long long)hz_to_khz(clk[i].hz));
        else
            k = snprintf(line + len, sizeof(line) - len, "%s %s %s", len ? "," : "", name,
                         status_names[ch->status[i]]);
        if (k > 0)
            len = MIN(len + (size_t)k, sizeof(line) - 1);
        if (clk[i].state == TSC_CLK_BAD && clk[i].why) {
            k = snprintf(line + len, sizeof(line) - len, " [%s]", clk[i].why);
            if (k > 0)
                len = MIN(len + (size_t)k, sizeof(line) - 1);
        }
    }
    printk("time: cross-checks vs PIT:%s\n", line);
}

static void record_calibration(const struct time_result *t)
{
    const struct tsc_choice *ch = &t->choice;
    const struct cal *c = &t->cal;
    char line[TIME_WARNINGS_MAX];
    struct record r;

    record_begin(&r, "calibration");
    record_u64(&r, "khz", tsc_khz());
    record_str(&r, "source", tsc_src_name(ch->source));
    record_bool(&r, "calibrated", ch->calibrated);
    record_str(&r, "reason", ch->reason);
    record_u64(&r, "windows", c->n);
    record_u64(&r, "window_ms", c->pit.ms);
    if (c->pit.poll_ticks && ch->calibrated)
        record_u64(&r, "poll_ns", tsc_to_ns(c->pit.poll_ticks));
    else
        record_null(&r, "poll_ns");
    record_u64(&r, "accepted", c->res.accepted);
    record_u64(&r, "spread_ppm", c->res.spread_ppm);
    record_bool(&r, "invariant_tsc", cpu.invariant_tsc);
    record_str(&r, "tsc_fence", tsc_fence_name(tsc_fence));
    if (ch->calibrated) {
        record_u64(&r, "duration_us", t->duration_ns / 1000u);
        record_str(&r, "kind", tsc_kind_name(ch->kind));
        record_u64(&r, "uncertainty_ppm", ch->unc_ppm);
    } else {
        record_null(&r, "duration_us");
        record_null(&r, "kind");
        record_null(&r, "uncertainty_ppm");
    }
    record_arr_begin(&r, "warnings");
    for (const char *p = tsc_warning(); next_warning(&p, line, sizeof(line));)
        record_str(&r, NULL, line);
    record_arr_end(&r);
    record_arr_begin(&r, "checks");
    for (int i = 0; i < TSC_SRC_COUNT; i++) {
        record_obj_begin(&r, NULL);
        record_str(&r, "name", tsc_src_name(i));
        if (t->clk[i].hz) {
            record_u64(&r, "khz", hz_to_khz(t->clk[i].hz));
            record_str(&r, "kind", tsc_kind_name(t->clk[i].kind));
            record_u64(&r, "uncertainty_ppm", t->clk[i].unc_ppm);
        } else {
            record_null(&r, "khz");
            record_null(&r, "kind");
            record_null(&r, "uncertainty_ppm");
        }
        if (ch->has_ppm[i])
            record_i64(&r, "ppm", ch->ppm[i]);
        else
            record_null(&r, "ppm");
        record_str(&r, "status", status_names[ch->status[i]]);
        record_bool(&r, "disturbed", t->clk[i].disturbed);
        record_obj_end(&r);
    }
    record_arr_end(&r);
    record_end(&r);
}

void time_report(const struct time_result *t, bool verbose)
{
    const struct tsc_choice *ch = &t->choice;
    char line[TIME_WARNINGS_MAX];

    print_pit(&t->cal);
    if (verbose)
        print_windows(&t->cal);
    print_checks(t->clk, ch);
    if (t->cal.pm.note)
        printk("time: pmtimer: %s\n", t->cal.pm.note);
    if (ch->calibrated)
        printk("time: TSC %llu kHz from %s (%s, within %u ppm): %s; calibration took %llu ms; "
               "TSC reads fenced by %s\n", (unsigned long long)tsc_khz(), tsc_src_name(ch->source),
               tsc_kind_name(ch->kind), ch->unc_ppm, ch->reason,
               (unsigned long long)(t->duration_ns / 1000000u), tsc_fence_name(tsc_fence));
    else
        printk("time: error: no usable clock to calibrate the TSC (%s); every result "
               "is labelled uncalibrated and given in TSC ticks\n", ch->reason);
    for (const char *p = tsc_warning(); next_warning(&p, line, sizeof(line));)
        printk("time: %s\n", line);
    if (cpu.accel == ACCEL_TCG)
        printk("time: note: under TCG every clock is emulated; these are not hardware timings\n");
    record_calibration(t);
}
