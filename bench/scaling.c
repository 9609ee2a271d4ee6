// SPDX-License-Identifier: MIT
// The scaling table: each eager strategy's init, each peer's parallel later
// part (Linux's deferred init) and the floors at 1 .. N CPUs, interleaved run
// by run, with the speedup over one CPU and the floor of the same metadata
// on as many CPUs beside it; and, per node, threads against ms as Linux's
// padata series reported its deferred init.
#include "bench/scaling.h"

#include "bench/stats.h"
#include "kernel/cmdline.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/lib/string.h"
#include "kernel/time/tsc.h"
#include "mm/heap_par.h"

#define SCALE_MAX_RUNS 100
#define SCALE_MAX_ROWS 8

static bool opt_scaling;
CMDLINE_OPT(scaling, .key = "scaling", .type = OPT_FLAG, .dst = &opt_scaling,
            .help = "after the runs, time each eager strategy, Linux's deferred init and the floors "
                    "at 1 .. cpus CPUs");

bool scaling_wanted(void)
{
    return opt_scaling;
}

/* A row: a Xen strategy, a peer's later part, or a floor (s and p NULL) of layout. */
struct row {
    const struct heap_strategy *s;
    const struct peer_strategy *p;
    int layout;                     /* a floor's: -1 Xen's, else its peer layout */
    const char *name;
    int floor;                      /* the row of its floor */
};

static uint64_t t[SCALE_MAX_ROWS][HEAP_PAR_MAX_CPUS][SCALE_MAX_RUNS];
static uint64_t tn[MAX_NUMNODES][HEAP_PAR_MAX_CPUS][SCALE_MAX_RUNS];  /* the peer's, per node */
static unsigned thr[MAX_NUMNODES][HEAP_PAR_MAX_CPUS];

/* One row at cpus CPUs: its ticks, after a green audit with the serial heap's digest. */
static int time_one(const struct row *r, unsigned cpus, uint64_t digest, uint64_t page_digest,
                    uint64_t *ticks, struct peer_later_stats *ls, struct err *e)
{
    struct heap_par_stats st;
    struct heap_audit a;
    uint64_t w[2] = { 0, 0 };
    int rc = 0;

    heap_reset();
    if (r->p) {
        struct peer_boot_stats b;
        if ((rc = r->p->reset(e)))
            return rc;
        r->p->boot(&b);
        rc = r->p->run_later(cpus, w, ls, e);
    } else if (!r->s && r->layout >= 0) {
        rc = peer_floor(r->layout, cpus, w, e);
    } else if (cpus > 1) {
        rc = r->s ? heap_par_build(&heap_default, r->s, cpus, w, &st, e) : heap_par_floor(cpus, w, &st, e);
    } else {
        w[0] = tsc_now();
        if (r->s)
            end_boot_allocator(&heap_default, r->s);
        else
            heap_floor_write();
        w[1] = tsc_now();
    }
    if (rc)
        return rc;
    *ticks = w[1] - w[0];
    if (r->p ? !r->p->audit(&a) : r->s && !heap_audit(&a))
        return err_set(e, -EINVAL, "scaling: %s on %u CPUs: audit failed: %s", r->name, cpus,
                       a.errors[0]);
    if (r->s && a.digest != digest)
        return err_set(e, -EINVAL, "scaling: %s on %u CPUs built digest 0x%016llx, the serial heap "
                       "is 0x%016llx", r->name, cpus, (unsigned long long)a.digest,
                       (unsigned long long)digest);
    if (r->p && page_digest && a.page_digest != page_digest)
        return err_set(e, -EINVAL, "scaling: %s on %u CPUs holds other pages than the serial heap",
                       r->name, cpus);
    return 0;
}

static uint64_t ns(uint64_t ticks)
{
    return tsc_calibrated() ? tsc_to_ns(ticks) : ticks;
}

/* Sample standard deviation of v[0..n) in ns, from the integer cv. */
static uint64_t stdev(const uint64_t *v, unsigned n)
{
    uint64_t sum = 0;

    for (unsigned i = 0; i < n; i++)
        sum += ns(v[i]);
    return sum / n * stat_cv_centipct(v, n) / 10000;
}

static void print_and_record(const struct row *row, unsigned rows, unsigned cpus, unsigned runs)
{
    uint64_t med[SCALE_MAX_ROWS][HEAP_PAR_MAX_CPUS];

    for (unsigned i = 0; i < rows; i++)
        for (unsigned c = 0; c < cpus; c++)
            med[i][c] = ns(stat_median(t[i][c], runs));
    printk("\nscaling: %s, median of %u runs, at 1 to %u CPUs (speedup over 1 CPU; x floor: "
           "over the floor of the same metadata on as many CPUs)\n", tsc_calibrated() ? "ms" : "ticks",
           runs, cpus);
    for (unsigned i = 0; i < rows; i++) {
        printk("  %-14s", row[i].name);
        for (unsigned c = 0; c < cpus; c++) {
            uint64_t sp = stat_ratio_centi(med[i][0], med[i][c]);
            uint64_t xf = stat_ratio_centi(med[i][c], med[row[i].floor][c]);
            printk("  %u CPU%s %llu.%03llu (%llu.%02llux, %llu.%02llux floor)", c + 1, c ? "s" : "",
                   (unsigned long long)(med[i][c] / 1000000), (unsigned long long)(med[i][c] / 1000 % 1000),
                   (unsigned long long)(sp / 100), (unsigned long long)(sp % 100),
                   (unsigned long long)(xf / 100), (unsigned long long)(xf % 100));
        }
        printk("\n");
        for (unsigned c = 0; c < cpus; c++) {
            struct record r;
            record_begin(&r, "scaling");
            record_str(&r, "strategy", row[i].name);
            record_str(&r, "phase", row[i].p ? row[i].p->later : "init");
            record_u64(&r, "cpus", c + 1);
            record_u64(&r, "runs", runs);
            record_u64(&r, "median_ns", med[i][c]);
            record_u64(&r, "stdev_ns", stdev(t[i][c], runs));
            record_fixed(&r, "speedup", (int64_t)stat_ratio_centi(med[i][0], med[i][c]), 2);
            record_str(&r, "floor", row[row[i].floor].name);
            record_u64(&r, "floor_median_ns", med[row[i].floor][c]);
            record_fixed(&r, "x_floor", (int64_t)stat_ratio_centi(med[i][c], med[row[i].floor][c]), 2);
            record_end(&r);
        }
    }
}

