// SPDX-License-Identifier: MIT
// Host tests of the clock drivers and the whole calibration run against a
// simulated machine (tests/unit/sim_clock.c): the PIT's one-shot, the HPET
// and PM timer reads and wraps, dead and slow clocks, and the choice made.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kernel/time/calibrate.h"
#include "kernel/time/clkio.h"
#include "kernel/time/hpet.h"
#include "kernel/time/leaves.h"
#include "kernel/time/pit.h"
#include "kernel/time/pmtimer.h"
#include "kernel/time/tsc_math.h"
#include "tests/unit/sim_clock.h"

static struct time_result res;
static struct acpi_timers at;

/* q35 as the ACPI tables describe it: an HPET and a 24-bit PM timer. */
static void machine(void)
{
    sim_reset();
    memset(&at, 0, sizeof(at));
    at.hpet = ACPI_OK;
    at.hpet_base = SIM_HPET_BASE;
    at.pm = ACPI_OK;
    at.pm_port = SIM_PM_PORT;
}

static void measure(unsigned windows, unsigned ms)
{
    struct time_opts o = { .windows = windows, .ms = ms };

    time_measure(&res, &o, &at, sim_map, clkio_tsc());
}

/* |hz - the simulated TSC's rate| in ppm. */
static int64_t off_ppm(uint64_t hz)
{
    int64_t p = tsc_ppm(hz, sim.tsc_hz);

    return p < 0 ? -p : p;
}

static uint64_t elapsed_ms(uint64_t since_ps)
{
    return (sim.now_ps - since_ps) / SIM_PS_PER_MS;
}

/* ---- the PIT's one-shot -------------------------------------------------------- */

static void test_oneshot_clean(void **state)
{
    struct tsc_window w;
    struct tsc_pit_setup s;
    (void)state;

    machine();
    tsc_pit_plan(&s, 20, 5, false, 0, 0);
    uint32_t latch = s.latch;
    pit_oneshot(latch, sim_tsc_at(100 * SIM_PS_PER_MS), &w);
    assert_true(w.fired);
    assert_false(w.high_at_start);
    assert_int_equal(tsc_window_check(&w, &s), TSC_WIN_OK);
    /* 23864 input clocks at 2.096 GHz: 41921 ticks a ms, within a poll. */
    uint64_t want = (uint64_t)latch * sim.tsc_hz / PIT_HZ;
    assert_in_range(w.ticks, want, want + sim_tsc_at(2 * sim.pit.read_ps));
    /* One poll per read of port 0x61 and TSC read. */
    assert_in_range(w.passes, 20000 * SIM_PS_PER_US / (sim.pit.read_ps + sim.tsc_read_ps) - 2,
                    20000 * SIM_PS_PER_US / (sim.pit.read_ps + sim.tsc_read_ps) + 2);
    /* The gate is back off: the speaker and channel 2 as found. */
    assert_false(sim.pit.gate);
}

static void test_oneshot_dead(void **state)
{
    struct tsc_window w;
    struct tsc_pit_setup s;
    uint64_t t0;
    (void)state;

    machine();
    tsc_pit_plan(&s, 1, 5, false, 0, 0);
    uint32_t latch = s.latch;
    sim.pit.mode = SIM_PIT_STUCK_HIGH;
    pit_oneshot(latch, sim_tsc_at(4 * SIM_PS_PER_MS), &w);
    assert_int_equal(tsc_window_check(&w, &s), TSC_WIN_STUCK_HIGH);

    sim.pit.mode = SIM_PIT_NO_RISE;
    t0 = sim.now_ps;
    pit_oneshot(latch, sim_tsc_at(4 * SIM_PS_PER_MS), &w);
    assert_int_equal(tsc_window_check(&w, &s), TSC_WIN_NO_RISE);
    /* It gave up at its timeout, not later. */
    assert_int_equal(elapsed_ms(t0), 4);
}

/* ---- the whole run ------------------------------------------------------------- */

