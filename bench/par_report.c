// SPDX-License-Identifier: MIT
// The `par` record: what each CPU and each node did in one parallel init,
// and for the first run a line per node on the consoles.
#include "bench/par_report.h"

#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/time/tsc.h"

static void record_ticks_ns(struct record *r, const char *key, uint64_t ticks)
{
    if (tsc_calibrated())
        record_u64(r, key, tsc_to_ns(ticks));
    else
        record_null(r, key);
}

/* The CPUs on node n, and the slowest one's ticks: the node's time. */
static unsigned node_cpus(const struct heap_par_stats *st, unsigned n, uint64_t *ticks)
{
    unsigned cpus = 0;

    *ticks = 0;
    for (unsigned c = 0; c < st->cpus; c++)
        if (heap_par_platform_node(c) == n) {
            cpus++;
            *ticks = *ticks > st->cpu_ticks[c] ? *ticks : st->cpu_ticks[c];
        }
    return cpus;
}

void par_record(const char *strategy, unsigned run, const struct heap_par_stats *st)
{
    struct record r;
    uint64_t ticks;
    unsigned cpus;

    for (unsigned n = 0; run == 0 && n < MAX_NUMNODES; n++) {
        if (!st->node_pages[n])
            continue;
        cpus = node_cpus(st, n, &ticks);
        printk("par: %s on %u CPUs: node %u, %llu pages, %u CPU%s on it, slowest %llu us\n", strategy,
               st->cpus, n, (unsigned long long)st->node_pages[n], cpus, cpus == 1 ? "" : "s",
               (unsigned long long)(tsc_calibrated() ? tsc_to_ns(ticks) / 1000 : 0));
    }
    record_begin(&r, "par");
    record_str(&r, "strategy", strategy);
    record_u64(&r, "run", run);
    record_u64(&r, "cpus", st->cpus);
    record_arr_begin(&r, "workers");
    for (unsigned c = 0; c < st->cpus; c++) {
        record_obj_begin(&r, NULL);
        record_u64(&r, "cpu", c);
        record_u64(&r, "node", heap_par_platform_node(c));
        record_u64(&r, "pages", st->cpu_pages[c]);
        record_u64(&r, "ticks", st->cpu_ticks[c]);
        record_ticks_ns(&r, "ns", st->cpu_ticks[c]);
        record_ticks_ns(&r, "splice_ns", st->cpu_splice_ticks[c]);
        record_obj_end(&r);
    }
    record_arr_end(&r);
    record_arr_begin(&r, "nodes");
    for (unsigned n = 0; n < MAX_NUMNODES; n++) {
        if (!st->node_pages[n])
            continue;
        cpus = node_cpus(st, n, &ticks);
        record_obj_begin(&r, NULL);
        record_u64(&r, "node", n);
        record_u64(&r, "pages", st->node_pages[n]);
        record_u64(&r, "cpus", cpus);
        record_ticks_ns(&r, "ns", ticks);
        record_obj_end(&r);
    }
    record_arr_end(&r);
    record_end(&r);
}
