// SPDX-License-Identifier: MIT
// FreeBSD main's boot hand-over and buddy queues (sys/vm/vm_page.c:
// vm_page_startup(), vm_page_init_page(); sys/vm/vm_phys.c:
// vm_phys_enqueue_contig(), vm_phys_enq_range(), vm_phys_enq_chunk(),
// vm_phys_enq_beg(), vm_freelist_add(), vm_freelist_rem(),
// vm_phys_free_pages(), vm_phys_alloc_freelist_pages(),
// vm_phys_split_pages(), vm_phys_finish_init(), vm_phys_lazy_init_domain();
// amd64's pmap_page_init()).
#include "mm/peers/freebsd/freebsd.h"

#include "kernel/lib/libc.h"

struct fb_seg fb_segs[FB_MAX_SEGS];
unsigned fb_nsegs;
struct fb_domain fb_domains[MAX_NUMNODES];
struct fb_freelist fb_free_queues[MAX_NUMNODES][FB_NFREELIST][FB_NFREEPOOL][FB_NFREEORDER];
bool fb_merged;
static unsigned default_freepool;   /* vm_default_freepool: LAZYINIT until the drain is done */

/* Adds segment [s, e) of run r's node, on the free list its addresses belong to. */
static void add_seg(uint64_t s, uint64_t e, unsigned domain, bool dma32)
{
    struct fb_seg *seg = &fb_segs[fb_nsegs < FB_MAX_SEGS ? fb_nsegs : FB_MAX_SEGS - 1];

    fb_nsegs++;

    seg->start = s;
    seg->end = e;
    seg->domain = domain;
    seg->freelist = s < FB_LOWMEM_END_PFN ? FB_FREELIST_LOWMEM :
                    s < FB_DMA32_END_PFN && dma32 ? FB_FREELIST_DMA32 : FB_FREELIST_DEFAULT;
    seg->first_page = fb_pfn_to_page(s);
}

int fb_reset(bool lazy, struct err *e)
{
    peer_runs_build();
    for (unsigned i = 0; i < heap_regions.nr; i++)
        memset(fb_pfn_to_page(heap_regions.r[i].s), 0,
               (heap_regions.r[i].e - heap_regions.r[i].s) * sizeof(struct fb_page));
    return fb_reset_lists(lazy, e);
}

int fb_reset_lists(bool lazy, struct err *e)
{
    uint64_t above_4g = 0;

    memset(fb_domains, 0, sizeof(fb_domains));
    for (unsigned d = 0; d < MAX_NUMNODES; d++)
        for (unsigned f = 0; f < FB_NFREELIST; f++)
            for (unsigned p = 0; p < FB_NFREEPOOL; p++)
                for (unsigned o = 0; o < FB_NFREEORDER; o++) {
                    struct fb_freelist *fl = &fb_free_queues[d][f][p][o];
                    fl->pl.tqh_first = NULL;
                    fl->pl.tqh_last = &fl->pl.tqh_first;
                    fl->lcnt = 0;
                }
    /* vm_phys_init(): the DMA32 list only with at least 64 GiB above 4 GiB. */
    for (unsigned i = 0; i < peer_nruns; i++)
        if (peer_runs[i].e > FB_DMA32_END_PFN)
            above_4g += peer_runs[i].e - MAX(peer_runs[i].s, FB_DMA32_END_PFN);
    /* vm_phys_add_seg(): segments split at the free lists' boundaries and where the domain changes. */
    fb_nsegs = 0;
    for (unsigned i = 0; i < peer_nruns; i++) {
        uint64_t s = peer_runs[i].s, e = peer_runs[i].e;
        if (s < FB_LOWMEM_END_PFN && e > FB_LOWMEM_END_PFN) {
            add_seg(s, FB_LOWMEM_END_PFN, peer_runs[i].node, false);
            s = FB_LOWMEM_END_PFN;
        }
        if (s < FB_DMA32_END_PFN && e > FB_DMA32_END_PFN) {
            add_seg(s, FB_DMA32_END_PFN, peer_runs[i].node, above_4g > FB_DMA32_NPAGES_THRESHOLD);
            s = FB_DMA32_END_PFN;
        }
        add_seg(s, e, peer_runs[i].node, above_4g > FB_DMA32_NPAGES_THRESHOLD);
    }
    default_freepool = lazy ? FB_FREEPOOL_LAZYINIT : FB_FREEPOOL_DEFAULT;
    fb_merged = false;
    if (fb_nsegs > FB_MAX_SEGS)
        return err_set(e, -E2BIG, "FreeBSD keeps at most %u physical segments (VM_PHYSSEG_MAX) and "
                       "this memory map needs %u", FB_MAX_SEGS, fb_nsegs);
    return 0;
}