static void test_measure_q35(void **state)
{
    (void)state;

    machine();
    measure(5, 20);
    assert_int_equal(res.choice.source, TSC_SRC_PIT);
    assert_true(res.choice.calibrated);
    assert_int_equal(res.cal.n, 5);
    assert_int_equal(res.cal.res.accepted, 5);
    assert_true(off_ppm(res.clk[TSC_SRC_PIT].hz) <= 20);
    assert_int_equal(res.clk[TSC_SRC_HPET].state, TSC_CLK_OK);
    assert_true(off_ppm(res.clk[TSC_SRC_HPET].hz) <= 20);
    assert_int_equal(res.clk[TSC_SRC_PMTIMER].state, TSC_CLK_OK);
    assert_true(off_ppm(res.clk[TSC_SRC_PMTIMER].hz) <= 20);
    /* The HPET was stopped, started for the run and stopped again. */
    assert_int_equal(sim.hpet.cfg & 1, 0);
}

static void test_measure_dead_pit(void **state)
{
    (void)state;

    machine();
    sim.pit.mode = SIM_PIT_STUCK_HIGH;
    measure(5, 20);
    assert_int_equal(res.clk[TSC_SRC_PIT].state, TSC_CLK_BAD);
    assert_int_equal(res.choice.source, TSC_SRC_HPET);
    assert_true(off_ppm(res.choice.hz) <= 20);
    assert_true(off_ppm(res.clk[TSC_SRC_PMTIMER].hz) <= 20);
    assert_non_null(strstr(res.choice.reason, "pit dead (OUT2 high before the count ran out"));
}

static void test_measure_no_clock(void **state)
{
    (void)state;

    machine();
    sim.pit.mode = SIM_PIT_STUCK_HIGH;
    at.hpet = at.pm = ACPI_ABSENT;
    measure(5, 20);
    assert_false(res.choice.calibrated);
    assert_int_equal(res.choice.source, TSC_SRC_NONE);
}

/*
 * The audit's case: the probe fires, but every window has a stall at its
 * end, so the HPET is chosen. The PIT cannot check the rate then, for want
 * of clean windows: inconclusive, not a skip and not a pass.
 */
static void test_pit_check_inconclusive_when_disturbed(void **state)
{
    char buf[160];
    (void)state;

    machine();
    sim.pit.gap_ps = 2 * SIM_PS_PER_MS;
    sim.pit.gap_at_rise = 1;
    measure(5, 20);
    assert_true(res.cal.pit_fires);
    assert_false(res.cal.res.usable);
    assert_int_equal(res.cal.res.rejected[TSC_WIN_GAP], 10);
    assert_int_equal(res.choice.source, TSC_SRC_HPET);
    assert_int_equal(time_check_clock(&res, TSC_SRC_PIT, buf, sizeof(buf)), TIME_CHECK_INCONCLUSIVE);
    assert_string_equal(buf, "the pit is unusable: no window passed (0 with too few polls, "
                             "10 with an edge gap)");
    /* The PM timer still can; the HPET is the source: circular. */
    assert_int_equal(time_check_clock(&res, TSC_SRC_PMTIMER, buf, sizeof(buf)), TIME_CHECK_RUN);
    assert_int_equal(time_check_clock(&res, TSC_SRC_HPET, buf, sizeof(buf)), TIME_CHECK_SKIP);
    assert_string_equal(buf, "the hpet is the source: the check would be circular");
}

/* A dead PIT is a property of the machine: a skip that says so. */
static void test_pit_check_skipped_when_dead(void **state)
{
    char buf[160];
    (void)state;

    machine();
    sim.pit.mode = SIM_PIT_STUCK_HIGH;
    measure(5, 20);
    assert_int_equal(time_check_clock(&res, TSC_SRC_PIT, buf, sizeof(buf)), TIME_CHECK_SKIP);
    assert_string_equal(buf, "the pit is dead (OUT2 high before the count ran out, 3 tries)");
    at.hpet = ACPI_ABSENT;
    measure(5, 20);
    assert_int_equal(time_check_clock(&res, TSC_SRC_HPET, buf, sizeof(buf)), TIME_CHECK_SKIP);
    assert_string_equal(buf, "the hpet is absent");
}

/*
 * A clock measured cleanly that disagrees with the rate chosen beyond the
 * bound is a failure, with the figures: here an HPET 1908 ppm fast against
 * a PIT and a PM timer that agree (the bound: 1000 ppm and both
 * uncertainties).
 */
