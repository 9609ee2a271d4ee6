// SPDX-License-Identifier: MIT
// Linux's deferred struct page init, 6.1's (mm/page_alloc.c) and 6.12's
// (mm/mm_init.c) where they differ: deferred_init_memmap(),
// deferred_init_memmap_chunk(), deferred_init_maxorder(),
// deferred_init_pages(), deferred_free_pages(), deferred_free_range()
// (6.1); each node's jobs through padata (padata.c beside this file) on
// that node's CPUs.
#include "mm/peers/linux/linux.h"

#include "kernel/lib/libc.h"

#define DJ_MAX 256

struct dnode {
    unsigned zid, njobs, nthreads;
    struct lx_padata_job jobs[DJ_MAX];
    struct lx_padata_state states[DJ_MAX];
    uint64_t nranges;
    struct { uint64_t s, e; } ranges[DJ_MAX];   /* the node's free ranges from first_deferred_pfn */
};

static struct dnode dnodes[MAX_NUMNODES];
static enum lx_version version;
static unsigned worker_rank[HEAP_PAR_MAX_CPUS][MAX_NUMNODES];    /* rank + 1 on a node it serves, else 0 */
/* Each worker's own counters, a cache line apart: Linux's helpers share none but the kernel's. */
static struct {
    uint64_t pages;
    uint64_t span[2];                   /* TSC at the worker's start and end */
    uint64_t node_end[MAX_NUMNODES];    /* ticks from its start to its end on each node */
} __attribute__((aligned(64))) ws[HEAP_PAR_MAX_CPUS];

/*
 * deferred_free_range() (6.1): a whole aligned pageblock in one free, else
 * page by page. deferred_free_pages() (6.12): a whole aligned MAX_ORDER
 * window in one free, its pageblocks marked first, else page by page.
 */
static __attribute__((noipa)) void free_range(uint64_t pfn, uint64_t nr, unsigned cpu)
{
    struct lx_page *pg;

    if (!nr)
        return;
    pg = lx_pfn_to_page(pfn);
    if (version == LX_V6_1 && nr == LX_PAGEBLOCK_PAGES && IS_ALIGNED(pfn, LX_PAGEBLOCK_PAGES)) {
        lx_set_pageblock_migratetype(pfn, LX_MIGRATE_MOVABLE);
        lx_free_pages_core(LX_V6_1, pg, LX_PAGEBLOCK_ORDER, cpu);
        return;
    }
    if (version == LX_V6_12 && nr == LX_MAX_ORDER_PAGES && IS_ALIGNED(pfn, LX_MAX_ORDER_PAGES)) {
        for (uint64_t i = 0; i < nr; i += LX_PAGEBLOCK_PAGES)
            lx_set_pageblock_migratetype(pfn + i, LX_MIGRATE_MOVABLE);
        lx_free_pages_core(LX_V6_12, pg, LX_MAX_ORDER - 1, cpu);
        return;
    }
    for (uint64_t i = 0; i < nr; i++, pg++, pfn++) {
        if (IS_ALIGNED(pfn, LX_PAGEBLOCK_PAGES))
            lx_set_pageblock_migratetype(pfn, LX_MIGRATE_MOVABLE);
        lx_free_pages_core(version, pg, 0, cpu);
    }
}

/*
 * deferred_pfn_valid() (6.1): pfn_valid() of each pageblock's first PFN
 * only. A pageblock head that fails is skipped alone: the PFNs after it are
 * not aligned, so they pass.
 */
static inline bool pfn_ok(uint64_t pfn, unsigned cpu)
{
    return !IS_ALIGNED(pfn, LX_PAGEBLOCK_PAGES) || lx_pfn_valid(pfn, cpu);
}

/* deferred_free_pages() (6.1): pageblock by pageblock, cut where a pageblock head is not valid. */
static void free_pages(uint64_t pfn, uint64_t end, unsigned cpu)
{
    uint64_t nr_free = 0;

    for (; pfn < end; pfn++) {
        if (!pfn_ok(pfn, cpu)) {
            free_range(pfn - nr_free, nr_free, cpu);
            nr_free = 0;
        } else if (IS_ALIGNED(pfn, LX_PAGEBLOCK_PAGES)) {
            free_range(pfn - nr_free, nr_free, cpu);
            nr_free = 1;
        } else {
            nr_free++;
        }
    }
    free_range(pfn - nr_free, nr_free, cpu);
}