/*
 * amd64's pmap_page_init() (sys/amd64/amd64/pmap.c): the empty pv list and
 * the write-back memory attribute. Another file than vm_page.c, so a call
 * for every page that vm_page_init_page() initialises.
 */
static __attribute__((noipa)) void pmap_page_init(struct fb_page *m)
{
    m->md.pv_list.tqh_first = NULL;                         /* TAILQ_INIT(&m->md.pv_list) */
    m->md.pv_list.tqh_last = &m->md.pv_list.tqh_first;
    m->md.pat_mode = FB_PAT_WRITE_BACK;
}

/* vm_page_init_page() (sys/vm/vm_page.c), which calls pmap_page_init(). */
static inline void init_page(struct fb_page *m, uint64_t pa, int segind, unsigned pool)
{
    m->object = NULL;
    m->ref_count = 0;
    m->busy_lock = FB_VPB_FREED;
    m->flags = 0;
    m->a.flags = 0;
    m->phys_addr = pa;
    m->a.queue = FB_PQ_NONE;
    m->psind = 0;
    m->segind = (int8_t)segind;
    m->order = FB_NFREEORDER;
    m->pool = (uint8_t)pool;
    m->valid = m->dirty = 0;
    pmap_page_init(m);
}

static inline struct fb_freelist *seg_queues(const struct fb_seg *seg, unsigned pool)
{
    return fb_free_queues[seg->domain][seg->freelist][pool];
}

/* vm_freelist_add(): at the tail, as every boot-time caller asks. */
static inline void freelist_add(struct fb_freelist *fl, struct fb_page *m, unsigned order, unsigned pool)
{
    m->order = (uint8_t)order;
    m->pool = (uint8_t)pool;
    m->q.tqe_next = NULL;                                   /* TAILQ_INSERT_TAIL() */
    m->q.tqe_prev = fl[order].pl.tqh_last;
    *fl[order].pl.tqh_last = m;
    fl[order].pl.tqh_last = &m->q.tqe_next;
    fl[order].lcnt++;
}

/* vm_freelist_rem(). */
static inline void freelist_rem(struct fb_freelist *fl, struct fb_page *m, unsigned order)
{
    if (m->q.tqe_next)                                      /* TAILQ_REMOVE() */
        m->q.tqe_next->q.tqe_prev = m->q.tqe_prev;
    else
        fl[order].pl.tqh_last = m->q.tqe_prev;
    *m->q.tqe_prev = m->q.tqe_next;
    fl[order].lcnt--;
    m->order = FB_NFREEORDER;
}

/* vm_phys_enq_chunk(): a chunk listed; under lazy init, the next chunk's first page initialised. */
static inline void enq_chunk(struct fb_freelist *fl, struct fb_page *m, unsigned order, unsigned pool)
{
    freelist_add(fl, m, order, pool);
    if (__builtin_expect(pool == FB_FREEPOOL_LAZYINIT, 0)) {
        uint64_t pa = m->phys_addr + (PAGE_SIZE << order);
        if ((pa >> PAGE_SHIFT) < fb_segs[m->segind].end)
            init_page(m + (1ul << order), pa, m->segind, FB_FREEPOOL_LAZYINIT);
    }
}

/* vm_phys_enqueue_contig(): rising orders to alignment, 16 MiB chunks, falling orders. No merging. */
static void enqueue_contig(struct fb_page *m, unsigned pool, uint64_t npages)
{
    const struct fb_seg *seg = &fb_segs[m->segind];
    struct fb_freelist *fl = seg_queues(seg, pool);
    struct fb_page *m_end = m + npages;
    uint64_t lo = fb_page_to_pfn(m), diff;

    if (m < m_end && (diff = lo ^ (lo + npages - 1)) != 0) {
        unsigned order = MIN(fls64(diff) - 1, FB_NFREEORDER - 1u);
        /* vm_phys_enq_range(): the pages below the first aligned boundary, smallest first. */
        for (uint64_t n = ALIGN_UP(lo, 1ul << order) - lo; n > 0;) {
            unsigned o = ffs64(n) - 1;
            enq_chunk(fl, m, o, pool);
            m += 1ul << o;
            n -= 1ul << o;
        }
    }
    while (m + (1ul << (FB_NFREEORDER - 1)) <= m_end) {
        enq_chunk(fl, m, FB_NFREEORDER - 1, pool);
        m += 1ul << (FB_NFREEORDER - 1);
    }
    /* vm_phys_enq_beg(): what is left, largest first. */
    for (uint64_t n = (uint64_t)(m_end - m); n > 0;) {
        unsigned o = fls64(n) - 1;
        enq_chunk(fl, m, o, pool);
        m += 1ul << o;
        n -= 1ul << o;
    }
}