static void test_clock_that_disagrees_fails_the_check(void **state)
{
    char buf[160];
    (void)state;

    memset(&res, 0, sizeof(res));
    res.clk[TSC_SRC_PIT] = (struct tsc_clock){ TSC_CLK_OK, TSC_KIND_MEASURED, 2096000000u, 10, NULL, false };
    res.clk[TSC_SRC_HPET] = (struct tsc_clock){ TSC_CLK_OK, TSC_KIND_MEASURED, 2100000000u, 10, NULL, false };
    res.clk[TSC_SRC_PMTIMER] = (struct tsc_clock){ TSC_CLK_OK, TSC_KIND_MEASURED, 2096000100u, 30, NULL, false };
    tsc_choose(res.clk, &res.choice);
    assert_int_equal(res.choice.source, TSC_SRC_PIT);
    assert_int_equal(res.choice.status[TSC_SRC_HPET], TSC_CLK_BAD);
    assert_int_equal(time_check_clock(&res, TSC_SRC_HPET, buf, sizeof(buf)), TIME_CHECK_FAIL);
    assert_string_equal(buf, "the hpet disagreed with the chosen rate: +1908 ppm from the pit's, "
                             "beyond the bound of 1020 ppm");
    assert_int_equal(time_check_clock(&res, TSC_SRC_PMTIMER, buf, sizeof(buf)), TIME_CHECK_RUN);
}

/*
 * A dead PIT and an HPET whose counter never moves: the windows must not be
 * paced by the HPET (each would spin to its 2x-at-10-GHz limit, about 1 s
 * in all), but by the PM timer, within the calibration's 250 ms budget.
 */
static void test_dead_pit_frozen_hpet_paced_by_pm_timer(void **state)
{
    uint64_t t0;
    (void)state;

    machine();
    sim.pit.mode = SIM_PIT_STUCK_HIGH;
    sim.hpet.frozen = true;
    t0 = sim.now_ps;
    measure(5, 20);
    assert_true(elapsed_ms(t0) < 250);
    assert_int_equal(res.clk[TSC_SRC_HPET].state, TSC_CLK_BAD);
    assert_string_equal(res.clk[TSC_SRC_HPET].why, "counter does not advance");
    assert_int_equal(res.choice.source, TSC_SRC_PMTIMER);
    assert_true(off_ppm(res.choice.hz) <= 30);
    /* Five windows of the PM timer's own pacing. */
    assert_int_equal(res.cal.pm.n, 6);

    /* Neither counts: no windows at all, and no long wait either. */
    machine();
    sim.pit.mode = SIM_PIT_STUCK_HIGH;
    sim.hpet.frozen = sim.pm.frozen = true;
    t0 = sim.now_ps;
    measure(5, 20);
    assert_true(elapsed_ms(t0) < 250);
    assert_false(res.choice.calibrated);
    assert_string_equal(res.clk[TSC_SRC_HPET].why, "counter does not advance");
    assert_string_equal(res.clk[TSC_SRC_PMTIMER].why, "counter does not advance");
}

/*
 * Hardware-reduced ACPI (no PM timer), no HPET, a gated PIT: only the CPUID
 * leaves are left. A Skylake client's CPUID 0x15 gives the ratio but no
 * crystal (ECX = 0); its crystal is documented: 24 MHz.
 */
static void cpuid_only_machine(uint32_t model)
{
    machine();
    sim.pit.mode = SIM_PIT_NO_RISE;
    at.hpet = at.pm = ACPI_ABSENT;
    sim_set_vendor("GenuineIntel", 0x16);
    sim_set_cpuid(1, 0x00000603 | (model & 0xf) << 4 | (model >> 4) << 16, 0, 0, 0);
    sim_set_cpuid(0x15, 2, 176, 0, 0);              /* TSC = crystal * 176 / 2 */
    sim_set_cpuid(0x16, 2100, 4000, 100, 0);        /* base 2100 MHz: nominal */
}

