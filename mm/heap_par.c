// SPDX-License-Identifier: MIT
// Parallel init of the eager strategies: the cut into pieces, their
// assignment to CPUs, the private builds and the splice into the node lists.
#include "mm/heap_par.h"

#include "kernel/cmdline.h"
#include "kernel/lib/libc.h"
#include "mm/heap_priv.h"

/*
 * Why no merge crosses a piece's edge, so that CPUs never touch each
 * other's pages and the parallel heap is the serial heap:
 *
 *  - A unit is a naturally aligned block of 2^MAX_ORDER pages. A buddy of a
 *    block of order k < MAX_ORDER at MFN m is m ^ 2^k: it differs from m in
 *    bit k only, so it lies in the same unit. Merging stops at MAX_ORDER
 *    (Xen's loop condition), so every merge reads and writes pages of one
 *    unit only. chunk's and sweep's blocks are chunk_order()'s, at most
 *    MAX_ORDER and naturally aligned: never across a unit edge either.
 *  - Every piece of a unit goes to one worker (heap_par_assign()), so one
 *    worker alone writes a unit's page_info and M2P entries, and a buddy it
 *    reads is one of its own pages or a page never handed over.
 *  - Pieces of one unit on two nodes (a node boundary inside a 1 GiB block)
 *    stay on that one worker; merges between them are refused by the node
 *    test, as in the serial heap.
 *  - So each free block of the serial heap is built whole by one worker,
 *    and the set of (node, zone, order, MFN) blocks, which the digest sums,
 *    is the same. List order differs; the heap's lists are sets to every
 *    caller (allocation takes any block of the order), and every boot page
 *    shares one need_scrub flag, so appending a segment keeps dirty blocks
 *    behind clean ones.
 *
 * tests/unit/test_heap_par.c checks each step on cut maps and node maps.
 */

static unsigned opt_cpus;
CMDLINE_OPT(cpus, .key = "cpus", .type = OPT_UINT, .dst = &opt_cpus, .min = 0,
            .max = HEAP_PAR_MAX_CPUS,
            .help = "CPUs that build the heap with the eager strategies and the floor "
                    "(0, the default: every CPU up; 1: Xen's serial init)");

static struct heap_piece pieces[HEAP_PAR_MAX_PIECES];
static unsigned npieces;
static struct heap *priv;
static unsigned npriv;

int heap_par_cut(const struct bootmem_region *r, unsigned nr, struct heap_piece *out, unsigned max)
{
    struct node_range ranges[MAX_NUMNODES * 2];
    unsigned n = 0;

    for (unsigned i = 0; i < nr; i++) {
        for (uint64_t s = r[i].s; s < r[i].e;) {
            /* To the end of the region or of the unit, whichever is first... */
            uint64_t e = MIN(r[i].e, ALIGN_DOWN(s, 1ull << MAX_ORDER) + (1ull << MAX_ORDER));
            /* ...then at every change of node inside that. */
            unsigned k = numa_ranges(s, e, ranges, ARRAY_SIZE(ranges));
            for (unsigned j = 0; j < k; j++) {
                if (n == max)
                    return -E2BIG;
                out[n++] = (struct heap_piece){ ranges[j].s, ranges[j].e, (uint16_t)ranges[j].node, 0 };
            }
            s = ranges[k - 1].e;
        }
    }
    return (int)n;
}

void heap_par_assign(struct heap_piece *p, unsigned n, const unsigned *cpu_node, unsigned ncpus,
                     uint64_t *pages_out)
{
    for (unsigned c = 0; c < ncpus; c++)
        pages_out[c] = 0;
    for (unsigned i = 0; i < n;) {
        uint64_t unit = p[i].s >> MAX_ORDER, pages = 0;
        unsigned end = i, best = ncpus;

        while (end < n && p[end].s >> MAX_ORDER == unit)
            pages += p[end].e - p[end].s, end++;
        /* The least loaded worker on the unit's node, else of all. */
        for (unsigned pass = 0; pass < 2 && best == ncpus; pass++)
            for (unsigned c = 0; c < ncpus; c++)
                if ((pass || cpu_node[c] == p[i].node) &&
                    (best == ncpus || pages_out[c] < pages_out[best]))
                    best = c;
        for (; i < end; i++)
            p[i].cpu = (uint16_t)best;
        pages_out[best] += pages;
    }
}

/* Appends list src after list dst; both hold free blocks linked by MFN. */
static void list_splice_tail(struct page_list_head *dst, const struct page_list_head *src)
{
    if (!src->next)
        return;
    if (!dst->next) {
        *dst = *src;
        return;
    }
    dst->tail->list.next = (uint32_t)page_to_mfn(src->next);
    src->next->list.prev = (uint32_t)page_to_mfn(dst->tail);
    dst->tail = src->tail;
}

void heap_par_splice(struct heap *dst, struct heap *src)
{
    for (unsigned n = 0; n < MAX_NUMNODES; n++) {
        struct heap_node *d = &dst->nodes[n];
        const struct heap_node *s = &src->nodes[n];
        uint64_t pages = 0;

        for (unsigned z = 0; z < NR_ZONES; z++)
            pages += s->avail[z];
        if (!pages)
            continue;
        spin_lock(&d->lock);
        /* The node's heap exists once any worker has met the node. */
        if (!dst->avail_ptr[n])
            init_node_heap(dst, n);
        for (unsigned z = 0; z < NR_ZONES; z++) {
            for (unsigned o = 0; o <= MAX_ORDER; o++)
                list_splice_tail(&d->lists[z][o], &s->lists[z][o]);
            d->avail[z] += s->avail[z];
        }
        d->need_scrub += s->need_scrub;
        spin_unlock(&d->lock);
    }
    spin_lock(&dst->lock);
    dst->total_avail_pages += src->total_avail_pages;
    dst->first_valid_mfn = MIN(dst->first_valid_mfn, src->first_valid_mfn);
    spin_unlock(&dst->lock);
}

