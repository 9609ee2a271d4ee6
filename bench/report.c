// SPDX-License-Identifier: MIT
// The end of a benchmark: summary and comparison records, the human report
// shaped for an 800x600 screen and for serial, and the QR code's payload.
// Portable: the kernel and the hosted runner both build it.
#include "bench/report.h"

#include <stdarg.h>

#include "bench/stats.h"
#include "kernel/cpu.h"
#include "kernel/printk.h"
#include "kernel/record.h"
#include "kernel/string.h"
#include "kernel/time/tsc.h"
#include "kernel/version.h"
#include "mm/heap.h"
#include "mm/layout.h"

static char text[4096];             /* the human report, as printed */
static size_t text_len;
static char payload[1024];

const char *report_text(void)
{
    return text;
}

const char *report_payload(void)
{
    return payload;
}

/*
 * Prints one line of the report and keeps it. Lines longer than the screen
 * are broken at the last space that fits and continue indented, so that no
 * console ever wraps them.
 */
__printf(1, 2)
static void line(const char *fmt, ...)
{
    char buf[512], *p = buf;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    for (unsigned indent = 0;; indent = 4) {
        size_t n = strlen(p), room = REPORT_COLS - indent;
        if (n > room) {
            size_t cut = room;
            while (cut > room / 2 && p[cut] != ' ')
                cut--;
            n = p[cut] == ' ' ? cut : room;
        }
        int w = snprintf(text + text_len, sizeof(text) - text_len, "%*s%.*s\n", (int)indent, "",
                         (int)n, p);
        printk("%s", text + text_len);
        if (w > 0)
            text_len = MIN(text_len + (size_t)w, sizeof(text) - 1);
        p += n;
        while (*p == ' ')
            p++;
        if (!*p)
            return;
    }
}

static void fmt_ms(char *buf, size_t n, uint64_t ns)
{
    snprintf(buf, n, "%llu.%03llu", (unsigned long long)(ns / 1000000),
             (unsigned long long)(ns / 1000 % 1000));
}

static void fmt_centi(char *buf, size_t n, uint64_t c)
{
    snprintf(buf, n, "%llu.%02llu", (unsigned long long)(c / 100), (unsigned long long)(c % 100));
}

static void fmt_milli(char *buf, size_t n, uint64_t m)
{
    snprintf(buf, n, "%llu.%03llu", (unsigned long long)(m / 1000), (unsigned long long)(m % 1000));
}

/* The figures of one strategy, medians over the runs. */
struct figures {
    uint64_t init, touch, first_alloc, per_page_milli, speedup_centi, x_floor_centi;
    bool has_speedup;
};

static struct figures figures_of(const struct report_input *in, const struct report_series *x,
                                 const struct report_series *page, uint64_t floor_med)
{
    struct figures f = { 0 };

    f.init = stat_median(x->init, in->runs);
    if (x->touch) {
        f.touch = stat_median(x->touch, in->runs);
        f.first_alloc = stat_median(x->first_alloc, in->runs);
    }
    f.per_page_milli = stat_per_page_milli(f.init, in->pages);
    f.x_floor_centi = stat_ratio_centi(f.init, floor_med);
    f.has_speedup = page != NULL;
    if (page)
        f.speedup_centi = stat_paired_ratio_centi(page->init, x->init, in->runs);
    return f;
}

static void record_ns(struct record *r, const char *key, uint64_t v, bool calibrated)
{
    if (calibrated)
        record_u64(r, key, v);
    else
        record_null(r, key);
}

static void record_summary(const struct report_input *in, const struct report_series *x,
                           const char *phase, const uint64_t *v)
{
    struct record r;
    uint64_t med = stat_median(v, in->runs), lo = v[0], hi = v[0];

    for (unsigned i = 1; i < in->runs; i++) {
        lo = MIN(lo, v[i]);
        hi = MAX(hi, v[i]);
    }
    record_begin(&r, "summary");
    record_str(&r, "strategy", x->name);
    record_str(&r, "phase", phase);
    record_u64(&r, "runs", in->runs);
    record_ns(&r, "median_ns", med, in->calibrated);
    record_ns(&r, "min_ns", lo, in->calibrated);
    record_ns(&r, "max_ns", hi, in->calibrated);
    if (in->calibrated)
        record_fixed(&r, "ns_per_page", (int64_t)stat_per_page_milli(med, in->pages), 3);
    else
        record_null(&r, "ns_per_page");
    record_fixed(&r, "cv_pct", (int64_t)stat_cv_centipct(v, in->runs), 2);
    record_end(&r);
}