static void test_cpuid15_crystal_derived_from_the_model(void **state)
{
    (void)state;

    cpuid_only_machine(0x5e);
    measure(5, 20);
    assert_int_equal(res.clk[TSC_SRC_CPUID15].state, TSC_CLK_OK);
    assert_int_equal(res.clk[TSC_SRC_CPUID15].hz, 2112000000);
    assert_int_equal(res.clk[TSC_SRC_CPUID15].kind, TSC_KIND_COMPUTED);
    assert_int_equal(res.choice.source, TSC_SRC_CPUID15);
    /* CPUID 0x16 agrees within its 1%, and is not what the rate rests on. */
    assert_int_equal(res.choice.status[TSC_SRC_CPUID16], TSC_CLK_OK);
    assert_int_equal(res.choice.kind, TSC_KIND_COMPUTED);
    char w[TIME_WARNINGS_MAX];
    time_warnings(&res.choice, true, w, sizeof(w));
    assert_string_equal(w, "");

    /* Goldmont's crystal is 19.2 MHz, Skylake-SP's 25 MHz. */
    cpuid_only_machine(0x5c);
    measure(5, 20);
    assert_int_equal(res.clk[TSC_SRC_CPUID15].hz, 1689600000);
    cpuid_only_machine(0x55);
    measure(5, 20);
    assert_int_equal(res.clk[TSC_SRC_CPUID15].hz, 2200000000);

    /* A model whose crystal is not documented: the ratio alone is no rate,
     * and the nominal CPUID 0x16 is all there is. */
    cpuid_only_machine(0x3c);
    measure(5, 20);
    assert_int_equal(res.clk[TSC_SRC_CPUID15].state, TSC_CLK_BAD);
    assert_string_equal(res.clk[TSC_SRC_CPUID15].why, "ratio without crystal frequency");
    assert_int_equal(res.choice.source, TSC_SRC_CPUID16);
    assert_int_equal(res.choice.kind, TSC_KIND_NOMINAL);
    /* A nominal rate is said so, plainly, on an invariant TSC too. */
    time_warnings(&res.choice, true, w, sizeof(w));
    assert_string_equal(w, "warning: the TSC rate is nominal (cpuid16), good to about 1%: every "
                           "ns figure may be off by as much");
    time_warnings(&res.choice, false, w, sizeof(w));
    assert_non_null(strstr(w, "good to about 1%"));
    assert_non_null(strstr(w, "\nwarning: the TSC is not invariant"));
    /* ... and only for GenuineIntel. */
    cpuid_only_machine(0x5e);
    sim_set_vendor("AuthenticAMD", 0x16);
    measure(5, 20);
    assert_int_equal(res.clk[TSC_SRC_CPUID15].state, TSC_CLK_BAD);
}

static void test_tsc_fence_by_vendor(void **state)
{
    struct tsc_leaves l;
    (void)state;

    machine();                                      /* GenuineIntel */
    tsc_leaves_read(&l);
    assert_int_equal(tsc_leaves_fence(&l), TSC_FENCE_LFENCE);
    sim_set_vendor("AuthenticAMD", 0xd);
    tsc_leaves_read(&l);
    assert_int_equal(tsc_leaves_fence(&l), TSC_FENCE_MFENCE);
    /* CPUID 0x80000021 EAX bit 2: LFENCE always serialises. */
    sim_set_cpuid(0x80000000, 0x80000021, 0, 0, 0);
    sim_set_cpuid(0x80000021, 1u << 2, 0, 0, 0);
    tsc_leaves_read(&l);
    assert_int_equal(tsc_leaves_fence(&l), TSC_FENCE_LFENCE);
    sim_set_cpuid(0x80000021, 1u << 0, 0, 0, 0);
    tsc_leaves_read(&l);
    assert_int_equal(tsc_leaves_fence(&l), TSC_FENCE_MFENCE);
    sim_set_vendor("HygonGenuine", 0xd);
    tsc_leaves_read(&l);
    assert_int_equal(tsc_leaves_fence(&l), TSC_FENCE_MFENCE);
    assert_string_equal(tsc_fence_name(TSC_FENCE_MFENCE), "mfence");
}

