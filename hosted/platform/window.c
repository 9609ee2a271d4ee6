// SPDX-License-Identifier: MIT
// The edges of every timed window in user space: the thread's CPU time
// around it, and, under valgrind's callgrind, one dump of exact counts each.
#define _GNU_SOURCE         /* RUSAGE_THREAD */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <valgrind/callgrind.h>

#include "bench/stats.h"
#include "bench/window.h"
#include "hosted/platform/runner.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "mm/heap.h"

#define MAX_SERIES 40
#define MAX_RUNS 100

/*
 * The window open now. A repeated window (bench/measure.h) is one window
 * with pauses: ns and the rusage counts add up over its repetitions, the
 * stretches between them (each undone, untimed) left out.
 */
static struct {
    const char *strategy, *phase, *way;
    unsigned run, reps;
    bool timed, counting, paused;
    struct timespec cpu0;
    struct rusage use0;
    uint64_t ns, first_ns, faults, switches;
    uint64_t mhz, share;
    char label[96];
} win;

/* CPU time per strategy and phase, by run: for the closing table. */
static struct series {
    const char *strategy, *phase;
    unsigned runs;
    uint64_t ns[MAX_RUNS];
} series[MAX_SERIES];
static unsigned nseries;

static uint64_t ns_between(const struct timespec *a, const struct timespec *b)
{
    return (uint64_t)((b->tv_sec - a->tv_sec) * 1000000000ll + (b->tv_nsec - a->tv_nsec));
}

static struct series *find(const char *strategy, const char *phase, bool add)
{
    for (unsigned i = 0; i < nseries; i++)
        if (!strcmp(series[i].strategy, strategy) && !strcmp(series[i].phase, phase))
            return &series[i];
    if (!add || nseries == MAX_SERIES)
        return NULL;
    series[nseries] = (struct series){ .strategy = strategy, .phase = phase };
    return &series[nseries++];
}

/*
 * The simulated L1s as a counted window opens. Left alone they would hold
 * whatever ran since the last window, and that is not the same from run to
 * run: the records printed there carry times whose digits vary, so the
 * printing code takes other paths. Two runs of one binary on one map then
 * executed the same instructions in a window and differed by two L1
 * instruction misses. So the window opens on one fixed L1 state: the code
 * sled below executed, then the data sled read, each a contiguous SETTLE
 * bytes, which in an LRU cache of at most that size with 64-byte lines
 * leaves every set holding the sled's lines and nothing else. The last level
 * (harness/counts/callgrind.py: 32 MiB) keeps what the reset left.
 */
#define SETTLE (64 * 1024)      /* at least each simulated L1: harness/counts/callgrind.py CACHE */
#define STR_(x) #x
#define STR(x) STR_(x)

void settle_code(void);
__asm__(".pushsection .text\n"
        ".balign 64\n"
        ".type settle_code, @function\n"
        "settle_code:\n"
        ".fill " STR(SETTLE) ", 1, 0x90\n"     /* one-byte nops */
        "ret\n"
        ".size settle_code, . - settle_code\n"
        ".popsection\n");

static volatile uint8_t settle_data[SETTLE] __attribute__((aligned(64)));

static void settle_l1(void)
{
    settle_code();
    for (unsigned i = 0; i < SETTLE; i += 64)
        (void)settle_data[i];
}

/*
 * Under callgrind, zeroes the counters as the window opens and dumps them as
 * it closes, so a dump holds the window alone: the strategy's call, the two
 * TSC reads and this request, a constant few dozen instructions. Each window
 * starts on the L1s settled above and the last level the reset left. Outside
 * valgrind the requests are a few no-op instructions. Either way they lie
 * outside the TSC reads.
 */
void bench_window_open(const char *strategy, const char *phase, unsigned run, bool timed)
{
    win.strategy = strategy;
    win.phase = phase;
    win.way = NULL;
    win.run = run;
    win.timed = timed;
    win.counting = timed && RUNNING_ON_VALGRIND;
    win.ns = win.faults = win.switches = 0;
    win.reps = 0;
    /* The core's clock and issue just outside the window (hosted/platform/probe.c). */
    win.mhz = timed && !RUNNING_ON_VALGRIND ? host_probe_mhz() : 0;
    win.share = win.mhz ? host_probe_issue() : 0;
    if (win.counting)
        snprintf(win.label, sizeof(win.label), "bootheap %s %s %u", strategy, phase, run);
    win.paused = true;
    bench_window_resume();
}

/* Starts a repetition: the clocks read last, just outside the strategy's call. */
void bench_window_resume(void)
{
    if (!win.paused)
        return;
    win.paused = false;
    win.reps++;
    getrusage(RUSAGE_THREAD, &win.use0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &win.cpu0);
    if (win.counting) {
        settle_l1();
        CALLGRIND_ZERO_STATS;
    }
}

