/* SPDX-License-Identifier: MIT */
/*
 * side.c's threads, in its translation unit (it includes this file after
 * enter()), since they call the side's page_alloc.c statics: the
 * concurrent phase after boot (hot-add beside allocations and frees), and
 * the hand-over at boot on several CPUs (--threads).
 */

/* The concurrent phase: hot-add on CPU 1, allocations and frees on CPUs 2 and 3. */
static struct page_info *alloc_any(unsigned int order, unsigned int memflags)
{
    return alloc_heap_pages(0, XH_NR_ZONES - 1, order, memflags, NULL);
}

/* As free_domheap_pages() frees a domain's pages: scrubbed where scrub_debug checks them. */
static void free_back(struct page_info *pg, unsigned int order)
{
#ifdef CONFIG_SCRUB_DEBUG
    free_heap_pages(pg, order, scrub_debug);
#else
    free_heap_pages(pg, order, false);
#endif
}

static const struct xh_ops OPS = { alloc_any, free_back };

static void *thread(void *arg)
{
    unsigned long i, cpu = (unsigned long)arg;

    xh_cpu = cpu;
    if ( cpu > 1 )
        xh_churn(&OPS, seq->seed * 4 + cpu, 200);
    else
        for ( i = 0; i < seq->calls; i++ )
            if ( seq->call[i].threaded )
                init_heap_pages(xh_frame_table + seq->call[i].s, seq->call[i].n);
    return NULL;
}

static void concurrently(void)
{
    pthread_t t[3];
    unsigned long k;

    for ( k = 0; k < 3; k++ )
        if ( pthread_create(&t[k], NULL, thread, (void *)(k + 1)) )
            xh_fail(__FILE__, __LINE__, "pthread_create()");
    for ( k = 0; k < 3; k++ )
        pthread_join(t[k], NULL);
}

#ifdef XH_HEAP_INIT_SMP
/*
 * The hand-over of a tree with heap-init-smp, as end_boot_allocator() and,
 * after SMP bring-up, init_deferred_heap() make it: each boot call is a
 * region of the boot allocator, handed over in the sequence's order on the
 * boot CPU less the blocks it keeps back; then q->boot_threads CPUs (CPU c
 * on node c % 2, so that with one CPU, or on a third node, a node has
 * none) mark the kept blocks free at once and the boot CPU lists them.
 * -> the first call not at boot.
 */
static unsigned int boot_in_parallel(const struct sequence *q)
{
    unsigned int i, deferred;
    unsigned long said = xh_heap_printks, before;

    xh_smp_up(q->boot_threads, 2);
    for ( i = 0; i < q->calls && q->call[i].phase == PHASE_BOOT && !q->call[i].threaded; i++ )
    {
        const struct page_info *pg = xh_frame_table + q->call[i].s;

        enter(i, PHASE_BOOT);
        hand_over_boot_region(mfn_x(page_to_mfn(pg)), mfn_x(page_to_mfn(pg + q->call[i].n - 1)) + 1);
    }
    /* end_boot_allocator()'s last step, with the DMA width it has by then. */
    before = xh_heap_printks;
    hand_back_for_early_allocations();
    if ( xh_handed_back )
        *xh_handed_back += xh_heap_printks - before;
    deferred = nr_deferred_ranges;
    if ( xh_handed_on_threads )
        *xh_handed_on_threads += deferred;
    /* paging_init() has run by SMP bring-up: the pieces are marked with the M2P live. */
    paging_init(q);
    machine_to_phys_mapping_valid = !q->stops;
    xh_smp_cpus = q->boot_threads;
    init_deferred_heap();
    xh_smp_done();
    xh_smp_cpus = 0;
    /* Its report ("Heap: ..."), which stock has not. */
    xh_printks -= xh_heap_printks - said;
    return i;
}
#else
/*
 * The hand-over at boot on q->boot_threads CPUs, as a parallel
 * end_boot_allocator() would do it: the boot CPU hands over, in the
 * sequence's order, every call that brings a node its first memory (or
 * touches memory on no node), since init_node_heap() sets a node's heap
 * up without heap_lock; every other call is left to CPU 1 + (its rank
 * among those left) % boot_threads, and then the CPUs hand theirs over
 * at once, each in the sequence's order, through the same
 * init_heap_pages() and its heap_lock. -> the first call not at boot.
 */
static unsigned int handover_cpu[MAX_CALLS];

static void *handover(void *arg)
{
    unsigned int i, cpu = (unsigned int)(unsigned long)arg;

    xh_cpu = cpu;
    for ( i = 0; i < seq->calls; i++ )
        if ( handover_cpu[i] == cpu )
            init_heap_pages(xh_frame_table + seq->call[i].s, seq->call[i].n);
    return NULL;
}

static bool on_known_nodes(const struct call *c)
{
    unsigned long f;

    for ( f = c->s; f < c->s + c->n; f++ )
        if ( !xh_on_node(f) || !avail[phys_to_nid(page_to_maddr(xh_frame_table + f))] )
            return false;
    return true;
}

static unsigned int boot_in_parallel(const struct sequence *q)
{
    pthread_t t[XH_MAX_BOOT_THREADS];
    unsigned int i, k, left = 0;

    memset(handover_cpu, 0, sizeof(handover_cpu));
    for ( i = 0; i < q->calls && q->call[i].phase == PHASE_BOOT && !q->call[i].threaded; i++ )
    {
        enter(i, PHASE_BOOT);
        if ( on_known_nodes(&q->call[i]) )
            handover_cpu[i] = 1 + left++ % q->boot_threads;
        else
            init_heap_pages(xh_frame_table + q->call[i].s, q->call[i].n);
    }
    if ( xh_handed_on_threads )
        *xh_handed_on_threads += left;
    for ( k = 0; k < q->boot_threads && k < left; k++ )
        if ( pthread_create(&t[k], NULL, handover, (void *)(unsigned long)(k + 1)) )
            xh_fail(__FILE__, __LINE__, "pthread_create()");
    while ( k-- )
        pthread_join(t[k], NULL);
    return i;
}
#endif