/*
 * A 64-bit HPET counter whose reads reach it as two 32-bit cycles, low half
 * first: when the low half wraps between them, a plain read is 2^32 off.
 */
static void test_hpet_64bit_read_in_halves(void **state)
{
    struct ref r;
    (void)state;

    machine();
    sim.hpet.split64 = true;
    memset(&r, 0, sizeof(r));
    hpet_open(&r, SIM_HPET_BASE, sim_map);
    assert_true(r.present);
    assert_int_equal(r.mask, UINT64_MAX);
    for (uint64_t before = 1; before < 40; before += 3) {
        /* The low half is `before` counts (10 ns each) short of wrapping. */
        sim.hpet.count_at = (5ull << 32) - before;
        sim.hpet.since_ps = sim.now_ps;
        uint64_t v = r.read(&r);
        assert_in_range(v, (5ull << 32) - before, (5ull << 32) + 200);
    }
    hpet_run(&r, false);

    /* A 32-bit counter reads its one register, and wraps at 2^32. */
    machine();
    sim.hpet.bits64 = false;
    memset(&r, 0, sizeof(r));
    hpet_open(&r, SIM_HPET_BASE, sim_map);
    assert_int_equal(r.mask, UINT32_MAX);
    sim.hpet.count_at = 0xfffffff0u;
    sim.hpet.since_ps = sim.now_ps;
    assert_in_range(r.read(&r), 0xfffffff0u, 0xffffffffu);
    sim.now_ps += 1000000;                          /* 100 counts later */
    assert_in_range(r.read(&r), 0x50, 0x70);
}

/*
 * A PM timer that the FADT declares 32 bits wide (TMR_VAL_EXT) but that
 * wraps at 24 bits, as it does 30 ms into the calibration here.
 */
static void test_pm_timer_width_checked(void **state)
{
    (void)state;

    machine();
    at.pm_32bit = true;
    sim.pm.bits = 24;
    sim.pm.start = (1u << 24) - 107000 - (uint64_t)((unsigned __int128)sim.now_ps * 3579545 /
                                                    1000000000000ull);
    measure(5, 20);
    assert_int_equal(res.cal.pm.mask, 0xffffffu);
    assert_string_equal(res.cal.pm.note, "declared 32 bits wide, but wraps at 24: read as 24");
    /* Every window counts, the one across the wrap too. */
    assert_int_equal(res.clk[TSC_SRC_PMTIMER].state, TSC_CLK_OK);
    assert_true(off_ppm(res.clk[TSC_SRC_PMTIMER].hz) <= 30);
    assert_true(res.clk[TSC_SRC_PMTIMER].unc_ppm < 100);

    /* Declared 24 bits and counting 32: noted, and read as 24, which wraps
     * consistently. */
    machine();
    sim.pm.bits = 32;
    sim.pm.start = 0x7f000000u;
    measure(5, 20);
    assert_int_equal(res.cal.pm.mask, 0xffffffu);
    assert_string_equal(res.cal.pm.note, "declared 24 bits wide, but counts in 32: read as 24");
    assert_true(off_ppm(res.clk[TSC_SRC_PMTIMER].hz) <= 30);

    /* As declared: no note. */
    machine();
    measure(5, 20);
    assert_null(res.cal.pm.note);
}

/*
 * A real 8254 loads the count on the first input clock after the write, and
 * that clock does not count: OUT2 rises N + p clocks after the write, p in
 * (0, 1]. With 2 ms windows half a clock is 210 ppm, far above the rest of
 * the error once port accesses are quick.
 */
