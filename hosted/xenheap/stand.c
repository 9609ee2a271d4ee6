/* SPDX-License-Identifier: MIT */
/*
 * The tester's side of the stand-ins (xen_stand.h, xen_stand_alloc.h): the
 * state they keep for Xen's code (the frame table and its pdx, the
 * domains, the NUMA map, the M2P) and the few functions of the rest of
 * Xen that page_alloc.c calls, each counted or failing by name where the
 * real code should never reach it. Several threads may call them at once
 * (tester.h's concurrent phase): the lock is a real one.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "xen_stand.h"
#include "tester.h"

struct page_info *xh_frame_table;
unsigned long xh_nr_frames;
unsigned long xh_base_pdx, xh_pdx_bottom_mask = ~0UL, xh_pdx_hole_mask;
unsigned int xh_pdx_hole_shift;
#ifndef XH_TIMING
unsigned long xh_pdx_offset;
#endif
struct domain xh_domains[4];
u32 xh_tlbflush_clock;
unsigned int memnode_shift;
nodeid_t xh_memnodemap[XH_MEMNODEMAP];
unsigned long xh_memnodemapsize;
nodemask_t node_online_map;
struct vcpu xh_idle_vcpu;
bool machine_to_phys_mapping_valid;
unsigned long *xh_m2p;
int system_state;
unsigned long xh_printks, xh_heap_printks, xh_xenheap_allocs, xh_tlb_flushes, xh_virqs;
char *xh_ram;
unsigned char xh_listed[MAX_FRAMES];
__thread unsigned int xh_cpu;
void (*xh_on_fail)(const char *what);
bool (*xh_heap_lock_held)(void);
char *xh_stop_text;
unsigned long *xh_handed_on_threads, *xh_handed_back;
unsigned int xh_smp_cpus, xh_smp_nodes;
cpumask_t cpu_online_map, xh_node_to_cpumask[MAX_NUMNODES], xh_cpu_sibling_mask[NR_CPUS];

/*
 * on_selected_cpus(): CPUs 1 and up are threads that wait for work, as a
 * CPU that is up waits for an IPI (a thread a call would start late on a
 * busy machine), made the first time a call selects them; the caller, CPU
 * 0 as Xen's boot CPU, runs the function itself when selected, as Xen's
 * does. xh_smp_done() ends the threads.
 */
static pthread_t pool[NR_CPUS];
static unsigned long pool_start[NR_CPUS];
static unsigned int pool_size;                 /* CPUs 1 to pool_size have a thread */
static void (*job_fn)(void *);
static void *job_info;
static cpumask_t job_mask;
static unsigned long job_gen, job_left;
static bool job_stop;

static void *pool_cpu(void *arg)
{
    unsigned int cpu = (unsigned int)(uintptr_t)arg;
    unsigned long seen = pool_start[cpu];

    xh_cpu = cpu;
    for ( ;; )
    {
        while ( __atomic_load_n(&job_gen, __ATOMIC_ACQUIRE) == seen )
            sched_yield();
        seen++;
        if ( job_stop )
            return NULL;
        if ( cpumask_test_cpu(cpu, &job_mask) )
            job_fn(job_info);
        __atomic_fetch_sub(&job_left, 1, __ATOMIC_RELEASE);
    }
}

void xh_on_selected_cpus(const cpumask_t *mask, void (*fn)(void *), void *info)
{
    if ( xh_cpu )
        xh_fail(__FILE__, __LINE__, "on_selected_cpus() called on another CPU than the boot CPU");
    while ( pool_size + 1 < NR_CPUS && (mask->bits[0] >> (pool_size + 1)) )
    {
        pool_start[++pool_size] = job_gen;
        if ( pthread_create(&pool[pool_size], NULL, pool_cpu, (void *)(uintptr_t)pool_size) )
            xh_fail(__FILE__, __LINE__, "pthread_create()");
    }
    job_fn = fn, job_info = info, job_mask = *mask, job_left = pool_size;
    __atomic_fetch_add(&job_gen, 1, __ATOMIC_RELEASE);
    if ( cpumask_test_cpu(0, mask) )
        fn(info);
    while ( __atomic_load_n(&job_left, __ATOMIC_ACQUIRE) )
        sched_yield();
}

void xh_smp_up(unsigned int cpus, unsigned int nodes)
{
    unsigned int c;

    xh_smp_nodes = nodes;
    cpumask_clear(&cpu_online_map);
    for ( c = 0; c < MAX_NUMNODES; c++ )
        cpumask_clear(&xh_node_to_cpumask[c]);
    for ( c = 0; c < cpus; c++ )
    {
        __cpumask_set_cpu(c, &cpu_online_map);
        __cpumask_set_cpu(c, &xh_node_to_cpumask[c % nodes]);
        xh_cpu_sibling_mask[c].bits[0] = 1UL << c;
    }
}