static const struct report_series *find(const struct report_input *in, const char *name)
{
    for (unsigned i = 0; i < in->nstrat; i++)
        if (!strcmp(in->s[i].name, name))
            return &in->s[i];
    return NULL;
}

static void records(const struct report_input *in, bool equal)
{
    const struct report_series *page = find(in, "page"), *floor = &in->s[in->nstrat];
    uint64_t floor_med = stat_median(floor->init, in->runs);
    struct record r;

    for (unsigned i = 0; i < in->nstrat; i++) {
        record_summary(in, &in->s[i], "init", in->s[i].init);
        record_summary(in, &in->s[i], "first_touch", in->s[i].touch);
    }
    record_summary(in, floor, "init", floor->init);
    for (unsigned i = 0; i < in->nstrat; i++) {
        struct figures f = figures_of(in, &in->s[i], page, floor_med);
        record_begin(&r, "comparison");
        record_str(&r, "strategy", in->s[i].name);
        if (f.has_speedup)
            record_fixed(&r, "speedup_vs_page", (int64_t)f.speedup_centi, 2);
        else
            record_null(&r, "speedup_vs_page");
        record_fixed(&r, "x_floor", (int64_t)f.x_floor_centi, 2);
        record_ns(&r, "init_median_ns", f.init, in->calibrated);
        record_ns(&r, "first_touch_median_ns", f.touch, in->calibrated);
        record_ns(&r, "end_to_end_median_ns", f.init + f.touch, in->calibrated);
        record_ns(&r, "first_alloc_median_ns", f.first_alloc, in->calibrated);
        record_bool(&r, "digest_equal", equal);
        record_end(&r);
    }
}

/* The table, the digests and the result in words. */
static void human(const struct report_input *in, bool equal)
{
    const struct report_series *page = find(in, "page"), *floor = &in->s[in->nstrat];
    uint64_t floor_med = stat_median(floor->init, in->runs);
    bool cal = in->calibrated, tcg = cpu.accel == ACCEL_TCG, host = cpu.accel == ACCEL_HOST;
    char size[24], a[24], b[24], c[24], d[24], e[24], g[24];
    /* Column units: the table, per page, first allocation, and its legend. */
    const char *const *units = !cal ? (const char *const[]){ "Mticks", "tick/page", "1st kticks", "kticks" }
                               : in->icount ? (const char *const[]){ "Minstr", "instr/page", "1st kinstr", "kinstr" }
                               : (const char *const[]){ "ms", "ns/page", "1st alloc", "us" };

    text_len = 0;
    text[0] = '\0';
    fmt_size(size, sizeof(size), in->mem_bytes);
    line("==== bootheap %s: heap init on %s (%llu pages handed over), %u run%s each ====",
         BOOTHEAP_VERSION, size, (unsigned long long)in->pages, in->runs, in->runs == 1 ? "" : "s");
    if (in->icount)
        line("accelerator TCG under -icount shift=0: EXACT GUEST INSTRUCTION COUNTS, one a tick; "
             "neither TCG time nor hardware time");
    else
        line("accelerator %s%s", accel_name(cpu.accel), accel_caveat(cpu.accel));
    line("TSC %llu kHz from %s", (unsigned long long)tsc_khz(), tsc_source());
    if (tsc_warning())
        line("%s", tsc_warning());
    line("Xen's per-call costs modelled: xen_costs=%s", in->xen_costs);
    if (in->xen_costs_tested)
        line("note: not all, none or all but one: this runs a slower copy of the heap code");
    if (in->ignored_bytes)
        line("note: %s of RAM above %llu TiB left out; the figures are for the %s below it",
             fmt_size(a, sizeof(a), in->ignored_bytes), (unsigned long long)(MAX_PHYS_ADDR >> 40),
             size);
    if (in->left_out_pages)
        line("note: %llu pages of RAM in %u regions were left out (more than the boot allocator "
             "keeps; see the memory summary)", (unsigned long long)in->left_out_pages,
             in->left_out_regions);
    if (!cal)
        line("warning: no usable clock: figures are raw TSC ticks (millions), UNCALIBRATED");
    line("%-8s %12s %9s %8s %8s %12s %12s %11s", "strategy", units[0], units[1], "vs page",
         "x floor", "touch", "init+touch", units[2]);
    for (unsigned i = 0; i < in->nstrat; i++) {
        struct figures f = figures_of(in, &in->s[i], page, floor_med);
        fmt_ms(a, sizeof(a), f.init);
        fmt_milli(b, sizeof(b), f.per_page_milli);
        if (f.has_speedup)
            fmt_centi(c, sizeof(c), f.speedup_centi);
        else
            snprintf(c, sizeof(c), "-");
        fmt_centi(d, sizeof(d), f.x_floor_centi);
        fmt_ms(e, sizeof(e), f.touch);
        fmt_ms(g, sizeof(g), f.init + f.touch);
        line("%-8s %12s %9s %7sx %7sx %12s %12s %8llu.%01llu", in->s[i].name, a, b, c, d, e, g,
             (unsigned long long)(f.first_alloc / 1000), (unsigned long long)(f.first_alloc / 100 % 10));
    }
    fmt_ms(a, sizeof(a), floor_med);
    fmt_milli(b, sizeof(b), stat_per_page_milli(floor_med, in->pages));
    fmt_size(c, sizeof(c), in->floor_bytes);
    line("%-8s %12s %9s %8s %7sx   memset of %s of page_info%s", "floor", a, b, "-", "1.00", c,
         in->floor_m2p ? " and M2P" : " (no M2P)");
    line("%s: median init; touch: alloc every page at order 0, free it; 1st alloc: %s after init began",
         units[0], units[3]);
    line("digests: %s (0x%016llx); every audit green",
         equal ? "all strategies built the same heap" : "DIFFERENT HEAPS",
         (unsigned long long)in->s[0].digest);

    /* The result in words: chunk against page first, when both ran. */
    const struct report_series *chunk = find(in, "chunk");
    const struct report_series *base = page ? page : &in->s[0];
    const struct report_series *best = chunk && page ? chunk : &in->s[in->nstrat - 1];
    if (base != best) {
        fmt_centi(a, sizeof(a), stat_paired_ratio_centi(base->init, best->init, in->runs));
        line("%s init is %sx faster than %s on %s%s", best == chunk ? "chunked" : best->name, a,
             base == page ? "page-by-page" : base->name, size,
             in->icount ? " (icount: guest instructions)" : tcg ? " (TCG, emulated)" :
             host ? " (hosted, user space)" : "");
    }
    for (unsigned i = 0; i < in->nstrat && page; i++) {
        const struct report_series *x = &in->s[i];
        if (x == base || x == best)
            continue;
        struct figures f = figures_of(in, x, page, floor_med);
        fmt_centi(a, sizeof(a), f.speedup_centi);
        fmt_centi(b, sizeof(b), f.x_floor_centi);
        line("%s init is %sx faster than page-by-page, at %sx the memset floor", x->name, a, b);
    }
}

