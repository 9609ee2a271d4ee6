// SPDX-License-Identifier: MIT
// The end of a benchmark: summary and comparison records, the human report
// shaped for an 800x600 screen and for serial, and the QR code's payload.
// Portable: the kernel and the hosted runner both build it.
#include "bench/report.h"

#include <stdarg.h>

#include "bench/stats.h"
#include "kernel/cpu.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/lib/string.h"
#include "kernel/time/tsc.h"
#include "kernel/version.h"
#include "mm/heap.h"
#include "mm/layout.h"

static char text[8192];             /* the human report, as printed */
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

/* The heap digest the payload states: the first of Xen's strategies', else the first page digest. */
static uint64_t heap_digest_of(const struct report_input *in)
{
    for (unsigned i = 0; i < in->nstrat; i++)
        if (!in->s[i].peer)
            return in->s[i].digest;
    return in->s[0].page_digest;
}

/* The figures of one strategy, medians over the runs. */
struct figures {
    uint64_t init, later, first_alloc, per_page_milli, speedup_centi, x_floor_centi, x_xen_centi;
    bool has_speedup, has_later;
    char later_kind;                /* t: first touch, d: deferred part, r: drain */
};

static const struct report_series *find(const struct report_input *in, const char *name)
{
    for (unsigned i = 0; i < in->nstrat; i++)
        if (!strcmp(in->s[i].name, name))
            return &in->s[i];
    return NULL;
}

static struct figures figures_of(const struct report_input *in, const struct report_series *x)
{
    const struct report_series *page = find(in, "page");
    const struct report_series *own = x->floor >= 0 ? &in->floors[x->floor] : x;
    struct figures f = { 0 };

