// SPDX-License-Identifier: MIT
// One run of a strategy of Xen's heap, or of a floor, in the benchmark:
// the prelude, the timed window (repeated while short), the audit and the
// first touch; the floor once with each way of filling its bytes.
#include "bench/xen_run.h"

#include "bench/measure.h"
#include "bench/par_report.h"
#include "bench/result.h"
#include "bench/window.h"
#include "kernel/console/printk.h"
#include "kernel/time/tsc.h"
#include "mm/heap_par.h"
#include "mm/numa.h"
#include "mm/peers/peer.h"

/* The digests every heap must have: Xen's heaps the block digest of the first, all the page digest. */
static uint64_t xen_ref, page_ref;

uint64_t bench_xen_ref(void) { return xen_ref; }
uint64_t bench_page_ref(void) { return page_ref; }
void bench_set_page_ref(uint64_t digest) { page_ref = digest; }

/*
 * First touch: heap_alloc_pages(0, any node) until the heap is empty,
 * chaining the pages through their list links (free for in-use pages, as in
 * Xen), then heap_free(pg, 0, clean) in allocation order. Returns -EINVAL
 * when a free is refused, or the count or the heap afterwards is wrong.
 */
static int first_touch(const struct series *x, unsigned run, uint64_t pages, uint64_t *first_ticks,
                       uint64_t *total_ticks, struct err *e)
{
    bench_window_open(x->name, "first_touch", run, true);
    uint64_t t0 = tsc_now();
    struct page_info *first = heap_alloc_pages(0, NUMA_NO_NODE);
    uint64_t t1 = tsc_now();
    struct page_info *last = first, *pg;
    uint64_t n = first != NULL;
    int rc = 0;

    if (first)
        first->list.next = PAGE_LIST_NULL;
    while ((pg = heap_alloc_pages(0, NUMA_NO_NODE))) {
        pg->list.next = PAGE_LIST_NULL;
        last->list.next = (uint32_t)page_to_mfn(pg);
        last = pg;
        n++;
    }
    for (pg = first; pg && !rc;) {
        uint32_t next = pg->list.next;
        rc = heap_free(pg, 0, false, e);
        pg = next == PAGE_LIST_NULL ? NULL : mfn_to_page(next);
    }
    uint64_t t2 = tsc_now();
    bench_window_close();

    *first_ticks = t1 - t0;
    *total_ticks = t2 - t0;
    if (rc)
        return rc;
    if (n != pages)
        return err_set(e, -EINVAL, "%s run %u: first touch allocated %llu pages of %llu", x->name,
                       run, (unsigned long long)n, (unsigned long long)pages);
    if (heap_digest() != x->digest)
        return err_set(e, -EINVAL, "%s run %u: the heap after first touch differs from the heap "
                       "after init", x->name, run);
    return 0;
}

/*
 * The init window of x, repeated while short (bench/measure.h): a
 * heads-only strategy is undone by heap_rewind_heads() between
 * repetitions, any other by its whole prelude. With first, a heads-only
 * strategy's first allocation is timed after each init too (its figure is
 * a few microseconds), into *alloc_ticks on the mean, and the heap is left
 * built afresh for the first touch. A parallel build is timed once.
 */
static int timed_init(struct series *x, unsigned run, bool first, uint64_t *alloc_ticks, struct err *e)
{
    const bool rewind = x->s->heads_only, alloc = first && rewind;
    struct reps r = { 0 }, ra = { 0 };
    uint64_t alloc_mfn = UINT64_MAX;
    int rc;

    bench_window_open(x->name, "init", run, true);
    for (;;) {
        uint64_t w[2];
        if (x->cpus > 1) {
            /* The window opens and closes on the boot CPU, across the barriers every CPU passes. */
            struct heap_par_stats st;
            if ((rc = heap_par_build(&heap_default, x->s, x->cpus, w, &st, e))) {
                bench_window_close();
                return rc;
            }
            par_record(x->name, run, &st);
        } else {
            w[0] = tsc_now();
            end_boot_allocator(&heap_default, x->s);
            w[1] = tsc_now();
        }
        bench_window_pause();
        uint64_t a = 0;
        if (alloc) {
            uint64_t a0 = tsc_now();
            struct page_info *pg = heap_alloc_pages(0, NUMA_NO_NODE);
            a = tsc_now() - a0;
            bench_repeat(&ra, a, false, 0);
            alloc_mfn = pg ? page_to_mfn(pg) : UINT64_MAX;
        }
        /* The threshold holds the init and, when timed, its first allocation: the figure reported. */
        if (!bench_repeat(&r, w[1] - w[0], !rewind, a) || x->cpus > 1)
            break;
        uint64_t p0 = tsc_now();
        if (rewind)
            heap_rewind_heads(alloc_mfn, bench_window_touched);
        if ((rc = rewind ? bench_rewound(x, e) : bench_prelude(x, e)))
            return rc;
        r.prelude_ticks += tsc_now() - p0;
        bench_window_resume();
    }
    bench_window_close();
    if (alloc) {
        /* The first touch starts from the heap as init left it, its allocation undone. */
        heap_rewind_heads(alloc_mfn, NULL);
        if ((rc = bench_rewound(x, e)))
            return rc;
        end_boot_allocator(&heap_default, x->s);
        *alloc_ticks = reps_mean(&ra);
    }
    x->init_ticks = reps_mean(&r);
    return 0;
}