/*
 * deferred_init_pages(). 6.1 checks each pageblock's head and looks its
 * struct page up again there; 6.12 trusts the free range and walks it.
 */
static uint64_t init_pages(unsigned zid, unsigned nid, uint64_t pfn, uint64_t end, unsigned cpu)
{
    struct lx_page *pg = NULL;
    uint64_t n = 0;

    if (version == LX_V6_12) {
        for (pg = lx_pfn_to_page(pfn), n = end - pfn; pfn < end; pfn++, pg++)
            lx_init_single_page_inline(pg, zid, (int)nid);
        return n;
    }
    for (; pfn < end; pfn++) {
        if (!pfn_ok(pfn, cpu)) {
            pg = NULL;
            continue;
        } else if (!pg || IS_ALIGNED(pfn, LX_PAGEBLOCK_PAGES)) {
            pg = lx_pfn_to_page(pfn);
        } else {
            pg++;
        }
        lx_init_single_page(pg, pfn, zid, (int)nid);
        n++;
    }
    return n;
}

/*
 * deferred_init_maxorder() within deferred_init_memmap_chunk(): the free
 * pages of [start, end), a MAX_ORDER window at a time: every struct page
 * of the window first, then the window freed.
 */
static void memmap_chunk(uint64_t start, uint64_t end, void *arg, unsigned cpu)
{
    unsigned nid = (unsigned)(uintptr_t)arg;
    const struct dnode *dn = &dnodes[nid];
    unsigned i = 0;

    while (i < dn->nranges && dn->ranges[i].e <= start)
        i++;
    uint64_t spfn = i < dn->nranges ? MAX(start, dn->ranges[i].s) : end;
    while (spfn < end && i < dn->nranges) {
        uint64_t mo = ALIGN_UP(spfn + 1, LX_MAX_ORDER_PAGES);
        unsigned j = i;
        for (uint64_t s = spfn; j < dn->nranges && s < mo; s = ++j < dn->nranges ? dn->ranges[j].s : mo)
            ws[cpu].pages += init_pages(dn->zid, nid, s, MIN(dn->ranges[j].e, mo), cpu);
        j = i;
        for (uint64_t s = spfn; j < dn->nranges && s < mo; s = ++j < dn->nranges ? dn->ranges[j].s : mo) {
            if (version == LX_V6_1)
                free_pages(s, MIN(dn->ranges[j].e, mo), cpu);
            else
                free_range(s, MIN(dn->ranges[j].e, mo) - s, cpu);
        }
        /* On to the first free page at or past the window's end. */
        while (i < dn->nranges && dn->ranges[i].e <= mo)
            i++;
        spfn = i < dn->nranges ? MAX(mo, dn->ranges[i].s) : end;
        lx_cond_resched();
    }
}

static void deferred_worker(unsigned cpu, void *arg)
{
    uint64_t t0 = heap_par_platform_now();

    ws[cpu].span[0] = t0;
    (void)arg;
    for (unsigned nid = 0; nid < MAX_NUMNODES; nid++) {
        unsigned rank = worker_rank[cpu][nid];
        if (!rank)
            continue;
        /* deferred_init_memmap(): the node's jobs in turn, each through padata. */
        for (unsigned k = 0; k < dnodes[nid].njobs; k++)
            lx_padata_run(&dnodes[nid].jobs[k], &dnodes[nid].states[k], rank, cpu);
        ws[cpu].node_end[nid] = heap_par_platform_now() - t0;
    }
    ws[cpu].span[1] = heap_par_platform_now();
}