void fb_boot(bool lazy, struct peer_boot_stats *st)
{
    uint64_t t0 = heap_par_platform_now();

    fb_startup(lazy);
    st->init_ticks = heap_par_platform_now() - t0;
    st->free_ticks = 0;
}

void fb_startup(bool lazy)
{
    unsigned pool = lazy ? FB_FREEPOOL_LAZYINIT : FB_FREEPOOL_DEFAULT;

    for (unsigned segind = 0; segind < fb_nsegs; segind++) {
        const struct fb_seg *seg = &fb_segs[segind];
        struct fb_page *m = seg->first_page;
        uint64_t pa = seg->start << PAGE_SHIFT;
        /* Without lazy init, every page of the segment; with it, none here. */
        if (!lazy)
            for (uint64_t p = seg->start; p < seg->end; p++, m++, pa += PAGE_SIZE)
                init_page(m, pa, (int)segind, FB_FREEPOOL_DEFAULT);
        /* The segment's free pages (all of them here) to the free lists. */
        m = seg->first_page;
        if (lazy)
            init_page(m, seg->start << PAGE_SHIFT, (int)segind, FB_FREEPOOL_LAZYINIT);
        struct fb_domain *vmd = &fb_domains[seg->domain];
        peer_lock(&vmd->free_lock);
        enqueue_contig(m, pool, seg->end - seg->start);
        peer_unlock(&vmd->free_lock);
        __atomic_fetch_add(&vmd->free_count, (int64_t)(seg->end - seg->start), __ATOMIC_RELAXED);
        vmd->page_count += seg->end - seg->start;
    }
}

/* vm_phys_finish_init(): a lazy chunk's other pages initialised, the chunk made a default one. */
static void finish_init(struct fb_page *m, unsigned order)
{
    if (__builtin_expect(m->pool == FB_FREEPOOL_LAZYINIT, 0)) {
        uint64_t pa = m->phys_addr;
        int segind = m->segind;
        m->pool = FB_FREEPOOL_DEFAULT;
        for (struct fb_page *t = m + 1; t < m + (1ul << order); t++) {
            pa += PAGE_SIZE;
            init_page(t, pa, segind, FB_FREEPOOL_DEFAULT);
        }
    }
}

/* vm_phys_free_pages(): merges with free buddies of the segment, any pool, up to order 12. */
static void free_pages(struct fb_page *m, unsigned pool, unsigned order)
{
    const struct fb_seg *seg = &fb_segs[m->segind];
    uint64_t pa = m->phys_addr;

    if (order < FB_NFREEORDER - 1) {
        do {
            pa ^= PAGE_SIZE << order;
            if ((pa >> PAGE_SHIFT) < seg->start || (pa >> PAGE_SHIFT) >= seg->end)
                break;
            struct fb_page *b = seg->first_page + ((pa >> PAGE_SHIFT) - seg->start);
            if (b->order != order)
                break;
            freelist_rem(seg_queues(seg, b->pool), b, order);
            finish_init(b, order);
            order++;
            pa &= ~((PAGE_SIZE << order) - 1);
            m = seg->first_page + ((pa >> PAGE_SHIFT) - seg->start);
        } while (order < FB_NFREEORDER - 1);
    }
    freelist_add(seg_queues(seg, pool), m, order, pool);
}

/* vm_phys_alloc_freelist_pages(): the pool's smallest chunk, else the largest of any pool. */
static struct fb_page *alloc_freelist_pages(unsigned domain, unsigned freelist, unsigned pool)
{
    struct fb_freelist *fl = fb_free_queues[domain][freelist][pool];

