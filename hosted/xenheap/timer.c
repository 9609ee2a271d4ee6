/* SPDX-License-Identifier: MIT */
/*
 * Xen's own init_heap_pages() timed on this CPU: each way (a tree's side,
 * timeside.c, with one heap-init= variant where the tree has them) hands
 * one range of frames over as at boot, boot scrubbing pending, in windows
 * of the thread's CPU time; the floor is the page_info bytes written by
 * memset() and by non-temporal stores. Each window runs in a child of its
 * own and opens on the hosted runner's prelude: the frame table reset in
 * address order, then flushed from the caches where it fits in twice the
 * last-level cache. The ways and the floor take turns from run to run.
 * Built with -DXH_COUNT it counts the stand-ins' calls instead of timing.
 * The stand-ins are the tester's (stand.c), the frame table from pdx 0,
 * no PDX compression, one node: x86 as end_boot_allocator() meets it.
 *
 * With THREADS, each window is a hand-over on that many CPUs, timed on
 * the wall clock: the boot CPU hands over the first page (which sets the
 * node's heap up, as end_boot_allocator() starts), then THREADS threads
 * at once hand over a share each of the rest, cut at 1 GiB boundaries,
 * through the same init_heap_pages() and its heap_lock; the floor is
 * memset() of each share's page_info bytes on as many threads. A way of
 * variant 4 (AFTER_SMP), of a tree with heap-init-smp, hands the rest
 * over as that tree does: end_boot_allocator()'s part on the boot CPU,
 * then init_deferred_heap() on THREADS CPUs.
 *
 *   xenheap-time GIB[,GIB...] RUNS SIDE:VARIANT[,...] [THREADS]   one JSON line a window
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xen_stand.h"
#include "tester.h"

#ifndef XH_NSIDES
#define XH_NSIDES 1
#endif
#ifdef XH_COUNT
unsigned long xh_count[XH_C_N];
#endif

#define FIRST 0x100UL                    /* the range starts at 1 MiB */
#define MAX_WAYS 16

typedef unsigned long side_fn(struct page_info *pg, unsigned long nr, unsigned int variant);
side_fn xh_hand_over_0, xh_hand_over_1, xh_hand_over_2, xh_hand_over_3, xh_hand_over_4, xh_hand_over_5,
        xh_hand_over_6, xh_hand_over_7;
static side_fn *const SIDE[] = {
    xh_hand_over_0,
#if XH_NSIDES > 1
    xh_hand_over_1,
#endif
#if XH_NSIDES > 2
    xh_hand_over_2,
#endif
#if XH_NSIDES > 3
    xh_hand_over_3,
#endif
#if XH_NSIDES > 4
    xh_hand_over_4,
#endif
#if XH_NSIDES > 5
    xh_hand_over_5,
#endif
#if XH_NSIDES > 6
    xh_hand_over_6,
#endif
#if XH_NSIDES > 7
    xh_hand_over_7,
#endif
};

static uint64_t thread_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* The prelude: the table reset in address order, flushed if it fits twice the LLC. */
static void prelude(size_t bytes)
{
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    size_t i;

    memset(xh_frame_table, 0, bytes);
    if ( llc <= 0 )
        llc = 64L << 20;
    if ( bytes <= 2 * (size_t)llc )
    {
        for ( i = 0; i < bytes; i += 64 )
            __builtin_ia32_clflushopt((char *)xh_frame_table + i);
        __builtin_ia32_mfence();
    }
}

static void nt_fill(void *p, size_t bytes)
{
    long long *q = p, *end = (long long *)((char *)p + bytes);

    for ( ; q < end; q += 4 )
    {
        __builtin_ia32_movnti64(q, 0);
        __builtin_ia32_movnti64(q + 1, 0);
        __builtin_ia32_movnti64(q + 2, 0);
        __builtin_ia32_movnti64(q + 3, 0);
    }
    __builtin_ia32_sfence();
}

uint64_t xh_wall_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}
#define wall_ns xh_wall_ns

/* A way's variant AFTER_SMP: the tree's own hand-over after SMP bring-up (timeside.c's XH_AFTER_SMP). */
#define AFTER_SMP 4
uint64_t xh_after_boot_ns;

/* A parallel window's share: [from, to) of the frame table, on one thread. */
struct share {
    pthread_t t;
    int side;
    unsigned int variant, cpu;
    unsigned long from, to;
    uint64_t ns;                        /* the thread's own CPU time */
    unsigned long total;                /* total_avail_pages when its share was in */
};

static void *hand_share(void *arg)
{
    struct share *sh = arg;
    uint64_t t0 = thread_ns();

    xh_cpu = sh->cpu;
    if ( sh->side < 0 )
        memset(xh_frame_table + sh->from, 0x11, (sh->to - sh->from) * sizeof(struct page_info));
    else
        sh->total = SIDE[sh->side](xh_frame_table + sh->from, sh->to - sh->from, sh->variant);
    sh->ns = thread_ns() - t0;
    return NULL;
}