void xh_smp_done(void)
{
    unsigned int c;

    job_stop = true, job_left = pool_size;
    __atomic_fetch_add(&job_gen, 1, __ATOMIC_RELEASE);
    for ( c = 1; c <= pool_size; c++ )
        pthread_join(pool[c], NULL);
    job_stop = false, pool_size = 0;
}

void printk(const char *fmt, ...)
{
    __atomic_fetch_add(&xh_printks, 1, __ATOMIC_RELAXED);
    /* heap-init-smp's report, which stock has not: "Heap: ..." */
    if ( !__builtin_strncmp(fmt, "Heap: ", 6) )
        __atomic_fetch_add(&xh_heap_printks, 1, __ATOMIC_RELAXED);
}

_Noreturn void xh_fail(const char *file, int line, const char *what)
{
    /* The tester's child says it where the driver reads it, and only the driver says whether it failed. */
    if ( xh_stop_text )
        snprintf(xh_stop_text, 256, "%s:%d: %s", file, line, what);
    else
    {
        fprintf(stderr, "xenheap-test: %s:%d: %s\n", file, line, what);
        fflush(stderr);
    }
    if ( xh_on_fail )
        xh_on_fail(what);
    _exit(3);
}

/* A frame's index in the table, or a failure naming who asked. */
static unsigned long index_of(unsigned long mfn, const char *who)
{
    if ( !mfn_valid(_mfn(mfn)) )
        xh_fail(__FILE__, __LINE__, who);
    return mfn_to_pdx(_mfn(mfn)) - xh_base_pdx;
}

void *mfn_to_virt(unsigned long mfn)
{
    return xh_ram + index_of(mfn, "mfn_to_virt() of a frame outside the frame table") * PAGE_SIZE;
}

/* x86_64/mm.c's: nothing before paging_init() has set the M2P up, then the entry. */
void set_gpfn_from_mfn(unsigned long mfn, unsigned long pfn)
{
    if ( !machine_to_phys_mapping_valid )
        return;
    XH_COUNTED(XH_C_M2P);
    xh_m2p[index_of(mfn, "set_gpfn_from_mfn() of a frame outside the frame table")] = pfn;
}

/* The store alone, for a tree whose x86 header makes the test inline (the measured alternative). */
void m2p_set_gpfn(unsigned long mfn, unsigned long pfn)
{
    XH_COUNTED(XH_C_M2P);
    xh_m2p[index_of(mfn, "m2p_set_gpfn() of a frame outside the frame table")] = pfn;
}

void xh_spin_lock(spinlock_t *l)
{
    unsigned int ticket = __atomic_fetch_add(&l->tail, 1, __ATOMIC_ACQUIRE);

    if ( l->owner == (int)xh_cpu + 1 && ticket != l->head )
        xh_fail(__FILE__, __LINE__, "spin_lock() of a lock this CPU holds");
    /* In user space the holder can be preempted: yield now and then rather than spin a time slice away. */
    for ( unsigned int spins = 1; __atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != ticket; spins++ )
        if ( spins % 64 )
            cpu_relax();
        else
            sched_yield();
    l->owner = (int)xh_cpu + 1;
}

void xh_spin_unlock(spinlock_t *l)
{
    if ( l->owner != (int)xh_cpu + 1 )
        xh_fail(__FILE__, __LINE__, "spin_unlock() of a lock this CPU does not hold");
    l->owner = 0;
    __atomic_store_n(&l->head, l->head + 1, __ATOMIC_RELEASE);
}

#ifndef XH_TIMING
void xh_owner_check(void)
{
    /*
     * But in the hand-over after SMP bring-up (xh_smp_cpus), whose CPUs
     * mark free, without the lock, blocks that are in no heap, each piece
     * one CPU's.
     */
    if ( xh_heap_lock_held && !xh_heap_lock_held() && !xh_smp_cpus )
        xh_fail(__FILE__, __LINE__, "page_get_owner() without heap_lock: a page read before the lock is taken");
}
#endif

unsigned int page_to_llc_color(const struct page_info *pg)
{
    (void)pg;
    xh_fail(__FILE__, __LINE__, "page_to_llc_color(): a coloured page, with LLC colouring off (x86)");
}

void *alloc_xenheap_pages(unsigned int order, unsigned int memflags)
{
    (void)memflags;
    __atomic_fetch_add(&xh_xenheap_allocs, 1, __ATOMIC_RELAXED);
    return calloc(1, PAGE_SIZE << order);
}

void *xh_xmalloc(size_t bytes)
{
    __atomic_fetch_add(&xh_xenheap_allocs, 1, __ATOMIC_RELAXED);
    return calloc(1, bytes);
}

void xh_fill_page(void *p, uint64_t word)
{
    uint64_t *q = p;
    unsigned int i;

    for ( i = 0; i < PAGE_SIZE / sizeof(*q); i++ )
        q[i] = word;
}

void xh_list_check(const struct page_info *pg, const struct page_list_head *h)
{
    const struct page_info *p;

    for ( p = h->next; p; p = p->list.next )
        if ( p == pg )
            return;
    xh_fail(__FILE__, __LINE__, "page_list_del() of a page not on the list");
}
