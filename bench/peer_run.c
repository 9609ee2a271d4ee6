// SPDX-License-Identifier: MIT
// One run of a peer (mm/peers/peer.h) in the benchmark: its boot part, its
// first allocation and its later part, each in a timed window; its audit;
// and the records that say what each part and each node took.
#include "bench/peer_run.h"

#include "bench/measure.h"
#include "bench/result.h"
#include "bench/window.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/lib/string.h"
#include "kernel/time/tsc.h"

/* The `peer` record: the boot part's phases, and what each node's later part took. */
static void record_peer(const struct series *x, unsigned run, const struct peer_boot_stats *b,
                        const struct peer_later_stats *l)
{
    bool cal = tsc_calibrated();
    struct record r;

    /* As Linux says it at the end of deferred_init_memmap(), before the record (records are one line). */
    for (unsigned n = 0; l && run == 0 && cal && n < MAX_NUMNODES; n++)
        if (l->node_pages[n])
            printk("%s: node %u %s pages initialised in %llu ms (%u thread%s)\n", x->name, n, x->p->later,
                   (unsigned long long)(tsc_to_ns(l->node_ticks[n]) / 1000000), l->node_threads[n],
                   l->node_threads[n] == 1 ? "" : "s");
    record_begin(&r, "peer");
    record_str(&r, "strategy", x->name);
    record_u64(&r, "run", run);
    record_u64(&r, "init_ticks", b->init_ticks);
    record_u64(&r, "free_ticks", b->free_ticks);
    if (cal) {
        record_u64(&r, "init_ns", tsc_to_ns(b->init_ticks));
        record_u64(&r, "free_ns", tsc_to_ns(b->free_ticks));
    } else {
        record_null(&r, "init_ns");
        record_null(&r, "free_ns");
    }
    record_arr_begin(&r, "nodes");
    for (unsigned n = 0; l && n < MAX_NUMNODES; n++) {
        if (!l->node_pages[n])
            continue;
        record_obj_begin(&r, NULL);
        record_u64(&r, "node", n);
        record_u64(&r, "pages", l->node_pages[n]);
        record_u64(&r, "threads", l->node_threads[n]);
        if (cal)
            record_u64(&r, "ns", tsc_to_ns(l->node_ticks[n]));
        else
            record_null(&r, "ns");
        record_obj_end(&r);
    }
    record_arr_end(&r);
    record_end(&r);
}

/*
 * The boot part's window, repeated while short (bench/measure.h): undone
 * between repetitions by the peer's rewind where it has one, else by its
 * whole prelude. Returns the boot part's ticks on the mean; b holds the
 * last repetition's phases.
 */
static int timed_boot(struct series *x, unsigned run, bool timed, struct peer_boot_stats *b,
                      uint64_t *ticks, struct err *e)
{
    const struct peer_strategy *p = x->p;
    struct reps r = { 0 };
    int rc;

    bench_window_open(x->name, "init", run, timed);
    for (;;) {
        uint64_t t0 = tsc_now();
        p->boot(b);
        uint64_t t1 = tsc_now();
        bench_window_pause();
        if (!timed || !bench_repeat(&r, t1 - t0, !p->rewind, 0))
            break;
        uint64_t p0 = tsc_now();
        if ((rc = p->rewind ? p->rewind(PEER_NO_PAGE, bench_window_touched, e) : bench_prelude(x, e)) ||
            (p->rewind && (rc = bench_rewound(x, e))))
            return rc;
        r.prelude_ticks += tsc_now() - p0;
        bench_window_resume();
    }
    bench_window_close();
    *ticks = reps_mean(&r);
    return 0;
}

/*
 * The first allocation the kernel could make once its boot part is done:
 * its window, repeated while short. A peer that leaves nothing for later
 * (Linux's and FreeBSD's eager boots) takes the page from a heap its free
 * puts back as it was, so each repetition gives the page back (untimed)
 * and allocates again. One that defers work, whose first allocation may do
 * some of it, gets its heap built again (untimed) between repetitions: a
 * rewind and its boot part, or its whole prelude, while its boot part and
 * the allocation together are short. Returns its ticks on the mean; the
 * page of the last is in *pfn, PEER_NO_PAGE when none was given.
 */
static int timed_first_alloc(struct series *x, unsigned run, bool timed, uint64_t boot_ticks,
                             uint64_t *pfn, uint64_t *ticks, struct err *e)
{
    const struct peer_strategy *p = x->p;
    const bool again = !p->later;
    struct peer_boot_stats b;
    struct reps r = { 0 };
    int rc;

    bench_window_open(x->name, "first_alloc", run, timed);
    for (;;) {
        uint64_t t0 = tsc_now();
        *pfn = p->alloc_page();
        uint64_t t1 = tsc_now();
        bench_window_pause();
        if (*pfn == PEER_NO_PAGE || !timed ||
            !bench_repeat(&r, t1 - t0, !again && !p->rewind, again ? 0 : boot_ticks))
            break;
        uint64_t p0 = tsc_now();
        if (again) {
            p->free_page(*pfn);
        } else {
            if ((rc = p->rewind ? p->rewind(*pfn, bench_window_touched, e) : bench_prelude(x, e)) ||
                (p->rewind && (rc = bench_rewound(x, e))))
                return rc;
            p->boot(&b);
        }
        r.prelude_ticks += tsc_now() - p0;
        bench_window_resume();
    }
    bench_window_close();
    *ticks = reps_mean(&r);
    return 0;
}

int peer_bench_run(struct series *x, unsigned run, bool timed, uint64_t ref, struct err *e)
{
    const struct peer_strategy *p = x->p;
    struct peer_boot_stats b = { 0 };
    struct peer_later_stats l;
    struct heap_audit a;
    uint64_t w[2], boot_ticks, alloc_ticks, pfn;
    int rc;

    if ((rc = bench_prelude(x, e)) || (rc = timed_boot(x, run, timed, &b, &boot_ticks, e)) ||
        (rc = timed_first_alloc(x, run, timed, boot_ticks, &pfn, &alloc_ticks, e)))
        return rc;
    if (pfn == PEER_NO_PAGE)
        return err_set(e, -EINVAL, "%s run %u: no page could be allocated after the boot part",
                       x->name, run);
    p->free_page(pfn);
    if (p->later) {
        bench_window_open(x->name, p->later, run, timed);
        rc = p->run_later(x->later_cpus, w, &l, e);
        bench_window_close();
        if (rc)
            return rc;
    }
    bool ok = p->audit(&a);
    if (timed)
        peer_audit_record(x->name, peer_layouts[p->layout].name, run, p->later ? x->later_cpus : 1, &a);
    if (!ok)
        return err_set(e, -EINVAL, "%s run %u: audit failed: %s", x->name, run, a.errors[0]);
    if (timed && (rc = bench_check_pages(x, run, &a, ref, e)))
        return rc;
    x->digest = a.digest;
    x->page_digest = a.page_digest;
    if (!timed) {
        printk("bench: warm-up: %s built and audited\n", x->name);
        return 0;
    }
    x->init[run] = bench_units(boot_ticks);
    x->first_alloc[run] = bench_units(boot_ticks + alloc_ticks);
    bench_record_result(x, run, "init", boot_ticks, x->first_alloc[run], 1);
    if (p->later) {
        x->later[run] = bench_units(w[1] - w[0]);
        bench_record_result(x, run, p->later, w[1] - w[0], 0, p->later && !strcmp(p->later, "drain") ? 1
                                                                                                   : x->later_cpus);
    }
    record_peer(x, run, &b, p->later ? &l : NULL);
    return 0;
}
