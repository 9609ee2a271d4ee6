// SPDX-License-Identifier: MIT
// The in-kernel benchmark: the seed's experiment, end_boot_allocator()
// timed with each init strategy, interleaved run by run, audited after each
// run, followed by a first touch of every page, with a memset floor; the
// peers (Linux, FreeBSD) on the same pages with floors of their own; then
// the records and the human report.
#include "bench/bench.h"

#include "bench/par_report.h"
#include "bench/peer_run.h"
#include "bench/pick.h"
#include "bench/report.h"
#include "bench/result.h"
#include "bench/scaling.h"
#include "bench/series.h"
#include "bench/window.h"
#include "bench/xen_run.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/time/tsc.h"
#include "mm/heap.h"
#include "mm/heap_par.h"
#include "mm/mm.h"
#include "mm/numa.h"
#include "mm/peers/peer.h"
#include "mm/xen_costs.h"

static unsigned opt_runs = 5;
static unsigned opt_touch_runs;
static bool opt_touch_shared;

CMDLINE_OPT(runs, .key = "runs", .type = OPT_UINT, .dst = &opt_runs, .min = 1,
            .max = BENCH_MAX_RUNS, .help = "timed runs per strategy (default 5)");
/*
 * The first touch of a large heap costs far more than its init (about 50 ns
 * a page against 1 to 3 on the host CPU), so a run over sizes may sample
 * it: the first N runs measure it, the others time the init alone.
 */
CMDLINE_OPT(touch_runs, .key = "touch_runs", .type = OPT_UINT, .dst = &opt_touch_runs, .min = 0,
            .max = BENCH_MAX_RUNS, .help = "runs that also time the first touch (default 0: every run)");
/*
 * Xen's eager strategies build the same heap (their digests are checked), so
 * the first touch after any of them does the same work. touch_shared times
 * it after one of them a run, in turn, and gives that figure to the others,
 * marked with where it came from; lazy, whose heap is another, times its own.
 */
CMDLINE_OPT(touch_shared, .key = "touch_shared", .type = OPT_FLAG, .dst = &opt_touch_shared,
            .help = "time the first touch after one eager strategy a run, in turn, for all of them");

/*
 * A hosted run over sizes spreads each size's runs over passes, one boot a
 * size each: run0= names the index of this boot's first run among the
 * size's. It turns the rotations on by that many places, and touch_runs=
 * counts the size's runs, so a later pass times no first touch when the
 * first touch is sampled.
 */
static unsigned opt_run0;
CMDLINE_OPT(run0, .key = "run0", .type = OPT_UINT, .dst = &opt_run0, .min = 0, .max = 1000000,
            .help = "index of this boot's first run among its size's, over passes (default 0)");

/* Under QEMU's -icount shift=0 the TSC advances one tick per guest
 * instruction (1000000 kHz): every figure is then an instruction count. */
static bool opt_icount;
CMDLINE_OPT(icount, .key = "icount", .type = OPT_FLAG, .dst = &opt_icount,
            .help = "QEMU runs with -icount shift=0: label figures as exact instruction counts");
#define ICOUNT_KHZ 1000000u
#define ICOUNT_TOL_KHZ 100u     /* 100 ppm: the calibration's own error is a few */

static struct series series[BENCH_MAX_STRATEGIES];
static unsigned nstrat;             /* strategies, Xen's and the peers', in run order */
static struct series floors[BENCH_MAX_FLOORS];
static unsigned nfloors;            /* Xen's floor first, then each layout a peer here uses */
static uint64_t pages;
static bool calibrated;
static unsigned par_cpus;           /* CPUs the eager strategies and the floor run on */
static char cost_model[96];         /* xen_costs= as it ran, e.g. "all" */
static unsigned touch_runs;         /* the first touch is timed in runs [0, touch_runs) */

/*
 * The eager strategy of Xen's heap that times the first touch for all of
 * them in run (touch_shared), in turn; NULL when each times its own.
 */