static void test_real_8254_counts_half_a_clock_more(void **state)
{
    (void)state;

    machine();
    sim_set_cpuid(1, 0x000506e3, 0, 0, 0);          /* no hypervisor: bare metal */
    sim.pit.loads_next_clock = true;
    sim.pit.read_ps = sim.pit.write_ps = 20000;
    sim.pit.write_jitter_ps = 838096;               /* one input clock */
    measure(16, 2);
    assert_true(res.clk[TSC_SRC_PIT].state == TSC_CLK_OK);
    assert_true(off_ppm(res.clk[TSC_SRC_PIT].hz) < 105);
    /* The stated uncertainty covers the error. */
    assert_true(off_ppm(res.clk[TSC_SRC_PIT].hz) <= res.clk[TSC_SRC_PIT].unc_ppm);

    /* Under a hypervisor the PIT is QEMU's, KVM's or Xen's, loaded at the write. */
    machine();
    sim_set_hypervisor("KVMKVMKVM\0\0\0", 0x40000001);
    sim.pit.read_ps = sim.pit.write_ps = 20000;
    sim.pit.write_jitter_ps = 838096;
    measure(16, 2);
    assert_true(off_ppm(res.clk[TSC_SRC_PIT].hz) < 105);
    assert_true(off_ppm(res.clk[TSC_SRC_PIT].hz) <= res.clk[TSC_SRC_PIT].unc_ppm);
}

/*
 * What QEMU's TCG cannot boot: the hypervisor timing leaf as the only
 * figure. KVM's is computed; an unknown hypervisor's is nominal, and warns.
 */
static void test_hypervisor_leaf_chosen(void **state)
{
    char w[TIME_WARNINGS_MAX];
    (void)state;

    machine();
    sim.pit.mode = SIM_PIT_NO_RISE;
    at.hpet = at.pm = ACPI_ABSENT;
    sim_set_hypervisor("KVMKVMKVM\0\0\0", 0x40000010);
    sim_set_cpuid(0x40000010, 2096000, 1000000, 0, 0);
    measure(5, 20);
    assert_int_equal(res.choice.source, TSC_SRC_HYPERVISOR);
    assert_int_equal(res.choice.hz, 2096000000);
    assert_int_equal(res.choice.kind, TSC_KIND_COMPUTED);
    assert_int_equal(res.choice.unc_ppm, 1);
    time_warnings(&res.choice, true, w, sizeof(w));
    assert_string_equal(w, "");

    sim_set_hypervisor("Unknown HV\0\0", 0x40000010);
    measure(5, 20);
    assert_int_equal(res.choice.source, TSC_SRC_HYPERVISOR);
    assert_int_equal(res.choice.kind, TSC_KIND_NOMINAL);
    time_warnings(&res.choice, true, w, sizeof(w));
    assert_non_null(strstr(w, "nominal (hypervisor)"));

    /* With the PIT alive, even KVM's figure only checks it. */
    machine();
    sim_set_hypervisor("KVMKVMKVM\0\0\0", 0x40000010);
    sim_set_cpuid(0x40000010, 2200000, 1000000, 0, 0);
    measure(5, 20);
    assert_int_equal(res.choice.source, TSC_SRC_PIT);
    assert_int_equal(res.choice.status[TSC_SRC_HYPERVISOR], TSC_CLK_BAD);
}

/* Counters that wrap in the middle of the calibration lose no window. */
static void test_counters_wrap_within_windows(void **state)
{
    (void)state;

    /* A 32-bit HPET 30 ms (3 million counts) short of wrapping. */
    machine();
    sim.hpet.bits64 = false;
    sim.hpet.count_at = 0xffffffffu - 3000000u;
    measure(5, 20);
    assert_int_equal(res.cal.hpet.mask, UINT32_MAX);
    assert_true(res.cal.hpet.cnt[res.cal.hpet.n - 1] < res.cal.hpet.cnt[0]);     /* it wrapped */
    assert_int_equal(res.clk[TSC_SRC_HPET].state, TSC_CLK_OK);
    assert_true(off_ppm(res.clk[TSC_SRC_HPET].hz) <= 20);
    assert_true(res.clk[TSC_SRC_HPET].unc_ppm < 50);

    /* A 24-bit PM timer, declared so, wrapping in the second window. */
    machine();
    sim.pm.start = (1u << 24) - 100000 - (uint64_t)((unsigned __int128)sim.now_ps * 3579545 /
                                                    1000000000000ull);
    measure(5, 20);
    assert_true(res.cal.pm.cnt[res.cal.pm.n - 1] < res.cal.pm.cnt[0]);
    assert_int_equal(res.clk[TSC_SRC_PMTIMER].state, TSC_CLK_OK);
    assert_true(off_ppm(res.clk[TSC_SRC_PMTIMER].hz) <= 30);
    assert_true(res.clk[TSC_SRC_PMTIMER].unc_ppm < 100);
    assert_null(res.cal.pm.note);
}

