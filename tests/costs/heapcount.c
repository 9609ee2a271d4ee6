// SPDX-License-Identifier: MIT
// The heap and its strategies in user space, on a q35-like map, under each
// Xen cost model: times end_boot_allocator() on this CPU, or, under
// valgrind's callgrind, counts exactly its instructions and misses.
//
//   heapcount [--mem 8G] [--runs 5] [--strategies page,chunk]
//             [--costs 'all;none;-lfence'] [--callgrind]
//
// Prints one JSON line per (costs, strategy, run): pages, the floor's bytes,
// ns (CLOCK_MONOTONIC_RAW) and cpu_ns (the thread's CPU time, which leaves
// out the time other processes ran on a shared machine). With --callgrind each measured call is also its own dump, named
// "costs|strategy|run" (its ns are then valgrind's, not the CPU's).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <valgrind/callgrind.h>

#include "kernel/cmdline.h"
#include "mm/heap_priv.h"

#define MAX_COSTS 32

struct page_info *frame_table;
uint64_t *m2p;

void panic(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "heapcount: panic: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static __attribute__((noreturn)) void die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "heapcount: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* "8G", "256M": bytes, or 0 when malformed. */
static uint64_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);

    if (end == s || v == 0)
        return 0;
    if (!strcmp(end, "G"))
        return v << 30;
    if (!strcmp(end, "M"))
        return v << 20;
    return 0;
}

static void *map_zeroed(uint64_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (p == MAP_FAILED)
        die("cannot map %llu bytes: %s", (unsigned long long)bytes, strerror(errno));
    madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

/*
 * QEMU q35's layout: RAM from 2.75 GiB up is split into 2 GiB below 4 GiB
 * and the rest above. Like the kernel's boot allocator, the first MiB, the
 * kernel around 1 MiB and the top of low RAM stay out.
 */
static void q35_map(uint64_t ram)
{
    uint64_t low = ram >= (11ull << 28) ? 2ull << 30 : ram, high = ram - low;
    uint64_t top = high ? (4ull << 18) + (high >> 12) : low >> 12;

    max_pfn = top;
    frame_table = map_zeroed(max_pfn * sizeof(struct page_info));
    m2p = map_zeroed(max_pfn * sizeof(uint64_t));
    bootmem_reset(&bootmem);
    if (bootmem_add(&bootmem, 0x100, 0x200) || bootmem_add(&bootmem, 0x270, (low >> 12) - 0x200) ||
        (high && bootmem_add(&bootmem, 4ull << 18, top)))
        die("cannot build the map for %llu bytes", (unsigned long long)ram);
    for (unsigned i = 0; i < bootmem.nr; i++)
        frametable_mark_valid(bootmem.r[i].s, bootmem.r[i].e);
}

static unsigned parse_costs(const char *s)
{
    unsigned v = XC_ALL;
    char line[160], err[200];
    const struct cmdline_opt opt = {
        .key = "xen_costs", .type = OPT_SET, .dst = &v, .choices = xen_cost_names,
    };

    snprintf(line, sizeof(line), "xen_costs=%s", s);
    if (cmdline_parse(line, &opt, 1, err, sizeof(err), NULL))
        die("%s", err);
    return v;
}

static uint64_t now_ns(clockid_t clock)
{
    struct timespec t;

    clock_gettime(clock, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* One measured init (strategy s, or the floor when NULL) under costs. */
static void measure(const struct heap_strategy *s, unsigned costs, unsigned run, bool callgrind,
                    bool print)
{
    char desc[96], label[160];
    struct heap_audit a;

    xen_costs = costs;
    xc_describe(costs, desc, sizeof(desc));
    snprintf(label, sizeof(label), "%s|%s|%u", desc, s ? s->name : "floor", run);
    heap_reset();
    if (callgrind) {
        CALLGRIND_ZERO_STATS;
        CALLGRIND_TOGGLE_COLLECT;
    }
    uint64_t t0 = now_ns(CLOCK_MONOTONIC_RAW), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (s)
        end_boot_allocator(s);
    else
        heap_floor_write();
    uint64_t c1 = now_ns(CLOCK_THREAD_CPUTIME_ID), t1 = now_ns(CLOCK_MONOTONIC_RAW);
    if (callgrind) {
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT(label);
    }
    if (s && !heap_audit(&a))
        die("%s: audit failed: %s", label, a.errors[0]);
    if (print)
        printf("{\"costs\":\"%s\",\"strategy\":\"%s\",\"run\":%u,\"pages\":%llu,\"bytes\":%llu,"
               "\"ns\":%llu,\"cpu_ns\":%llu}\n",
               desc, s ? s->name : "floor", run, (unsigned long long)heap_handover_pages(),
               (unsigned long long)heap_floor_bytes(), (unsigned long long)(t1 - t0),
               (unsigned long long)(c1 - c0));
}

int main(int argc, char **argv)
{
    uint64_t ram = 8ull << 30;
    unsigned runs = 5, ncosts = 0, costs[MAX_COSTS];
    const char *strategies = "page,chunk", *costlist = "all";
    bool callgrind = false;

    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--callgrind")) {
            callgrind = true;
            continue;
        }
        if (!v)
            die("%s needs a value (see the comment at the top of tests/costs/heapcount.c)", argv[i]);
        if (!strcmp(argv[i], "--mem") && !(ram = parse_size(v)))
            die("--mem %s: expected a size such as 256M or 8G", v);
        else if (!strcmp(argv[i], "--runs") && (runs = (unsigned)atoi(v)) == 0)
            die("--runs %s: expected a whole number from 1", v);
        else if (!strcmp(argv[i], "--strategies"))
            strategies = v;
        else if (!strcmp(argv[i], "--costs"))
            costlist = v;
        else if (strcmp(argv[i], "--mem") && strcmp(argv[i], "--runs"))
            die("unknown option %s", argv[i]);
        i++;
    }
    for (const char *p = costlist; *p && ncosts < MAX_COSTS;) {
        char item[96];
        size_t n = strcspn(p, ";");
        snprintf(item, sizeof(item), "%.*s", (int)n, p);
        costs[ncosts++] = parse_costs(item);
        p += n + (p[n] == ';');
    }

    const struct heap_strategy *list[8];
    unsigned nstrat = 0;
    for (const char *p = strategies; *p && nstrat < 8;) {
        size_t n = strcspn(p, ",");
        list[nstrat] = n == 5 && !strncmp(p, "floor", 5) ? NULL : heap_strategy_find(p, n);
        if (!list[nstrat] && strncmp(p, "floor", 5))
            die("--strategies: unknown strategy '%.*s'", (int)n, p);
        nstrat++;
        p += n + (p[n] == ',');
    }

    q35_map(ram);
    heap_setup(calloc(max_pfn / 64 + 1, sizeof(uint64_t)));
    /* Warm-up, unmeasured: faults in the tables and the code. */
    measure(list[0], costs[0], 0, false, false);
    fflush(stdout);
    for (unsigned run = 0; run < runs; run++)
        for (unsigned c = 0; c < ncosts; c++)
            for (unsigned s = 0; s < nstrat; s++)
                measure(list[s], costs[c], run, callgrind, true);
    return 0;
}