static const struct series *touch_owner(unsigned run)
{
    unsigned neager = 0, k = 0;

    if (!opt_touch_shared)
        return NULL;
    for (unsigned i = 0; i < nstrat; i++)
        neager += series[i].s && series[i].s->eager;
    if (!neager)
        return NULL;
    for (unsigned i = 0; i < nstrat; i++)
        if (series[i].s && series[i].s->eager && k++ == (opt_run0 + run) % neager)
            return &series[i];
    return NULL;
}

/* Xen strategy x's figures and records for run, once every strategy of the run has run. */
static void finish_strategy(struct series *x, unsigned run)
{
    x->init[run] = bench_units(x->init_ticks);
    if (run < touch_runs) {
        const struct series *from = x->touch_from ? x->touch_from : touch_owner(run);
        x->touch[run] = bench_units(from->touch_ticks);
        x->first_alloc[run] = bench_units(x->init_ticks + from->first_ticks);
        bench_record_result(x, run, "init", x->init_ticks, x->first_alloc[run], x->cpus);
        bench_record_shared(x, run, "first_touch", from->touch_ticks, 0, 1, from);
    } else {
        bench_record_result(x, run, "init", x->init_ticks, 0, x->cpus);
    }
}

/* One run of strategy x, Xen's (its first touch when touch) or a peer. */
static int run_one(struct series *x, unsigned run, bool touch, struct err *e)
{
    if (!x->p)
        return bench_run_strategy(x, run, touch, pages, e);
    int rc = peer_bench_run(x, run, true, bench_page_ref(), e);
    if (!rc)
        bench_set_page_ref(x->page_digest);
    return rc;
}

/* The record and line of what strategy s chose by this CPU: its option's name is the record's type. */
static void record_choice(const struct heap_strategy *s, const struct heap_choice *c)
{
    struct record r;
    char key[32];

    record_begin(&r, c->option);
    record_str(&r, "chosen", c->chosen);
    record_u64(&r, "pages", c->pages);
    for (unsigned k = 0; k < 2; k++) {
        snprintf(key, sizeof(key), "%s_ticks", c->kinds[k]);
        record_u64(&r, key, c->ticks[k]);
    }
    record_end(&r);
    printk("%s: %s=%s (auto: %s took %llu ticks, %s %llu, to fill %llu entries)\n", s->name, c->option,
           c->chosen, c->kinds[0], (unsigned long long)c->ticks[0], c->kinds[1],
           (unsigned long long)c->ticks[1], (unsigned long long)c->pages);
}

/* The report's view of series x, whose own floor is floors[floor]. */
static struct report_series report_of(const struct series *x, int floor)
{
    bool strategy = x->s || x->p;

    return (struct report_series){ .name = x->name, .init = x->init,
                                   .touch = x->s ? x->touch : NULL,
                                   .first_alloc = strategy ? x->first_alloc : NULL,
                                   .later = x->p && x->p->later ? x->later : NULL,
                                   .later_phase = x->p ? x->p->later : NULL,
                                   .digest = x->digest, .page_digest = x->page_digest,
                                   .floor = floor, .cpus = x->cpus, .later_cpus = x->later_cpus,
                                   .peer = x->p != NULL,
                                   .bytes = strategy ? 0 : x->layout == FLOOR_XEN ? heap_floor_bytes()
                                                                               : peer_floor_bytes(x->layout) };
}