int bench_run_strategy(struct series *x, unsigned run, bool touch, uint64_t pages, struct err *e)
{
    struct heap_audit a;
    uint64_t alloc_ticks = 0;
    int rc;

    if ((rc = bench_prelude(x, e)) || (rc = timed_init(x, run, touch, &alloc_ticks, e)))
        return rc;
    bool ok = heap_audit(&a);

    heap_audit_record(x->name, run, x->cpus, &a);
    if (!ok)
        return err_set(e, -EINVAL, "%s run %u: audit failed: %s", x->name, run, a.errors[0]);
    if (xen_ref && a.digest != xen_ref)
        return err_set(e, -EINVAL, "%s run %u: digest 0x%016llx differs from the first heap's 0x%016llx",
                       x->name, run, (unsigned long long)a.digest, (unsigned long long)xen_ref);
    if ((rc = bench_check_pages(x, run, &a, page_ref, e)))
        return rc;
    x->digest = a.digest;
    x->page_digest = a.page_digest;
    xen_ref = a.digest;
    page_ref = a.page_digest;
    x->first_ticks = x->touch_ticks = 0;
    x->touch_from = touch ? x : NULL;
    if (touch && (rc = first_touch(x, run, pages, &x->first_ticks, &x->touch_ticks, e)))
        return rc;
    /* A heads-only strategy's first allocation, timed on the mean of its repetitions above. */
    if (alloc_ticks)
        x->first_ticks = alloc_ticks;
    printk_v("bench: run %u %-6s init %llu ticks, first touch %llu ticks, %llu blocks of order %u\n",
             run, x->name, (unsigned long long)x->init_ticks, (unsigned long long)x->touch_ticks,
             (unsigned long long)a.blocks[MAX_ORDER], MAX_ORDER);
    return 0;
}

/* One way of filling floor f, repeated while short: its ticks on the mean. */
static int floor_way(struct series *f, unsigned run, const char *way, uint64_t *ticks, struct err *e)
{
    struct heap_par_stats st;
    struct reps r = { 0 };
    int rc = 0;

    bench_window_open(f->name, "init", run, true);
    bench_window_way(way);
    for (;;) {
        uint64_t w[2];
        if (f->layout != FLOOR_XEN) {
            rc = peer_floor(f->layout, f->cpus, w, e);
        } else if (f->cpus > 1) {
            rc = heap_par_floor(f->cpus, w, &st, e);
        } else {
            w[0] = tsc_now();
            heap_floor_write();
            w[1] = tsc_now();
        }
        bench_window_pause();
        if (rc || !bench_repeat(&r, w[1] - w[0], true, 0))
            break;
        uint64_t p0 = tsc_now();
        if ((rc = bench_prelude(f, e)))
            break;
        r.prelude_ticks += tsc_now() - p0;
        bench_window_resume();
    }
    bench_window_close();
    *ticks = reps_mean(&r);
    return rc;
}

int bench_run_floor(struct series *f, unsigned run, unsigned turn, struct err *e)
{
    const char *names[BENCH_MAX_WAYS];
    heap_fill_fn *fills[BENCH_MAX_WAYS];
    unsigned n = bench_floor_ways(names, fills, BENCH_MAX_WAYS);
    int rc = 0;

    /* Each way from the same prelude, in turn from run to run; the fastest is the floor. */
    f->init_ticks = UINT64_MAX;
    for (unsigned k = 0; k < n && !rc; k++) {
        unsigned i = (turn + k) % n;
        uint64_t ticks;
        heap_floor_fill = fills[i];
        if (!(rc = bench_prelude(f, e)) && !(rc = floor_way(f, run, names[i], &ticks, e))) {
            f->way_ticks[i] = ticks;
            if (ticks < f->init_ticks) {
                f->init_ticks = ticks;
                f->way = names[i];
            }
        }
    }
    heap_floor_fill = heap_memset;
    f->nways = n;
    for (unsigned i = 0; i < n; i++)
        f->way_names[i] = names[i];
    if (rc)
        return rc;
    f->init[run] = bench_units(f->init_ticks);
    return 0;
}