/*
 * The hand-over of [FIRST, frames) on `threads` CPUs after the boot CPU's
 * first page -> wall ns; shared[1] the boot CPU's part, shared[2] the
 * longest thread's CPU time, shared[3] the pages the heap then holds (the
 * thread whose share went in last saw them all).
 */
static uint64_t in_parallel(int side, unsigned int variant, unsigned long frames, unsigned int threads,
                            uint64_t *shared)
{
    struct share sh[16];
    unsigned long gib = (frames + (1UL << 18) - 1) >> 18, first = FIRST + (side >= 0);
    uint64_t t0 = wall_ns(), t1, longest = 0, total = 0;
    unsigned int k;

    if ( side >= 0 )
        SIDE[side](xh_frame_table + FIRST, 1, variant == AFTER_SMP ? 0 : variant);
    t1 = wall_ns();
    if ( variant == AFTER_SMP )
    {
        /* The boot CPU's part is end_boot_allocator()'s, the threads' init_deferred_heap(). */
        shared[3] = SIDE[side](xh_frame_table + first, frames - first, 0x100 | threads);
        t1 = wall_ns();
        shared[1] = xh_after_boot_ns - t0;
        shared[2] = t1 - xh_after_boot_ns;
        return t1 - t0;
    }
    /*
     * Share 0 on the calling thread, as the boot CPU takes its part of
     * on_selected_cpus(): a thread started for it may run on another CPU,
     * whose TLB and caches lack what the prelude left (on this project's
     * 2-vCPU machine memset() of 128 MiB took 1.5 to 2.0 ns a page there
     * against 0.9 to 1.4 on the caller).
     */
    for ( k = 0; k < threads; k++ )
    {
        sh[k] = (struct share){ .side = side, .variant = variant, .cpu = k + 1 };
        sh[k].from = k ? sh[k - 1].to : first;
        sh[k].to = k + 1 == threads ? frames : max(sh[k].from, min(frames, (gib * (k + 1) / threads) << 18));
        if ( k && pthread_create(&sh[k].t, NULL, hand_share, &sh[k]) )
            xh_fail(__FILE__, __LINE__, "pthread_create()");
    }
    hand_share(&sh[0]);
    for ( k = 0; k < threads; k++ )
    {
        if ( k )
            pthread_join(sh[k].t, NULL);
        longest = max(longest, sh[k].ns);
        total = max(total, (uint64_t)sh[k].total);
    }
    shared[1] = t1 - t0;
    shared[2] = longest;
    shared[3] = total;
    return wall_ns() - t0;
}

/* One window in a child: side `side` (-1: the floor) -> ns, or 0 on a failure. */
static uint64_t window(int side, unsigned int variant, unsigned long frames, unsigned int threads,
                       uint64_t *shared)
{
    pid_t pid = fork();
    int status;

    if ( pid == 0 )
    {
        size_t bytes = frames * sizeof(struct page_info);
        uint64_t t0, best = ~0ULL;
        int k;

        xh_nr_frames = frames;
        if ( threads )
        {
            /*
             * The hand-over after SMP bring-up follows paging_init(): every
             * M2P entry invalid, and its memory touched, as Xen's is by then.
             * The other ways never read the M2P, so their windows skip it.
             */
            if ( variant == AFTER_SMP )
                memset(xh_m2p, 0xff, frames * sizeof(*xh_m2p));
            prelude(bytes);
            shared[0] = in_parallel(side, variant, frames, threads, shared);
            if ( side >= 0 && shared[3] != frames - FIRST )
                xh_fail(__FILE__, __LINE__, "the heap does not hold every page handed over");
            _exit(0);
        }
        if ( side < 0 )
        {
            for ( k = 0; k < 2; k++ )
            {
                prelude(bytes);
                t0 = thread_ns();
                if ( k )
                    nt_fill(xh_frame_table + FIRST, bytes - FIRST * sizeof(struct page_info));
                else
                    memset(xh_frame_table + FIRST, 0x11, bytes - FIRST * sizeof(struct page_info));
                __asm__ __volatile__("" ::: "memory");
                t0 = thread_ns() - t0;
                shared[1 + k] = t0;     /* each way's own time: memset(), then non-temporal */
                best = t0 < best ? t0 : best;
            }
            shared[0] = best;
            _exit(0);
        }
        prelude(bytes);
        t0 = thread_ns();
        k = SIDE[side](xh_frame_table + FIRST, frames - FIRST, variant) == frames - FIRST;
        shared[0] = thread_ns() - t0;
        if ( !k )
            xh_fail(__FILE__, __LINE__, "the heap does not hold every page handed over");
#ifdef XH_COUNT
        for ( k = 0; k < XH_C_N; k++ )
            shared[1 + k] = xh_count[k];
#endif
        _exit(0);
    }
    if ( pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) )
        return 0;
    return shared[0];
}