/* Threads against ms per node, as Linux's padata series printed its deferred init. */
static void padata_table(const struct row *r, unsigned cpus, unsigned runs)
{
    for (unsigned n = 0; n < MAX_NUMNODES; n++) {
        unsigned node_cpus = thr[n][cpus - 1];
        if (!tn[n][0][0] && !tn[n][cpus - 1][0])
            continue;
        printk("\n%s %s init, node %u, median (stdev) of %u runs\n", r->name, r->p->later, n, runs);
        printk("   node%% (thr)    speedup   time_ms (stdev)\n");
        uint64_t base = ns(stat_median(tn[n][0], runs));
        for (unsigned c = 0; c < cpus; c++) {
            uint64_t m = ns(stat_median(tn[n][c], runs)), sd = stdev(tn[n][c], runs);
            char sp[16];
            int64_t d = base ? ((int64_t)base - (int64_t)m) * 1000 / (int64_t)base : 0;
            if (c)
                snprintf(sp, sizeof(sp), "%s%lld.%lld%%", d < 0 ? "-" : "", (long long)(d < 0 ? -d : d) / 10,
                         (long long)(d < 0 ? -d : d) % 10);
            else
                snprintf(sp, sizeof(sp), "--");
            printk("   %4u%% (%3u)   %8s   %7llu.%01llu (%4llu.%01llu)\n", thr[n][c] * 100 / (node_cpus ? node_cpus : 1),
                   thr[n][c], sp, (unsigned long long)(m / 1000000), (unsigned long long)(m / 100000 % 10),
                   (unsigned long long)(sd / 1000000), (unsigned long long)(sd / 100000 % 10));
            struct record rec;
            record_begin(&rec, "scaling_node");
            record_str(&rec, "strategy", r->name);
            record_u64(&rec, "cpus", c + 1);
            record_u64(&rec, "node", n);
            record_u64(&rec, "threads", thr[n][c]);
            record_u64(&rec, "median_ns", m);
            record_u64(&rec, "stdev_ns", sd);
            record_end(&rec);
        }
    }
}

int scaling_run(const struct heap_strategy *const *s, unsigned n, const struct peer_strategy *const *p,
                unsigned np, unsigned runs, uint64_t digest, uint64_t page_digest, struct err *e)
{
    struct row row[SCALE_MAX_ROWS];
    unsigned rows = 0, cpus = heap_par_cpus(), peer_row = SCALE_MAX_ROWS;
    bool linux_floor = false;
    int rc;

    row[rows++] = (struct row){ .name = "floor", .layout = -1, .floor = 0 };
    for (unsigned i = 0; i < np && rows < SCALE_MAX_ROWS - 1; i++)
        if (p[i]->layout == PEER_LINUX && p[i]->later) {
            if (!linux_floor) {
                row[rows++] = (struct row){ .name = "floor_linux", .layout = PEER_LINUX, .floor = 1 };
                linux_floor = true;
            }
            peer_row = rows;
            row[rows++] = (struct row){ .p = p[i], .name = p[i]->name, .floor = 1 };
        }
    for (unsigned i = 0; i < n && rows < SCALE_MAX_ROWS; i++)
        if (s[i]->eager)
            row[rows++] = (struct row){ .s = s[i], .name = s[i]->name, .layout = -1, .floor = 0 };
    runs = runs < SCALE_MAX_RUNS ? runs : SCALE_MAX_RUNS;
    memset(tn, 0, sizeof(tn));
    printk("bench: scaling, %u runs at 1 to %u CPUs\n", runs, cpus);
    for (unsigned run = 0; run < runs; run++)
        for (unsigned c = 1; c <= cpus; c++)
            for (unsigned i = 0; i < rows; i++) {
                struct peer_later_stats ls;
                if ((rc = time_one(&row[i], c, digest, page_digest, &t[i][c - 1][run], &ls, e)))
                    return rc;
                for (unsigned k = 0; row[i].p && k < MAX_NUMNODES; k++) {
                    tn[k][c - 1][run] = ls.node_ticks[k];
                    thr[k][c - 1] = ls.node_pages[k] ? ls.node_threads[k] : 0;
                }
            }
    heap_reset();
    print_and_record(row, rows, cpus, runs);
    if (peer_row < SCALE_MAX_ROWS)
        padata_table(&row[peer_row], cpus, runs);
    return 0;
}