uint64_t heap_par_bytes(unsigned ncpus)
{
    return ncpus > 1 ? (uint64_t)ncpus * sizeof(struct heap) : 0;
}

void heap_par_give_storage(void *mem, unsigned ncpus)
{
    priv = mem;
    npriv = mem ? ncpus : 0;
}

unsigned heap_par_cpus_max(void)
{
    return MIN(heap_par_platform_cpus(), npriv ? npriv : 1);
}

unsigned heap_par_cpus_asked(void)
{
    return opt_cpus;
}

unsigned heap_par_cpus(void)
{
    return opt_cpus ? MIN(opt_cpus, heap_par_cpus_max()) : heap_par_cpus_max();
}

/* Cuts and assigns for ncpus workers: before the timed window, every run. */
static int plan(unsigned ncpus, struct heap_par_stats *st, struct err *e)
{
    unsigned node[HEAP_PAR_MAX_CPUS] = { 0 };
    uint64_t pages[HEAP_PAR_MAX_CPUS];
    int n = heap_par_cut(heap_regions.r, heap_regions.nr, pieces, ARRAY_SIZE(pieces));

    if (n < 0)
        return err_set(e, n, "parallel init: more than %u pieces of at most 2^%u pages",
                       (unsigned)ARRAY_SIZE(pieces), MAX_ORDER);
    npieces = (unsigned)n;
    for (unsigned c = 0; c < ncpus; c++)
        node[c] = heap_par_platform_node(c);
    heap_par_assign(pieces, npieces, node, ncpus, pages);
    memset(st, 0, sizeof(*st));
    st->cpus = ncpus;
    for (unsigned c = 0; c < ncpus; c++)
        st->cpu_pages[c] = pages[c];
    for (unsigned i = 0; i < npieces; i++)
        st->node_pages[pieces[i].node] += pieces[i].e - pieces[i].s;
    return 0;
}

struct job {
    struct heap *h;
    const struct heap_strategy *s;      /* NULL: the floor */
    bool with_m2p;
    uint8_t *array;                     /* a peer's floor: its page array (mm/peers/peer.h), else NULL */
    unsigned entry_bytes;
    struct heap_par_stats *st;
};

/* The floor's stores for one piece: its page_info entries, and M2P entries when stored. */
static void floor_piece(const struct heap_piece *p, bool with_m2p)
{
    heap_floor_fill(mfn_to_page(p->s), 0xff, (p->e - p->s) * sizeof(struct page_info));
    if (with_m2p)
        heap_floor_fill(&m2p[p->s], 0xff, (p->e - p->s) * sizeof(uint64_t));
}

static void worker(unsigned cpu, void *arg)
{
    struct job *j = arg;
    struct heap *mine = &priv[cpu];
    uint64_t t0 = heap_par_platform_now();

    for (unsigned i = 0; i < npieces; i++) {
        const struct heap_piece *p = &pieces[i];
        if (p->cpu != cpu)
            continue;
        if (j->s)
            j->s->init_pages(mine, p->s, p->e - p->s);
        else if (j->array)
            heap_floor_fill(j->array + p->s * j->entry_bytes, 0xff, (p->e - p->s) * j->entry_bytes);
        else
            floor_piece(p, j->with_m2p);
    }
    uint64_t t1 = heap_par_platform_now();
    if (j->s)
        heap_par_splice(j->h, mine);
    uint64_t t2 = heap_par_platform_now();
    j->st->cpu_ticks[cpu] = t2 - t0;
    j->st->cpu_splice_ticks[cpu] = t2 - t1;
}

int heap_par_build(struct heap *h, const struct heap_strategy *s, unsigned n, uint64_t window[2],
                   struct heap_par_stats *st, struct err *e)
{
    int rc = n > heap_par_cpus_max() ? err_set(e, -EINVAL, "parallel init: %u CPUs asked for, "
                                               "%u available", n, heap_par_cpus_max())
                                     : plan(n, st, e);

    if (rc)
        return rc;
    if (!priv)
        return err_set(e, -EINVAL, "parallel init: no private heaps were set aside");
    for (unsigned c = 0; c < n; c++)
        heap_clear(&priv[c]);
    heap_par_platform_run(n, worker, &(struct job){ .h = h, .s = s, .st = st }, window);
    /* end_boot_allocator() leaves the boot allocator empty; so does this. */
    bootmem.nr = 0;
    return 0;
}

/* A floor's job on n workers over the same pieces as the inits. */
static int floor_job(unsigned n, struct job *j, uint64_t window[2], struct heap_par_stats *st, struct err *e)
{
    int rc = n > heap_par_cpus_max() ? err_set(e, -EINVAL, "parallel floor: %u CPUs asked for, "
                                               "%u available", n, heap_par_cpus_max())
                                     : plan(n, st, e);

    if (rc)
        return rc;
    j->st = st;
    heap_par_platform_run(n, worker, j, window);
    return 0;
}

int heap_par_floor(unsigned n, uint64_t window[2], struct heap_par_stats *st, struct err *e)
{
    return floor_job(n, &(struct job){ .with_m2p = !xc_on(xen_costs, XC_M2P) }, window, st, e);
}

int heap_par_floor_array(unsigned n, void *array, unsigned entry_bytes, uint64_t window[2],
                         struct heap_par_stats *st, struct err *e)
{
    return floor_job(n, &(struct job){ .array = array, .entry_bytes = entry_bytes }, window, st, e);
}
