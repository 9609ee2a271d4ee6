// SPDX-License-Identifier: MIT
// The prelude's last step in user space (bench/measure.h): every line of
// the tables written back and out of the caches, so that every timed window,
// a strategy's or a floor's, opens on them cold whatever ran before it; and
// the other ways the platform lends the benchmark (the C library's memset);
// and how long the host takes to reach a page of the tables.
#define _GNU_SOURCE         /* RTLD_NEXT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "bench/window.h"
#include "hosted/platform/runner.h"
#include "kernel/time/tsc.h"
#include "mm/frametable.h"
#include "mm/layout.h"
/* The audit bitmap, which the settling flushes with the tables. */
#include "mm/heap_priv.h"

static void flush(const void *p, size_t n)
{
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63), *end = (const char *)p + n;

    for (; c < end; c += 64)
        __asm__ volatile("clflushopt %0" : "+m"(*(volatile char *)c));
}

void bench_window_touched(void *p, size_t n)
{
    if (!RUNNING_ON_VALGRIND)
        flush(p, n);
}

/*
 * This thread's share of the last-level cache, twice over: the size the
 * CPU reports over the CPUs it says share it (sysfs), or 64 MiB when it
 * says nothing. A guest's CPU may report its host's whole socket (480 MiB
 * on this project's Xeon guest, shared by 2 vCPUs here and by every other
 * guest there).
 */
static size_t cache_share(void)
{
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    unsigned sharing = 0, a, b;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "r");

    /* "0-1,4": count the CPUs of each range. */
    while (f && fscanf(f, "%u", &a) == 1) {
        b = a;
        if (fscanf(f, "-%u", &b) != 1)
            b = a;
        sharing += b >= a ? b - a + 1 : 1;
        if (fgetc(f) != ',')
            break;
    }
    if (f)
        fclose(f);
    return llc > 0 ? 2 * (size_t)llc / (sharing ? sharing : 1) : (size_t)64 << 20;
}

/*
 * Tables that together fit in twice this thread's share of the last-level
 * cache could keep lines from any earlier window in it, a peer's array
 * written just before, say: every line of every table is flushed
 * (clflushopt writes a dirty line back and drops it from every level), and
 * the window opens on all of them cold. Larger tables are not: the reset
 * before this, which writes every byte of the window's own tables in
 * address order, is then itself larger than what the cache can hold, and
 * leaves it holding the end of those tables and nothing older, whatever
 * ran before. Flushing them too would cost up to a second a window at
 * 1 TiB and change nothing that differs between windows.
 */
static void settle(void)
{
    size_t total = ALIGN_UP(max_pfn, 64) / 8;

    if (RUNNING_ON_VALGRIND)
        return;
    for (unsigned i = 0; i < host_ntables; i++)
        total += host_tables[i].len;
    if (total > cache_share())
        return;
    for (unsigned i = 0; i < host_ntables; i++)
        flush((void *)host_tables[i].start, host_tables[i].len);
    flush(heap_audit_bitmap, ALIGN_UP(max_pfn, 64) / 8);
    __asm__ volatile("sfence" ::: "memory");
}

/* The settling, timed: the host record says how long the preludes spent on it. */
void bench_window_settle(void)
{
    uint64_t t0 = tsc_now();

    settle();
    host_mem.settles++;
    host_mem.settle_ns += tsc_to_ns(tsc_now() - t0);
}

heap_fill_fn *bench_libc_fill(void)
{
    static heap_fill_fn *libc;

    /* The runner's own memset is the kernel's (kernel/lib/string.c); the C library's is the next. */
    if (!libc && !RUNNING_ON_VALGRIND)
        libc = (heap_fill_fn *)dlsym(RTLD_NEXT, "memset");
    return libc;
}

bool bench_window_exact(void)
{
    return RUNNING_ON_VALGRIND;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * How long this host takes to reach a 2 MiB page of the frame table that
 * the last full pass over the tables left behind: right after heap_setup()
 * zeroed every entry in order, as the reset before every window does, one
 * byte of each 2 MiB page in turn written with what it holds (so the
 * tables stay as the reset left them), each write timed on its own. A
 * strategy that writes a few entries far apart (lazy's heads, a GiB apart)
 * pays this once a page; on a host that keeps its guests' pages close it
 * is a cache and TLB miss (a fraction of a microsecond), and on one that
 * does not it is far more, with no fault the guest can see.
 */

/* True when a map of the tables lies in the frame table's span. */
static bool in_frame_table(const struct host_range *r)
{
    return r->start >= FRAMETABLE_BASE && r->start < FRAMETABLE_BASE + max_pfn * sizeof(struct page_info);
}

void host_reach_probe(void)
{
    static uint64_t t[4096];
    uint64_t len = 0, n = 0, step;

    for (unsigned i = 0; i < host_ntables; i++)
        len += in_frame_table(&host_tables[i]) ? host_tables[i].len : 0;
    if (!len || RUNNING_ON_VALGRIND)
        return;
    /* At most 4096 pages, spread over the whole frame table. */
    step = ALIGN_UP(len / 4096 + 1, 2u << 20);
    for (unsigned i = 0; i < host_ntables; i++) {
        for (uint64_t off = 0; in_frame_table(&host_tables[i]) && off < host_tables[i].len && n < 4096;
             off += step, n++) {
            uint64_t a = tsc_now();
            /* A store of the byte it holds: a write, as an init's, that changes nothing. */
            volatile uint8_t *b = (volatile uint8_t *)(host_tables[i].start + off);
            *b = *b;
            t[n] = tsc_now() - a;
        }
    }
    qsort(t, n, sizeof(t[0]), cmp_u64);
    host_mem.reach_pages = n;
    host_mem.reach_p50_ns = tsc_to_ns(t[n / 2]);
    host_mem.reach_p90_ns = tsc_to_ns(t[n * 9 / 10]);
}
