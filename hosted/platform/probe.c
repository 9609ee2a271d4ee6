// SPDX-License-Identifier: MIT
// The probes of the core beside the timed windows: its clock and the share
// of its issue the thread had, each checked once at start against the TSC
// and against a second chain before any of its figures is recorded.
#include <stdio.h>
#include <time.h>

#include "hosted/platform/runner.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/time/tsc.h"

/*
 * The clock: a chain of dependent 32-bit multiplies (imul r32, r32). Its
 * latency is 3 cycles on Intel's cores from Nehalem to Golden Cove and
 * its successors, on the Atoms from Silvermont on, and on AMD's K10,
 * Jaguar and every Zen (the published latency tables: Agner Fog's
 * instruction tables, uops.info), and no renamer folds a multiply. The
 * chain of `add $1, reg` it replaces reads one add a cycle only where the
 * renamer executes every add: Golden Cove-class cores fold dependent
 * add-immediates at rename and ran it at 7.3 adds a cycle (18,834 "MHz" on
 * a core of 3.45 GHz here); a chain that alternates them with rotates ran
 * at 0.67 a cycle, as each folded add costs its consumer a cycle.
 *
 * The check: a chain of dependent rotates (rol r64, imm8: 1 cycle on the
 * same cores), measured at start only. Another unit and another latency:
 * a core whose multiply is slower (4 cycles on Bulldozer's family) or that
 * folds either chain makes the two disagree.
 *
 * The issue: eight independent chains of `add reg, reg`, a register the
 * renamer cannot know the value of. A core alone retires several a cycle;
 * a thread that shares its core (an SMT sibling on the machine's host)
 * retires fewer, while its clock stays.
 */
#define PROBE_OPS (1u << 16)    /* instructions a chain: about 60 us of multiplies at 3.5 GHz */
#define IMUL_CYCLES 3

/* A probe reading outside [LOW, HIGH] hundredths of the TSC's rate is no clock (issue 28). */
#define CLOCK_LOW_X100 30
#define CLOCK_HIGH_X100 160
/* The multiply and the rotate chains agree within this, or neither is believed. */
#define CHECK_TOL_PCT 10
/* Independent adds a cycle: at least the one a dependent chain gives; no x86 core issues eight. */
#define ISSUE_LOW_X100 90
#define ISSUE_HIGH_X100 800

unsigned host_probe_fold = 1;

/* What the probes read at start, and whether they are believed. */
struct host_probe {
    uint64_t mhz;               /* the multiply chain's clock */
    uint64_t check_mhz;         /* the rotate chain's */
    uint64_t tsc_mhz;           /* the calibrated TSC's rate; 0 when uncalibrated */
    uint64_t x_tsc_x100;        /* mhz over tsc_mhz, in hundredths */
    uint64_t issue_x100;        /* independent adds a cycle, in hundredths */
    bool clock_ok, issue_ok;
    const char *why;            /* why the clock is not believed, or NULL */
};

static struct host_probe probe;

#define X8(s) s s s s s s s s

static void multiplies(void)
{
    uint32_t x = 1, k = 3;
    uint64_t n = PROBE_OPS / 8;

    __asm__ volatile("1:\n\t" X8("imul %2, %0\n\t") "dec %1\n\tjnz 1b"
                     : "+r"(x), "+r"(n) : "r"(k) : "cc");
}

static void rotates(void)
{
    uint64_t x = 1, n = PROBE_OPS / 8;

    __asm__ volatile("1:\n\t" X8("rol $7, %0\n\t") "dec %1\n\tjnz 1b" : "+r"(x), "+r"(n) : : "cc");
}

static void independent_adds(void)
{
    uint64_t x0 = 0, x1 = 0, x2 = 0, x3 = 0, x4 = 0, x5 = 0, x6 = 0, x7 = 0, n = PROBE_OPS / 8, k = 1;

    __asm__ volatile("1:\n\t"
                     "add %9, %0\n\tadd %9, %1\n\tadd %9, %2\n\tadd %9, %3\n\t"
                     "add %9, %4\n\tadd %9, %5\n\tadd %9, %6\n\tadd %9, %7\n\t"
                     "dec %8\n\tjnz 1b"
                     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), "+r"(x5), "+r"(x6),
                       "+r"(x7), "+r"(n) : "r"(k) : "cc");
}

static uint64_t thread_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * Instructions a microsecond of the thread's CPU time, the best of tries:
 * an interrupt or a preemption inside a try only lowers its figure.
 */