int main(int argc, char **argv)
{
    unsigned long sizes[16], nsizes = 0, runs, maxframes = 0, i, nways = 0;
    int way_side[MAX_WAYS + 1];
    unsigned int way_variant[MAX_WAYS + 1];
    char *p, *end;
    uint64_t *shared;
    unsigned int threads = 0;

    if ( argc != 4 && argc != 5 )
    {
        fprintf(stderr, "usage: %s GIB[,GIB...] RUNS SIDE:VARIANT[,...] [THREADS]\n", argv[0]);
        return 2;
    }
    if ( argc == 5 )
    {
        threads = strtoul(argv[4], &end, 10);
        if ( *end || !threads || threads > 16 )
        {
            fprintf(stderr, "xenheap-time: THREADS from 1 to 16, not %s\n", argv[4]);
            return 2;
        }
    }
    for ( p = argv[1]; *p && nsizes < 16; p = *end ? end + 1 : end )
    {
        sizes[nsizes] = strtoul(p, &end, 10);
        if ( !sizes[nsizes] || sizes[nsizes] > 256 || (*end && *end != ',') )
        {
            fprintf(stderr, "xenheap-time: sizes are GiB from 1 to 256, comma-separated: %s\n", argv[1]);
            return 2;
        }
        maxframes = max(maxframes, sizes[nsizes] << 18);
        nsizes++;
    }
    runs = strtoul(argv[2], &end, 10);
    if ( *end || !runs || runs > 100 )
    {
        fprintf(stderr, "xenheap-time: RUNS from 1 to 100, not %s\n", argv[2]);
        return 2;
    }
    for ( p = argv[3]; *p && nways < MAX_WAYS; p = *end ? end + 1 : end )
    {
        way_side[nways] = strtol(p, &end, 10);
        way_variant[nways] = *end == ':' ? strtoul(end + 1, &end, 10) : 0;
        if ( way_side[nways] < 0 || way_side[nways] >= XH_NSIDES || way_variant[nways] > AFTER_SMP ||
             (way_variant[nways] == AFTER_SMP && !threads) || (*end && *end != ',') )
        {
            fprintf(stderr, "xenheap-time: ways are SIDE:VARIANT, sides 0 to %d: %s\n", XH_NSIDES - 1, argv[3]);
            return 2;
        }
        nways++;
    }
    way_side[nways] = -1, way_variant[nways++] = 0;     /* the floor */
    xh_frame_table = mmap(NULL, maxframes * sizeof(struct page_info), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    xh_ram = mmap(NULL, maxframes * PAGE_SIZE, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    xh_m2p = mmap(NULL, maxframes * sizeof(*xh_m2p), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if ( xh_frame_table == MAP_FAILED || xh_ram == MAP_FAILED || xh_m2p == MAP_FAILED || shared == MAP_FAILED )
    {
        perror("xenheap-time: mmap");
        return 2;
    }
    memnode_shift = 30, xh_memnodemapsize = 1, xh_memnodemap[0] = 0;
    node_online_map.bits[0] = 1;
    system_state = SYS_STATE_boot;
    for ( i = 0; i < nsizes; i++ )
    {
        unsigned long r, k, frames = sizes[i] << 18;

        for ( r = 0; r < runs; r++ )
            for ( k = 0; k < nways; k++ )
            {
                unsigned int w = (k + r) % nways;
                uint64_t ns;

#ifdef XH_COUNT
                if ( way_side[w] < 0 )
                    continue;
#endif
                ns = window(way_side[w], way_variant[w], frames, threads, shared);
                if ( !ns )
                {
                    fprintf(stderr, "xenheap-time: way %d:%u failed at %lu GiB\n", way_side[w], way_variant[w],
                            sizes[i]);
                    return 1;
                }
                printf("{\"type\":\"xen_window\",\"side\":%d,\"variant\":%u,\"gib\":%lu,\"run\":%lu,\"pages\":%lu,"
                       "\"ns\":%llu", way_side[w], way_variant[w], sizes[i], r, frames - FIRST,
                       (unsigned long long)ns);
                if ( threads )
                    printf(",\"threads\":%u,\"boot_cpu_ns\":%llu,\"longest_thread_ns\":%llu", threads,
                           (unsigned long long)shared[1], (unsigned long long)shared[2]);
                else if ( way_side[w] < 0 )
                    printf(",\"memset_ns\":%llu,\"nt_ns\":%llu", (unsigned long long)shared[1],
                           (unsigned long long)shared[2]);
#ifdef XH_COUNT
                printf(",\"locks\":%llu,\"node_lookups\":%llu,\"mfn_valid\":%llu,\"list_ops\":%llu,"
                       "\"m2p\":%llu", (unsigned long long)shared[1], (unsigned long long)shared[2],
                       (unsigned long long)shared[3], (unsigned long long)shared[4],
                       (unsigned long long)shared[5]);
#endif
                printf("}\n");
                fflush(stdout);
            }
    }
    return 0;
}
