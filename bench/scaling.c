// SPDX-License-Identifier: MIT
// The scaling table: each eager strategy's init and the floor at 1 .. N
// CPUs, interleaved run by run, with the speedup over one CPU and the floor
// measured with the same number of CPUs beside it.
#include "bench/scaling.h"

#include "bench/stats.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/record.h"
#include "kernel/string.h"
#include "kernel/time/tsc.h"
#include "mm/heap_par.h"

#define SCALE_MAX_RUNS 100
#define SCALE_MAX_ROWS 4            /* three eager strategies and the floor */

static bool opt_scaling;
CMDLINE_OPT(scaling, .key = "scaling", .type = OPT_FLAG, .dst = &opt_scaling,
            .help = "after the runs, time each eager strategy and the floor at 1 .. cpus CPUs");

bool scaling_wanted(void)
{
    return opt_scaling;
}

static uint64_t t[SCALE_MAX_ROWS][HEAP_PAR_MAX_CPUS][SCALE_MAX_RUNS];

/* One init (s) or the floor (NULL) on cpus CPUs: its ticks, after a green audit with digest. */
static int time_one(const struct heap_strategy *s, unsigned cpus, uint64_t digest, uint64_t *ticks,
                    struct err *e)
{
    struct heap_par_stats st;
    struct heap_audit a;
    uint64_t w[2] = { 0, 0 };
    int rc = 0;

    heap_reset();
    if (cpus > 1) {
        rc = s ? heap_par_build(&heap_default, s, cpus, w, &st, e) : heap_par_floor(cpus, w, &st, e);
    } else {
        w[0] = tsc_now();
        if (s)
            end_boot_allocator(&heap_default, s);
        else
            heap_floor_write();
        w[1] = tsc_now();
    }
    if (rc)
        return rc;
    *ticks = w[1] - w[0];
    if (!s)
        return 0;
    if (!heap_audit(&a))
        return err_set(e, -EINVAL, "scaling: %s on %u CPUs: audit failed: %s", s->name, cpus,
                       a.errors[0]);
    if (a.digest != digest)
        return err_set(e, -EINVAL, "scaling: %s on %u CPUs built digest 0x%016llx, the serial heap "
                       "is 0x%016llx", s->name, cpus, (unsigned long long)a.digest,
                       (unsigned long long)digest);
    return 0;
}

static uint64_t ns(uint64_t ticks)
{
    return tsc_calibrated() ? tsc_to_ns(ticks) : ticks;
}

static void print_and_record(const char *const *name, unsigned rows, unsigned cpus, unsigned runs)
{
    uint64_t med[SCALE_MAX_ROWS][HEAP_PAR_MAX_CPUS];

    for (unsigned i = 0; i < rows; i++)
        for (unsigned c = 0; c < cpus; c++)
            med[i][c] = ns(stat_median(t[i][c], runs));
    printk("\nscaling: init %s, median of %u runs, at 1 to %u CPUs (speedup over 1 CPU; x floor: "
           "over the floor on as many CPUs)\n", tsc_calibrated() ? "ms" : "ticks", runs, cpus);
    for (unsigned i = 0; i < rows; i++) {
        printk("  %-6s", name[i]);
        for (unsigned c = 0; c < cpus; c++) {
            uint64_t sp = stat_ratio_centi(med[i][0], med[i][c]);
            uint64_t xf = stat_ratio_centi(med[i][c], med[rows - 1][c]);
            printk("  %u CPU%s %llu.%03llu (%llu.%02llux, %llu.%02llux floor)", c + 1, c ? "s" : "",
                   (unsigned long long)(med[i][c] / 1000000), (unsigned long long)(med[i][c] / 1000 % 1000),
                   (unsigned long long)(sp / 100), (unsigned long long)(sp % 100),
                   (unsigned long long)(xf / 100), (unsigned long long)(xf % 100));
        }
        printk("\n");
    }
    for (unsigned i = 0; i < rows; i++)
        for (unsigned c = 0; c < cpus; c++) {
            struct record r;
            record_begin(&r, "scaling");
            record_str(&r, "strategy", name[i]);
            record_u64(&r, "cpus", c + 1);
            record_u64(&r, "runs", runs);
            record_u64(&r, "median_ns", med[i][c]);
            record_fixed(&r, "speedup", (int64_t)stat_ratio_centi(med[i][0], med[i][c]), 2);
            record_u64(&r, "floor_median_ns", med[rows - 1][c]);
            record_fixed(&r, "x_floor", (int64_t)stat_ratio_centi(med[i][c], med[rows - 1][c]), 2);
            record_end(&r);
        }
}

int scaling_run(const struct heap_strategy *const *s, unsigned n, unsigned runs, uint64_t digest,
                struct err *e)
{
    const struct heap_strategy *row[SCALE_MAX_ROWS];
    const char *name[SCALE_MAX_ROWS];
    unsigned rows = 0, cpus = heap_par_cpus();
    int rc;

    for (unsigned i = 0; i < n && rows < SCALE_MAX_ROWS - 1; i++)
        if (s[i]->eager) {
            row[rows] = s[i];
            name[rows++] = s[i]->name;
        }
    row[rows] = NULL;
    name[rows++] = "floor";
    runs = runs < SCALE_MAX_RUNS ? runs : SCALE_MAX_RUNS;
    printk("bench: scaling, %u runs at 1 to %u CPUs\n", runs, cpus);
    for (unsigned run = 0; run < runs; run++)
        for (unsigned c = 1; c <= cpus; c++)
            for (unsigned i = 0; i < rows; i++)
                if ((rc = time_one(row[i], c, digest, &t[i][c - 1][run], e)))
                    return rc;
    heap_reset();
    print_and_record(name, rows, cpus, runs);
    return 0;
}