static uint64_t per_us(void (*chain)(void), unsigned tries)
{
    uint64_t best = 0;

    for (unsigned k = 0; k < tries; k++) {
        uint64_t a = thread_ns();
        chain();
        uint64_t ns = thread_ns() - a;
        if (ns && (uint64_t)PROBE_OPS * 1000 / ns > best)
            best = (uint64_t)PROBE_OPS * 1000 / ns;
    }
    return best;
}

/* The multiply chain's clock in MHz; a fake fold (tests) reads as a renamer that folded it would. */
static uint64_t clock_mhz(unsigned tries)
{
    return per_us(multiplies, tries) * IMUL_CYCLES * host_probe_fold;
}

uint64_t host_probe_mhz(void)
{
    return probe.clock_ok ? clock_mhz(3) : 0;
}

uint64_t host_probe_issue(void)
{
    return probe.issue_ok ? per_us(independent_adds, 3) : 0;
}

/* Why a clock reading is no clock, or NULL: the TSC's bounds, then the second chain. */
static const char *clock_doubt(const struct host_probe *p)
{
    static char why[160];

    if (!p->tsc_mhz)
        return "the TSC is not calibrated, so there is nothing to check the probe against";
    if (p->x_tsc_x100 > CLOCK_HIGH_X100 || p->x_tsc_x100 < CLOCK_LOW_X100) {
        snprintf(why, sizeof(why), "it reads %llu.%02llux the TSC's rate, outside 0.%02u-%u.%02ux",
                 (unsigned long long)(p->x_tsc_x100 / 100), (unsigned long long)(p->x_tsc_x100 % 100),
                 CLOCK_LOW_X100, CLOCK_HIGH_X100 / 100, CLOCK_HIGH_X100 % 100);
        return why;
    }
    if (p->check_mhz * 100 > p->mhz * (100 + CHECK_TOL_PCT) ||
        p->check_mhz * 100 < p->mhz * (100 - CHECK_TOL_PCT)) {
        snprintf(why, sizeof(why), "the rotate chain reads %llu MHz, more than %u%% from it",
                 (unsigned long long)p->check_mhz, CHECK_TOL_PCT);
        return why;
    }
    return NULL;
}

void host_probe_init(void)
{
    struct host_probe *p = &probe;
    struct record r;

    /* Seven tries each: a few milliseconds, once. */
    p->mhz = clock_mhz(7);
    p->check_mhz = per_us(rotates, 7);
    p->tsc_mhz = tsc_calibrated() ? tsc_khz() / 1000 : 0;
    p->x_tsc_x100 = p->tsc_mhz ? p->mhz * 100 / p->tsc_mhz : 0;
    p->why = clock_doubt(p);
    p->clock_ok = !p->why;
    p->issue_x100 = p->mhz ? per_us(independent_adds, 7) * 100 / p->mhz : 0;
    p->issue_ok = p->clock_ok && p->issue_x100 >= ISSUE_LOW_X100 && p->issue_x100 <= ISSUE_HIGH_X100;

    record_begin(&r, "clock_probe");
    record_str(&r, "chain", "imul r32, r32: 3 cycles each");
    record_u64(&r, "mhz", p->mhz);
    record_str(&r, "check_chain", "rol r64, imm8: 1 cycle each");
    record_u64(&r, "check_mhz", p->check_mhz);
    record_u64(&r, "tsc_mhz", p->tsc_mhz);
    record_fixed(&r, "x_tsc", (int64_t)p->x_tsc_x100, 2);
    record_fixed(&r, "low_x_tsc", CLOCK_LOW_X100, 2);
    record_fixed(&r, "high_x_tsc", CLOCK_HIGH_X100, 2);
    record_u64(&r, "check_tolerance_pct", CHECK_TOL_PCT);
    record_bool(&r, "reliable", p->clock_ok);
    record_str(&r, "why", p->why ? p->why : "");
    record_fixed(&r, "adds_per_cycle", (int64_t)p->issue_x100, 2);
    record_bool(&r, "issue_reliable", p->issue_ok);
    if (host_probe_fold != 1)
        record_u64(&r, "fake_fold", host_probe_fold);
    record_end(&r);
    if (p->clock_ok)
        printk("probe: the core runs at %llu MHz (%llu.%02llux the TSC; the rotate chain reads %llu), "
               "%llu.%02llu independent adds a cycle\n", (unsigned long long)p->mhz,
               (unsigned long long)(p->x_tsc_x100 / 100), (unsigned long long)(p->x_tsc_x100 % 100),
               (unsigned long long)p->check_mhz, (unsigned long long)(p->issue_x100 / 100),
               (unsigned long long)(p->issue_x100 % 100));
    else
        printk("probe: UNRELIABLE: the core-clock probe read %llu MHz, but %s; the windows carry no "
               "clock and no issue figure\n", (unsigned long long)p->mhz, p->why);
}