    for (unsigned oind = 0; oind < FB_NFREEORDER; oind++) {
        struct fb_page *m = fl[oind].pl.tqh_first;
        if (m) {
            freelist_rem(fl, m, oind);
            for (; oind > 0; oind--)                        /* vm_phys_split_pages() */
                freelist_add(fl, m + (1ul << (oind - 1)), oind - 1, pool);
            return m;
        }
    }
    for (unsigned oind = FB_NFREEORDER; oind-- > 0;)
        for (unsigned pind = default_freepool; pind < FB_NFREEPOOL; pind++) {
            struct fb_freelist *alt = fb_free_queues[domain][freelist][pind];
            struct fb_page *m = alt[oind].pl.tqh_first;
            if (m) {
                freelist_rem(alt, m, oind);
                finish_init(m, oind);
                for (; oind > 0; oind--)
                    freelist_add(fl, m + (1ul << (oind - 1)), oind - 1, pool);
                return m;
            }
        }
    return NULL;
}

uint64_t fb_alloc_page(void)
{
    /* The boot CPU's domain first; the default list, then DMA32, then low memory. */
    for (unsigned d = 0; d < MAX_NUMNODES; d++) {
        struct fb_domain *vmd = &fb_domains[d];
        peer_lock(&vmd->free_lock);
        for (unsigned f = 0; f < FB_NFREELIST; f++) {
            struct fb_page *m = alloc_freelist_pages(d, f, FB_FREEPOOL_DEFAULT);
            if (m) {
                peer_unlock(&vmd->free_lock);
                __atomic_fetch_sub(&vmd->free_count, 1, __ATOMIC_RELAXED);
                return fb_page_to_pfn(m);
            }
        }
        peer_unlock(&vmd->free_lock);
    }
    return PEER_NO_PAGE;
}

void fb_free_page(uint64_t pfn)
{
    struct fb_page *m = fb_pfn_to_page(pfn);
    struct fb_domain *vmd = &fb_domains[fb_segs[m->segind].domain];

    peer_lock(&vmd->free_lock);
    free_pages(m, FB_FREEPOOL_DEFAULT, 0);
    peer_unlock(&vmd->free_lock);
    __atomic_fetch_add(&vmd->free_count, 1, __ATOMIC_RELAXED);
}

static uint64_t drained, drain_span[2];

/* vm_phys_lazy_init_domain() for every domain, then the default pool made the default. */
static void drain(unsigned cpu, void *arg)
{
    unsigned *on = arg;

    if (cpu != *on)
        return;
    drain_span[0] = heap_par_platform_now();
    for (unsigned d = 0; d < MAX_NUMNODES; d++) {
        struct fb_domain *vmd = &fb_domains[d];
        peer_lock(&vmd->free_lock);
        for (unsigned f = 0; f < FB_NFREELIST; f++) {
            struct fb_freelist *fl = fb_free_queues[d][f][FB_FREEPOOL_LAZYINIT];
            for (unsigned oind = 0; oind < FB_NFREEORDER; oind++) {
                struct fb_page *m;
                while ((m = fl[oind].pl.tqh_first) != NULL) {
                    /* The chunk taken out, initialised without the lock, freed with merging. */
                    freelist_rem(fl, m, oind);
                    __atomic_fetch_sub(&vmd->free_count, 1l << oind, __ATOMIC_RELAXED);
                    peer_unlock(&vmd->free_lock);
                    finish_init(m, oind);
                    __atomic_fetch_add(&vmd->free_count, 1l << oind, __ATOMIC_RELAXED);
                    peer_lock(&vmd->free_lock);
                    free_pages(m, FB_FREEPOOL_DEFAULT, oind);
                    drained += 1ul << oind;
                }
            }
        }
        peer_unlock(&vmd->free_lock);
    }
    default_freepool = FB_FREEPOOL_DEFAULT;
    drain_span[1] = heap_par_platform_now();
}

int fb_lazy_drain(unsigned cpus, uint64_t window[2], struct peer_later_stats *st, struct err *e)
{
    /* FreeBSD drains with one idle-priority thread: here on a CPU other than the boot CPU if any. */
    unsigned n = MIN(cpus, 2u), on = n - 1;

    if (cpus < 1 || cpus > heap_par_platform_cpus())
        return err_set(e, -EINVAL, "freebsd_lazy: %u CPUs asked for, %u available", cpus,
                       heap_par_platform_cpus());
    drained = 0;
    heap_par_platform_run(n, drain, &on, window);
    /* Timed on the draining CPU itself, from its start to its end. */
    window[0] = drain_span[0];
    window[1] = drain_span[1];
    fb_merged = true;
    memset(st, 0, sizeof(*st));
    st->cpus = 1;
    st->cpu_pages[0] = drained;
    st->cpu_ticks[0] = window[1] - window[0];
    return 0;
}