/* The records and the report, from every run's figures (bench/report.c). */
static void report(void)
{
    struct report_series rs[BENCH_MAX_STRATEGIES], fs[BENCH_MAX_FLOORS];

    for (unsigned i = 0; i < nstrat; i++) {
        int own = 0;
        for (unsigned f = 0; f < nfloors; f++)
            if (series[i].p && floors[f].layout == (int)(unsigned)series[i].p->layout)
                own = (int)f;
        rs[i] = report_of(&series[i], own);
    }
    for (unsigned f = 0; f < nfloors; f++)
        fs[f] = report_of(&floors[f], -1);
    report_print(&(struct report_input){ .mem_bytes = mm.ram_bytes - mm.ignored_bytes,
                                         .ignored_bytes = mm.ignored_bytes, .pages = pages,
                                         .left_out_pages = mm.left_out_pages,
                                         .left_out_regions = mm.left_out_regions,
                                         .runs = opt_runs, .touch_runs = touch_runs,
                                         .calibrated = calibrated,
                                         .nstrat = nstrat, .s = rs, .nfloors = nfloors, .floors = fs,
                                         .xen_costs = cost_model,
                                         .xen_costs_tested = xc_variant_of[xen_costs & XC_ALL] == XCV_TESTED,
                                         .floor_m2p = !xc_on(xen_costs, XC_M2P),
                                         .icount = opt_icount });
}