    f.init = stat_median(x->init, in->runs);
    if ((x->touch && in->touch_runs) || x->later) {
        f.has_later = true;
        f.later = stat_median(x->touch ? x->touch : x->later, x->touch ? in->touch_runs : in->runs);
        f.later_kind = x->touch ? 't' : x->later_phase[0] == 'd' && x->later_phase[1] == 'e' ? 'd' : 'r';
    }
    if (x->first_alloc)
        f.first_alloc = stat_median(x->first_alloc, x->touch ? in->touch_runs : in->runs);
    f.per_page_milli = stat_per_page_milli(f.init, in->pages);
    f.x_floor_centi = stat_ratio_centi(f.init, stat_median(own->init, in->runs));
    f.x_xen_centi = stat_ratio_centi(f.init, stat_median(in->floors[0].init, in->runs));
    f.has_speedup = page && x->floor >= 0;
    if (f.has_speedup)
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

static void record_summary(const struct report_input *in, const struct report_series *x, unsigned runs,
                           const char *phase, const uint64_t *v)
{
    struct record r;
    uint64_t med = stat_median(v, runs), lo = v[0], hi = v[0];

    for (unsigned i = 1; i < runs; i++) {
        lo = MIN(lo, v[i]);
        hi = MAX(hi, v[i]);
    }
    record_begin(&r, "summary");
    record_str(&r, "strategy", x->name);
    record_str(&r, "phase", phase);
    record_u64(&r, "runs", runs);
    record_ns(&r, "median_ns", med, in->calibrated);
    record_ns(&r, "min_ns", lo, in->calibrated);
    record_ns(&r, "max_ns", hi, in->calibrated);
    if (in->calibrated)
        record_fixed(&r, "ns_per_page", (int64_t)stat_per_page_milli(med, in->pages), 3);
    else
        record_null(&r, "ns_per_page");
    record_fixed(&r, "cv_pct", (int64_t)stat_cv_centipct(v, runs), 2);
    record_end(&r);
}

static void records(const struct report_input *in, bool equal, bool same_pages)
{
    struct record r;

    for (unsigned i = 0; i < in->nstrat; i++) {
        const struct report_series *x = &in->s[i];
        record_summary(in, x, in->runs, "init", x->init);
        if (x->touch && in->touch_runs)
            record_summary(in, x, in->touch_runs, "first_touch", x->touch);
        if (x->later)
            record_summary(in, x, in->runs, x->later_phase, x->later);
    }
    for (unsigned f = 0; f < in->nfloors; f++)
        record_summary(in, &in->floors[f], in->runs, "init", in->floors[f].init);
    for (unsigned i = 0; i < in->nstrat; i++) {
        const struct report_series *x = &in->s[i];
        struct figures f = figures_of(in, x);
        record_begin(&r, "comparison");
        record_str(&r, "strategy", x->name);
        if (f.has_speedup)
            record_fixed(&r, "speedup_vs_page", (int64_t)f.speedup_centi, 2);
        else
            record_null(&r, "speedup_vs_page");
        record_fixed(&r, "x_floor", (int64_t)f.x_floor_centi, 2);
        record_str(&r, "floor", in->floors[x->floor].name);
        record_fixed(&r, "x_xen_floor", (int64_t)f.x_xen_centi, 2);
        record_ns(&r, "init_median_ns", f.init, in->calibrated);
        if (x->touch && in->touch_runs)
            record_ns(&r, "first_touch_median_ns", f.later, in->calibrated);
        else
            record_null(&r, "first_touch_median_ns");
        if (x->later)
            record_ns(&r, "later_median_ns", f.later, in->calibrated);
        else
            record_null(&r, "later_median_ns");
        record_ns(&r, "end_to_end_median_ns", f.init + f.later, in->calibrated);
        record_ns(&r, "first_alloc_median_ns", f.first_alloc, in->calibrated);
        record_bool(&r, "digest_equal", x->peer || equal);
        record_bool(&r, "pages_equal", same_pages);
        record_end(&r);
    }
}

/* The table, the digests and the result in words. */
static void human(const struct report_input *in, bool equal, bool same_pages)
{
    const struct report_series *page = find(in, "page");
    bool cal = in->calibrated, tcg = cpu.accel == ACCEL_TCG, host = cpu.accel == ACCEL_HOST;
    char size[24], a[24], b[24], c[24], d[24], e[24], g[24], h[24];
    /* Column units: the table, per page, first allocation, and its legend. */
    const char *const *units = !cal ? (const char *const[]){ "Mticks", "tck/page", "1st kticks", "kticks" }
                               : in->icount ? (const char *const[]){ "Minstr", "ins/page", "1st kinstr", "kinstr" }
                               : (const char *const[]){ "init ms", "ns/page", "1st alloc", "us" };

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
    line("%-14s %11s %8s %8s %8s %8s %11s %11s %10s", "strategy", units[0], units[1], "vs page",
         "x own fl", "x Xen fl", "later", "end to end", units[2]);
    for (unsigned i = 0; i < in->nstrat; i++) {
        struct figures f = figures_of(in, &in->s[i]);
        fmt_ms(a, sizeof(a), f.init);
        fmt_milli(b, sizeof(b), f.per_page_milli);
        if (f.has_speedup)
            fmt_centi(c, sizeof(c), f.speedup_centi);
        else
            snprintf(c, sizeof(c), "-");
        fmt_centi(d, sizeof(d), f.x_floor_centi);
        fmt_centi(h, sizeof(h), f.x_xen_centi);
        if (f.has_later) {
            fmt_ms(e, sizeof(e), f.later);
            snprintf(e + strlen(e), sizeof(e) - strlen(e), " %c", f.later_kind);
        } else {
            snprintf(e, sizeof(e), "- ");
        }
        fmt_ms(g, sizeof(g), f.init + f.later);
        line("%-14s %11s %8s %7sx %7sx %7sx %11s %11s %8llu.%01llu", in->s[i].name, a, b, c, d, h, e, g,
             (unsigned long long)(f.first_alloc / 1000), (unsigned long long)(f.first_alloc / 100 % 10));
    }
    for (unsigned k = 0; k < in->nfloors; k++) {
        const struct report_series *fl = &in->floors[k];
        uint64_t med = stat_median(fl->init, in->runs);
        fmt_ms(a, sizeof(a), med);
        fmt_milli(b, sizeof(b), stat_per_page_milli(med, in->pages));
        fmt_centi(h, sizeof(h), stat_ratio_centi(med, stat_median(in->floors[0].init, in->runs)));
        fmt_size(c, sizeof(c), fl->bytes);
        line("%-14s %11s %8s %8s %7sx %7sx   memset: %s%s", fl->name, a, b, "-", "1.00", h, c,
             k ? (!strcmp(fl->name, "floor_linux") ? " of struct page" : " of vm_page")
               : in->floor_m2p ? " of page_info and M2P" : " of page_info");
    }
    line("%s: median; later: t first touch (every page allocated, freed), d deferred init, r drain; "
         "1st alloc: %s after init began; x own fl: over its own metadata's floor",
         !strcmp(units[0], "init ms") ? "ms" : units[0], units[3]);
    if (in->touch_runs < in->runs)
        line("t and 1st alloc of Xen's strategies: the first %u run%s only (touch_runs=%u), init of all %u",
             in->touch_runs, in->touch_runs == 1 ? "" : "s", in->touch_runs, in->runs);
    line("digests: %s, %s (0x%016llx); audits green",
         equal ? "one heap for Xen's strategies" : "DIFFERENT HEAPS",
         same_pages ? "the same pages for all" : "DIFFERENT PAGES", (unsigned long long)in->s[0].page_digest);

    /* The result in words: chunk against page first, when both ran, then sweep against the peers. */
    const struct report_series *chunk = find(in, "chunk"), *sweep = find(in, "sweep");
    if (chunk && page) {
        fmt_centi(a, sizeof(a), stat_paired_ratio_centi(page->init, chunk->init, in->runs));
        line("chunked init is %sx faster than page-by-page on %s%s", a, size,
             in->icount ? " (icount: guest instructions)" : tcg ? " (TCG, emulated)" :
             host ? " (hosted, user space)" : "");
    }
    /* sweep against the peers' eager boots, in one line. */
    char words[160] = "";
    for (unsigned i = 0; i < in->nstrat && sweep; i++) {
        const struct report_series *x = &in->s[i];
        size_t k = strlen(words);
        if (!x->peer || x->later)
            continue;
        fmt_centi(a, sizeof(a), stat_paired_ratio_centi(x->init, sweep->init, in->runs));
        snprintf(words + k, sizeof(words) - k, "%s%sx faster than %s's", k ? ", " : "", a, x->name);
    }
    if (words[0]) {
        fmt_centi(b, sizeof(b), figures_of(in, sweep).x_xen_centi);
        line("sweep init is %s, at %sx Xen's floor", words, b);
    }
}

/* docs/records.md, "The QR code's payload", defines every field. */
static void make_payload(const struct report_input *in, bool equal)
{
    const struct report_series *floor = &in->floors[0];
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
        const struct report_series *x = i < in->nstrat ? &in->s[i] : floor;
        struct figures f = figures_of(in, x);
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
        snprintf(payload + n, sizeof(payload) - n, "%016llx %s", (unsigned long long)heap_digest_of(in),
                 equal ? "same" : "differ");
}

void report_print(const struct report_input *in)
{
    bool equal = true, same_pages = true;

    for (unsigned i = 0; i < in->nstrat; i++) {
        same_pages &= in->s[i].page_digest == in->s[0].page_digest;
        if (!in->s[i].peer)
            equal &= in->s[i].digest == heap_digest_of(in);
    }
    records(in, equal, same_pages);
    printk("\n");
    human(in, equal, same_pages);
    make_payload(in, equal && same_pages);
}
