/* SPDX-License-Identifier: MIT */
/*
 * Xen's own init_heap_pages() timed on this CPU: each heap-init= variant
 * of a patched page_alloc.c (cut from the tree at build time, XH_EXTRACT)
 * hands one range of frames over as at boot, boot scrubbing pending, in
 * windows of the thread's CPU time. Each window runs in a child of its
 * own and opens on the hosted runner's prelude: the frame table reset in
 * address order, then flushed from the caches where it fits in twice the
 * last-level cache. The variants and the floor (the page_info bytes
 * written by memset() and by non-temporal stores, the faster kept) take
 * turns from run to run. Built with -DXH_COUNT it counts the stand-ins'
 * calls instead of timing.
 *
 *   xenheap-time GIB[,GIB...] RUNS     one JSON line a window
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xen_stand.h"
#include XH_EXTRACT

struct page_info *xh_frame_table;
unsigned long xh_nr_frames;
struct domain xh_domains[4];
u32 xh_tlbflush_clock;
unsigned int memnode_shift = 30;
nodeid_t xh_memnodemap[1];
unsigned long xh_memnodemapsize = 1;
bool machine_to_phys_mapping_valid;
unsigned long *xh_m2p;
int system_state = SYS_STATE_boot;
#ifdef XH_COUNT
unsigned long xh_count[XH_C_N];
#endif
static char *ram;

#define FIRST 0x100UL                    /* the range starts at 1 MiB */

void printk(const char *fmt, ...) { (void)fmt; }

_Noreturn void xh_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "xenheap-time: %s:%d: %s\n", file, line, what);
    _exit(3);
}

void *mfn_to_virt(unsigned long mfn) { return ram + mfn * PAGE_SIZE; }
void *alloc_xenheap_pages(unsigned int order, unsigned int memflags)
{ (void)memflags; return calloc(1, PAGE_SIZE << order); }
void *xh_xmalloc(size_t bytes) { return calloc(1, bytes); }
unsigned int page_to_llc_color(const struct page_info *pg)
{
    (void)pg;
    xh_fail(__FILE__, __LINE__, "page_to_llc_color(): a coloured page, with LLC colouring off (x86)");
}
void xh_list_check(const struct page_info *pg, const struct page_list_head *h) { (void)pg, (void)h; }

static const char *const NAME[] = { "page", "chunk-72b02bc", "chunk", "sweep", "floor" };
static const enum heap_init VALUE[] = { HEAP_INIT_PAGE, HEAP_INIT_CHUNK_72B02BC, HEAP_INIT_CHUNK, HEAP_INIT_SWEEP };
#define NWAYS 5

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

/* One window in a child: -> ns, or 0 on a failure. */
static uint64_t window(unsigned int way, unsigned long frames, uint64_t *shared)
{
    pid_t pid = fork();
    int status;

    if ( pid == 0 )
    {
        size_t bytes = frames * sizeof(struct page_info);
        uint64_t t0, best = ~0ULL;
        int k;

        xh_nr_frames = frames;
        if ( way == 4 )
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
        opt_heap_init = VALUE[way];
        opt_bootscrub = BOOTSCRUB_IDLE;
        prelude(bytes);
        t0 = thread_ns();
        init_heap_pages(mfn_to_page(_mfn(FIRST)), frames - FIRST);
        shared[0] = thread_ns() - t0;
        if ( (unsigned long)total_avail_pages != frames - FIRST )
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
    unsigned long sizes[16], nsizes = 0, runs, maxframes = 0, i;
    char *p, *end;
    uint64_t *shared;

    if ( argc != 3 )
    {
        fprintf(stderr, "usage: %s GIB[,GIB...] RUNS\n", argv[0]);
        return 2;
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
    xh_frame_table = mmap(NULL, maxframes * sizeof(struct page_info), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ram = mmap(NULL, maxframes * PAGE_SIZE, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if ( xh_frame_table == MAP_FAILED || ram == MAP_FAILED || shared == MAP_FAILED )
    {
        perror("xenheap-time: mmap");
        return 2;
    }
    for ( i = 0; i < nsizes; i++ )
    {
        unsigned long r, k, frames = sizes[i] << 18;

        for ( r = 0; r < runs; r++ )
            for ( k = 0; k < NWAYS; k++ )
            {
                unsigned int way = (k + r) % NWAYS;
                uint64_t ns;

#ifdef XH_COUNT
                if ( way == 4 )
                    continue;
#endif
                ns = window(way, frames, shared);
                if ( !ns )
                {
                    fprintf(stderr, "xenheap-time: heap-init=%s failed at %lu GiB\n", NAME[way], sizes[i]);
                    return 1;
                }
                printf("{\"type\":\"xen_window\",\"way\":\"%s\",\"gib\":%lu,\"run\":%lu,\"pages\":%lu,"
                       "\"ns\":%llu", NAME[way], sizes[i], r, frames - FIRST, (unsigned long long)ns);
                if ( way == 4 )
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