/* README.md, "The results as a QR code", defines every field. */
static void make_payload(const struct report_input *in, bool equal)
{
    const struct report_series *page = find(in, "page"), *floor = &in->s[in->nstrat];
    uint64_t floor_med = stat_median(floor->init, in->runs);
    char accel[24], a[24], b[24], c[24];
    size_t n = 0;

    /* One token: "other hypervisor" becomes "other-hypervisor". */
    snprintf(accel, sizeof(accel), "%s", accel_name(cpu.accel));
    for (char *p = accel; *p; p++)
        if (*p == ' ')
            *p = '-';
    n += (size_t)snprintf(payload + n, sizeof(payload) - n, "bootheap %s qr1\n%s %llu %llu %u %s %llu\n%s\n",
                          BOOTHEAP_VERSION, accel, (unsigned long long)in->mem_bytes,
                          (unsigned long long)in->pages, in->runs,
                          in->calibrated ? tsc_source() : "none",
                          (unsigned long long)(in->calibrated ? tsc_khz() : 0),
                          cpu.brand[0] ? cpu.brand : "?");
    for (unsigned i = 0; i <= in->nstrat && n < sizeof(payload); i++) {
        const struct report_series *x = &in->s[i];
        struct figures f = figures_of(in, x, i < in->nstrat ? page : NULL, floor_med);
        if (in->calibrated)
            fmt_milli(a, sizeof(a), f.per_page_milli);
        else
            snprintf(a, sizeof(a), "-");
        if (f.has_speedup)
            fmt_centi(b, sizeof(b), f.speedup_centi);
        else
            snprintf(b, sizeof(b), "-");
        fmt_centi(c, sizeof(c), f.x_floor_centi);
        n += (size_t)snprintf(payload + n, sizeof(payload) - n, "%s %llu %s %s %s\n", x->name,
                              (unsigned long long)f.init, a, b, c);
    }
    if (n < sizeof(payload))
        snprintf(payload + n, sizeof(payload) - n, "%016llx %s", (unsigned long long)in->s[0].digest,
                 equal ? "same" : "differ");
}

void report_print(const struct report_input *in)
{
    bool equal = true;

    for (unsigned i = 1; i < in->nstrat; i++)
        equal &= in->s[i].digest == in->s[0].digest;
    records(in, equal);
    printk("\n");
    human(in, equal);
    make_payload(in, equal);
}