/*
 * A PIT behind port reads that each cost 1, 10 or 50 us (a vCPU exit on a
 * slow hypervisor): still a PIT. Its windows must pass, its rate lie within
 * the uncertainty it states and agree with the HPET; stalls inside a window
 * cost nothing, and a window with a stall at its end is still thrown away.
 */
static void slow_pit(uint64_t read_us)
{
    machine();
    sim.pit.read_ps = sim.pit.write_ps = read_us * SIM_PS_PER_US;
}

static void test_slow_pit_is_still_a_pit(void **state)
{
    static const uint64_t costs_us[] = { 1, 10, 50 };
    (void)state;

    for (unsigned i = 0; i < 3; i++) {
        uint64_t us = costs_us[i];

        /* Regular reads, nothing in the way. */
        slow_pit(us);
        measure(5, 20);
        if (!res.cal.res.usable)
            fail_msg("%llu us reads: the PIT is %s", (unsigned long long)us, res.cal.res.why);
        assert_int_equal(res.cal.res.accepted, 5);
        assert_int_equal(res.choice.source, TSC_SRC_PIT);
        assert_int_equal(res.choice.status[TSC_SRC_HPET], TSC_CLK_OK);
        assert_true(off_ppm(res.clk[TSC_SRC_PIT].hz) <= res.clk[TSC_SRC_PIT].unc_ppm);

        /* A 100 us stall every 2 ms or so: the vCPU away 5% of the time,
         * inside the windows, where it costs nothing. */
        slow_pit(us);
        sim.pit.gap_ps = 100 * SIM_PS_PER_US;
        sim.pit.gap_every = us < 40 ? (unsigned)(2000 / us) : 50;
        measure(5, 20);
        if (!res.cal.res.usable)
            fail_msg("%llu us reads with stalls inside: %s", (unsigned long long)us,
                     res.cal.res.why);
        assert_true(off_ppm(res.clk[TSC_SRC_PIT].hz) <= res.clk[TSC_SRC_PIT].unc_ppm);

        /* A 5 ms stall just as OUT2 rises, in every second count: those
         * windows are rejected, the others carry the rate. */
        slow_pit(us);
        sim.pit.gap_ps = 5 * SIM_PS_PER_MS;
        sim.pit.gap_at_rise = 2;
        measure(5, 20);
        assert_true(res.cal.res.rejected[TSC_WIN_GAP] >= 2);
        assert_int_equal(res.cal.res.rejected[TSC_WIN_FEW_PASSES], 0);
        if (!res.cal.res.usable)
            fail_msg("%llu us reads with edge stalls: %s", (unsigned long long)us, res.cal.res.why);
        assert_true(off_ppm(res.clk[TSC_SRC_PIT].hz) <= res.clk[TSC_SRC_PIT].unc_ppm);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oneshot_clean),
        cmocka_unit_test(test_oneshot_dead),
        cmocka_unit_test(test_measure_q35),
        cmocka_unit_test(test_measure_dead_pit),
        cmocka_unit_test(test_measure_no_clock),
        cmocka_unit_test(test_pit_check_inconclusive_when_disturbed),
        cmocka_unit_test(test_pit_check_skipped_when_dead),
        cmocka_unit_test(test_clock_that_disagrees_fails_the_check),
        cmocka_unit_test(test_dead_pit_frozen_hpet_paced_by_pm_timer),
        cmocka_unit_test(test_cpuid15_crystal_derived_from_the_model),
        cmocka_unit_test(test_tsc_fence_by_vendor),
        cmocka_unit_test(test_hpet_64bit_read_in_halves),
        cmocka_unit_test(test_pm_timer_width_checked),
        cmocka_unit_test(test_real_8254_counts_half_a_clock_more),
        cmocka_unit_test(test_hypervisor_leaf_chosen),
        cmocka_unit_test(test_counters_wrap_within_windows),
        cmocka_unit_test(test_slow_pit_is_still_a_pit),
    };
    return cmocka_run_group_tests_name("clocks", tests, NULL, NULL);
}