/* Builds each node's padata jobs and gives it its workers. */
static void plan(unsigned cpus)
{
    unsigned load[HEAP_PAR_MAX_CPUS] = { 0 };

    memset(dnodes, 0, sizeof(dnodes));
    memset(worker_rank, 0, sizeof(worker_rank));
    memset(ws, 0, sizeof(ws));
    for (unsigned nid = 0; nid < MAX_NUMNODES; nid++) {
        struct lx_pgdat *pgdat = &lx_nodes[nid];
        struct dnode *dn = &dnodes[nid];
        uint64_t first = pgdat->first_deferred_pfn;
        if (first == UINT64_MAX)
            continue;
        /* Only the highest zone is deferred: the one first_deferred_pfn falls in. */
        while (dn->zid < LX_NR_ZONES - 1 && first >= pgdat->zones[dn->zid].zone_end_pfn)
            dn->zid++;
        struct lx_zone *zone = &pgdat->zones[dn->zid];
        zone->stat_threshold = (int8_t)MIN(125u, 2 * fls64(heap_par_platform_cpus()) *
                                                 (1 + fls64(zone->present >> 15)));
        for (unsigned i = 0; i < peer_nruns && dn->nranges < DJ_MAX; i++) {
            uint64_t s = MAX(peer_runs[i].s, first), e = MIN(peer_runs[i].e, zone->zone_end_pfn);
            if (peer_runs[i].node == nid && s < e)
                dn->ranges[dn->nranges++] = (typeof(dn->ranges[0])){ s, e };
        }
        /* A job per free range, its end rounded up to a section; the next starts past that. */
        unsigned threads = 0;
        for (unsigned c = 0; c < cpus; c++)
            if (heap_par_platform_node(c) == nid)
                worker_rank[c][nid] = ++threads;
        if (!threads) {
            /* A node without CPUs: its thread runs unbound, here on the least busy worker. */
            unsigned best = 0;
            for (unsigned c = 1; c < cpus; c++)
                if (load[c] < load[best])
                    best = c;
            worker_rank[best][nid] = threads = 1;
        }
        for (unsigned c = 0; c < cpus; c++)
            load[c] += worker_rank[c][nid] != 0;
        dn->nthreads = threads;
        uint64_t from = 0;
        for (unsigned i = 0; i < dn->nranges && dn->njobs < DJ_MAX;) {
            uint64_t spfn = MAX(dn->ranges[i].s, from);
            uint64_t epfn_align = ALIGN_UP(dn->ranges[i].e, LX_SECTION_PAGES);
            struct lx_padata_job *j = &dn->jobs[dn->njobs];
            struct lx_padata_state *ps = &dn->states[dn->njobs++];
            /* deferred_init_memmap()'s job: sections, as many threads as the node has CPUs. */
            *j = (struct lx_padata_job){ .thread_fn = memmap_chunk, .fn_arg = (void *)(uintptr_t)nid,
                                         .start = spfn, .size = epfn_align - spfn, .align = LX_SECTION_PAGES,
                                         .min_chunk = LX_SECTION_PAGES, .max_threads = threads };
            memset(ps, 0, sizeof(*ps));
            ps->job = j;
            lx_padata_plan(j, ps);
            /* The next job starts at the first free page past this one's aligned end. */
            from = epfn_align;
            while (i < dn->nranges && dn->ranges[i].e <= epfn_align)
                i++;
        }
    }
}

int lx_deferred_init(enum lx_version v, unsigned cpus, uint64_t window[2], struct peer_later_stats *st,
                     struct err *e)
{
    if (cpus < 1 || cpus > heap_par_platform_cpus())
        return err_set(e, -EINVAL, "linux_deferred: %u CPUs asked for, %u available", cpus,
                       heap_par_platform_cpus());
    version = v;
    plan(cpus);
    heap_par_platform_run(cpus, deferred_worker, NULL, window);
    /*
     * The part's time is from the first worker's start to the last one's
     * end: a boot CPU that another process held past the start barrier would
     * otherwise open its window after the others had done the work.
     */
    window[0] = UINT64_MAX;
    window[1] = 0;
    for (unsigned c = 0; c < cpus; c++) {
        window[0] = MIN(window[0], ws[c].span[0]);
        window[1] = MAX(window[1], ws[c].span[1]);
    }
    memset(st, 0, sizeof(*st));
    st->cpus = cpus;
    for (unsigned c = 0; c < cpus; c++) {
        st->cpu_pages[c] = ws[c].pages;
        for (unsigned nid = 0; nid < MAX_NUMNODES; nid++) {
            st->cpu_ticks[c] = MAX(st->cpu_ticks[c], ws[c].node_end[nid]);
            st->node_ticks[nid] = MAX(st->node_ticks[nid], ws[c].node_end[nid]);
        }
    }
    for (unsigned nid = 0; nid < MAX_NUMNODES; nid++) {
        st->node_threads[nid] = dnodes[nid].nthreads;
        for (unsigned i = 0; i < dnodes[nid].nranges; i++)
            st->node_pages[nid] += dnodes[nid].ranges[i].e - dnodes[nid].ranges[i].s;
    }
    return 0;
}