/*
 * Ends a repetition: the CPU time this thread spent in it (on a shared
 * machine the TSC window also holds the time other processes had the CPU;
 * this does not), the page faults it took and the times it gave up or lost
 * the CPU. (Under valgrind the time is meaningless and the counts are what
 * matter: the clock reads lie outside the counted stretch; a repeated
 * window dumps its first repetition alone.)
 */
void bench_window_pause(void)
{
    struct timespec cpu1;
    struct rusage use1;

    if (win.paused)
        return;
    if (win.counting && win.reps == 1)
        CALLGRIND_DUMP_STATS_AT(win.label);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
    getrusage(RUSAGE_THREAD, &use1);
    win.paused = true;
    win.ns += ns_between(&win.cpu0, &cpu1);
    if (win.reps == 1)
        win.first_ns = win.ns;
    win.faults += (uint64_t)(use1.ru_minflt - win.use0.ru_minflt + use1.ru_majflt - win.use0.ru_majflt);
    win.switches += (uint64_t)(use1.ru_nvcsw - win.use0.ru_nvcsw + use1.ru_nivcsw - win.use0.ru_nivcsw);
}

void bench_window_way(const char *way)
{
    win.way = way;
}

/*
 * The window's `cpu_time` record: ns per repetition (the mean of those
 * after the first when there are several: bench/measure.h says why; the
 * first is first_ns), and for a floor the way it filled; the closing table
 * keeps, per run, the fastest way of a floor.
 */
void bench_window_close(void)
{
    struct series *s;
    struct record r;

    bench_window_pause();
    if (!win.timed)
        return;
    uint64_t ns = win.reps > 1 ? (win.ns - win.first_ns) / (win.reps - 1) : win.ns;
    if ((s = find(win.strategy, win.phase, true)) && win.run < MAX_RUNS) {
        if (win.run >= s->runs || !s->ns[win.run] || ns < s->ns[win.run])
            s->ns[win.run] = ns;
        s->runs = win.run + 1 > s->runs ? win.run + 1 : s->runs;
    }
    record_begin(&r, "cpu_time");
    record_str(&r, "strategy", win.strategy);
    record_u64(&r, "run", win.run);
    record_str(&r, "phase", win.phase);
    if (win.way)
        record_str(&r, "way", win.way);
    record_u64(&r, "ns", ns);
    record_u64(&r, "reps", win.reps);
    record_u64(&r, "total_ns", win.ns);
    if (win.reps > 1)
        record_u64(&r, "first_ns", win.first_ns);
    /* What else the window held: page faults, and the times the thread gave up or lost the CPU. */
    record_u64(&r, "faults", win.faults);
    record_u64(&r, "switches", win.switches);
    /* The clock and the issue before and after the window: the mean of each pair. */
    if (win.mhz) {
        uint64_t after = host_probe_mhz(), share = host_probe_issue();
        uint64_t mhz = after ? (win.mhz + after) / 2 : win.mhz;

        record_u64(&r, "mhz", mhz);
        /* Independent adds a cycle, in hundredths: the core's issue the thread had. */
        if (win.share && share)
            record_u64(&r, "adds_per_cycle_x100", (win.share + share) / 2 * 100 / mhz);
    }
    record_end(&r);
}

static void fmt_ms(char *buf, size_t n, uint64_t ns)
{
    snprintf(buf, n, "%llu.%03llu", (unsigned long long)(ns / 1000000),
             (unsigned long long)(ns / 1000 % 1000));
}

void host_window_report(void)
{
    const struct series *floor = find("floor", "init", false);
    uint64_t pages = heap_handover_pages(), fmed = floor ? stat_median(floor->ns, floor->runs) : 0;
    char a[24], b[24];

    if (!nseries)
        return;
    printk("cpu time of this thread in each window (the ms above also hold the time other "
           "processes had the CPU):\n");
    printk("%-14s %-11s %12s %9s %8s %7s\n", "strategy", "phase", "ms", "ns/page", "x floor", "cv %");
    for (unsigned i = 0; i < nseries; i++) {
        const struct series *s = &series[i];
        uint64_t med = stat_median(s->ns, s->runs), ppm = stat_per_page_milli(med, pages);
        uint64_t cv = stat_cv_centipct(s->ns, s->runs), xf = stat_ratio_centi(med, fmed);
        fmt_ms(a, sizeof(a), med);
        snprintf(b, sizeof(b), "%llu.%02llux", (unsigned long long)(xf / 100), (unsigned long long)(xf % 100));
        printk("%-14s %-11s %12s %5llu.%03llu %8s %4llu.%02llu\n", s->strategy, s->phase, a,
               (unsigned long long)(ppm / 1000), (unsigned long long)(ppm % 1000),
               strcmp(s->phase, "init") ? "-" : b, (unsigned long long)(cv / 100),
               (unsigned long long)(cv % 100));
    }
}