int bench_main(struct err *e)
{
    struct record r;
    int rc;

    calibrated = tsc_calibrated();
    pages = heap_handover_pages();
    xc_describe(xen_costs, cost_model, sizeof(cost_model));
    par_cpus = heap_par_cpus();
    if (heap_par_cpus_asked() > par_cpus)
        printk("bench: cpus=%u, but %u CPU%s can build the heap: using %u\n", heap_par_cpus_asked(),
               par_cpus, par_cpus == 1 ? "" : "s", par_cpus);
    /* Without memnode the lookup reads a 1 GiB-granule copy of the map, which
     * cannot hold nodes that change inside a gigabyte. */
    if (!xc_on(xen_costs, XC_MEMNODE) && !memnodemap_fixed_ok)
        return err_set(e, -EINVAL, "xen_costs without memnode needs node granules of 1 GiB or "
                       "more; this node map's are 2^%u pages", memnode_shift);
    if ((rc = bench_pick(series, &nstrat, floors, &nfloors, par_cpus, e)))
        return rc;
    /* icount is a claim about the clock: hold it to the rate. */
    if (opt_icount && (!calibrated || tsc_khz() + ICOUNT_TOL_KHZ < ICOUNT_KHZ ||
                       tsc_khz() > ICOUNT_KHZ + ICOUNT_TOL_KHZ))
        return err_set(e, -EINVAL, "icount: the TSC runs at %llu kHz, not the %u kHz of QEMU's "
                       "-icount shift=0 (is QEMU run with it?)",
                       (unsigned long long)tsc_khz(), ICOUNT_KHZ);
    /* The first touch in the size's runs [0, touch_runs=): this boot's first touch_runs. */
    touch_runs = opt_runs;
    if (opt_touch_runs)
        touch_runs = opt_touch_runs <= opt_run0 ? 0
                     : opt_touch_runs - opt_run0 < opt_runs ? opt_touch_runs - opt_run0 : opt_runs;
    bench_result_setup(pages, calibrated, cost_model, touch_runs);
    record_begin(&r, "bench");
    /* What was tested: RAM above MAX_PHYS_ADDR never reaches the heap. */
    record_u64(&r, "mem_bytes", mm.ram_bytes - mm.ignored_bytes);
    record_u64(&r, "ignored_bytes", mm.ignored_bytes);
    record_u64(&r, "pages", pages);
    record_str(&r, "accel", accel_name(cpu.accel));
    record_bool(&r, "emulated", cpu.accel == ACCEL_TCG);
    record_bool(&r, "icount", opt_icount);
    record_bool(&r, "calibrated", calibrated);
    record_u64(&r, "tsc_khz", tsc_khz());
    record_str(&r, "source", tsc_source());
    record_u64(&r, "runs", opt_runs);
    record_u64(&r, "touch_runs", touch_runs);
    record_u64(&r, "run0", opt_run0);
    record_bool(&r, "touch_shared", opt_touch_shared);
    record_u64(&r, "cpus", par_cpus);
    record_str(&r, "xen_costs", cost_model);
    record_arr_begin(&r, "strategies");
    for (unsigned i = 0; i < nstrat; i++)
        record_str(&r, NULL, series[i].name);
    record_arr_end(&r);
    record_end(&r);

    record_begin(&r, "frametable");
    record_u64(&r, "bytes", frametable.bytes + frametable.m2p_bytes);
    record_u64(&r, "entries", max_pfn);
    record_u64(&r, "ticks", frametable.setup_ticks);
    bench_record_ns(&r, "ns", bench_units(frametable.setup_ticks));
    record_end(&r);

    /*
     * Warm-up, untimed: the reset and one write of the floor fault every
     * page of the frame table and M2P in (slow under KVM), at the cost of a
     * memset rather than of a strategy's init and first touch.
     */
    printk("bench: warm-up, then %u runs of %u strategies and %u floor%s%s\n", opt_runs, nstrat,
           nfloors, nfloors == 1 ? "" : "s", touch_runs < opt_runs ? "" : ", each with its first touch");
    if (touch_runs < opt_runs)
        printk("bench: the first touch is timed in the first %u run%s only (touch_runs=%u)\n",
               touch_runs, touch_runs == 1 ? "" : "s", touch_runs);
    if (opt_touch_shared)
        printk("bench: the eager strategies' first touch is timed after one of them a run, in turn, "
               "and shared (touch_shared)\n");
    heap_reset();
    heap_floor_write();
    /* What a strategy chooses by this CPU (sweep's stores), before anything is timed; counted
     * windows (callgrind) keep every default, so that counts compare between machines. */
    for (unsigned i = 0; i < nstrat && !bench_window_exact(); i++) {
        struct heap_choice c = { 0 };
        if (series[i].s && series[i].s->prepare && series[i].s->prepare(&c))
            record_choice(series[i].s, &c);
    }
    printk("bench: warm-up done\n");

    /*
     * Interleaved run by run, and each run starts one place further along
     * the strategies and then the floors: no strategy always follows the
     * same one, whose first touch or reset leaves the caches in its own way.
     */
    const unsigned nall = nstrat + nfloors;
    for (unsigned run = 0; run < opt_runs; run++) {
        const struct series *owner = touch_owner(run);
        for (unsigned k = 0; k < nall; k++) {
            unsigned i = (opt_run0 + run + k) % nall;
            struct series *x = i < nstrat ? &series[i] : &floors[i - nstrat];
            bool touch = run < touch_runs && (!owner || !x->s || !x->s->eager || owner == x);
            if ((rc = i < nstrat ? run_one(x, run, touch, e) : bench_run_floor(x, run, opt_run0 + run, e)))
                return rc;
        }
        /* Xen's and the floors' records in the run's order, now that a shared first touch is known. */
        for (unsigned k = 0; k < nall; k++) {
            unsigned i = (opt_run0 + run + k) % nall;
            if (i >= nstrat)
                bench_record_result(&floors[i - nstrat], run, "init", floors[i - nstrat].init_ticks, 0,
                                    floors[i - nstrat].cpus);
            else if (!series[i].p)
                finish_strategy(&series[i], run);
        }
        printk("bench: run %u of %u done\n", run + 1, opt_runs);
    }
    heap_reset();
    report();
    if (scaling_wanted()) {
        const struct heap_strategy *s[BENCH_MAX_STRATEGIES];
        const struct peer_strategy *p[BENCH_MAX_STRATEGIES];
        unsigned ns = 0, np = 0;
        for (unsigned i = 0; i < nstrat; i++) {
            if (series[i].s)
                s[ns++] = series[i].s;
            else
                p[np++] = series[i].p;
        }
        return scaling_run(s, ns, p, np, opt_runs, bench_xen_ref(), bench_page_ref(), e);
    }
    return 0;
}
