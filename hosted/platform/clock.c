// SPDX-License-Identifier: MIT
// Time for the hosted runner: the TSC calibrated against CLOCK_MONOTONIC_RAW,
// cross-checked against CLOCK_MONOTONIC and the CPUID leaves; kernel/time/tsc.h.
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hosted/platform/runner.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/cpu.h"
#include "kernel/time/choose.h"
#include "kernel/time/leaves.h"
#include "kernel/time/tsc.h"
#include "kernel/time/tsc_math.h"

#define CAL_WINDOWS     5
#define CAL_WINDOW_MS   20

/* The checks: CLOCK_MONOTONIC, then the CPUID leaves as the kernel reads them. */
enum { CHECK_MONOTONIC, CHECK_HYPERVISOR, CHECK_CPUID15, CHECK_CPUID16, NCHECKS };

static const char *const check_names[NCHECKS] = { "monotonic", "hypervisor", "cpuid15", "cpuid16" };
static const enum tsc_src check_leaf[NCHECKS] = { TSC_SRC_NONE, TSC_SRC_HYPERVISOR, TSC_SRC_CPUID15,
                                                  TSC_SRC_CPUID16 };

/* Chosen as the kernel chooses it, from the CPU (kernel/time/leaves.c). */
enum tsc_fence tsc_fence = TSC_FENCE_MFENCE;

static struct {
    bool calibrated;
    uint64_t khz;
    struct tsc_scale scale;
    uint64_t tsc0, ns0;         /* a pair taken at the end of calibration */
    char warning[200];
} clk;

bool tsc_calibrated(void) { return clk.calibrated; }
uint64_t tsc_khz(void) { return clk.khz; }
uint64_t tsc_hz(void) { return clk.scale.hz; }
const char *tsc_source(void) { return clk.calibrated ? "monotonic_raw" : "none"; }
const char *tsc_warning(void) { return clk.warning[0] ? clk.warning : NULL; }

uint64_t tsc_to_ns(uint64_t ticks)
{
    return tsc_scale_ns(&clk.scale, ticks);
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t host_clock_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC_RAW);
}

/*
 * A clock read paired with the TSC: of eight tries, the one whose two TSC
 * reads lie closest together, and the TSC at their midpoint. Returns the
 * width of that bracket in ticks.
 */
static uint64_t pair(clockid_t id, uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;

    for (int i = 0; i < 8; i++) {
        uint64_t a = tsc_now(), t = clock_ns(id), b = tsc_now();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = t;
        }
    }
    return best;
}

static void record_check(struct record *r, unsigned c, const struct tsc_clock *k, int64_t ppm,
                         const char *status)
{
    record_obj_begin(r, NULL);
    record_str(r, "name", check_names[c]);
    if (k->hz) {
        record_u64(r, "khz", (k->hz + 500) / 1000);
        record_str(r, "kind", tsc_kind_name(k->kind));
        record_u64(r, "uncertainty_ppm", k->unc_ppm);
        record_i64(r, "ppm", ppm);
    } else {
        record_null(r, "khz");
        record_null(r, "kind");
        record_null(r, "uncertainty_ppm");
        record_null(r, "ppm");
    }
    record_str(r, "status", status);
    record_bool(r, "disturbed", k->disturbed);
    record_obj_end(r);
}

void host_time_init(void)
{
    uint64_t raw[CAL_WINDOWS], mono[CAL_WINDOWS], start = clock_ns(CLOCK_MONOTONIC_RAW);
    uint64_t bracket = 0, window = 0;
    struct tsc_clock leaf[TSC_SRC_COUNT], checks[NCHECKS];
    struct timespec nap = { 0, CAL_WINDOW_MS * 1000000L };
    struct tsc_leaves l;
    struct record r;

    tsc_leaves_read(&l);
    tsc_fence = tsc_leaves_fence(&l);
    memset(leaf, 0, sizeof(leaf));
    tsc_leaves_clocks(&l, leaf);
    for (unsigned i = 0; i < CAL_WINDOWS; i++) {
        uint64_t t0, r0, t1, r1, u0, m0, u1, m1, w;
        w = pair(CLOCK_MONOTONIC_RAW, &t0, &r0);
        pair(CLOCK_MONOTONIC, &u0, &m0);
        nanosleep(&nap, NULL);
        w += pair(CLOCK_MONOTONIC_RAW, &t1, &r1);
        pair(CLOCK_MONOTONIC, &u1, &m1);
        raw[i] = tsc_hz_measured(t1 - t0, r1 - r0, NS_PER_S, 1);
        mono[i] = tsc_hz_measured(u1 - u0, m1 - m0, NS_PER_S, 1);
        bracket = w > bracket ? w : bracket;
        window = t1 - t0;
    }
    uint64_t hz = tsc_median(raw, CAL_WINDOWS);
    uint32_t spread = tsc_spread_ppm(raw, CAL_WINDOWS, hz);
    /* The windows' spread, and the widest pair of brackets against a window. */
    uint32_t unc = spread + (uint32_t)(window ? tsc_muldiv(bracket, 1000000, window) : 0);
    clk.calibrated = hz >= TSC_HZ_MIN && hz <= TSC_HZ_MAX && tsc_scale_init(&clk.scale, hz);
    if (!clk.calibrated)
        memset(&clk.scale, 0, sizeof(clk.scale));
    clk.khz = clk.calibrated ? (hz + 500) / 1000 : 0;
    pair(CLOCK_MONOTONIC_RAW, &clk.tsc0, &clk.ns0);

    checks[CHECK_MONOTONIC] = (struct tsc_clock){ .state = TSC_CLK_OK, .kind = TSC_KIND_MEASURED,
                                                  .hz = tsc_median(mono, CAL_WINDOWS), .unc_ppm = unc };
    for (unsigned c = CHECK_HYPERVISOR; c < NCHECKS; c++)
        checks[c] = leaf[check_leaf[c]];
    if (!cpu.invariant_tsc)
        snprintf(clk.warning, sizeof(clk.warning), "the TSC is not invariant (CPUID 0x80000007 "
                 "EDX bit 8 clear): its rate may change with power states, so ns figures may be "
                 "skewed");
    else if (spread > TSC_AGREE_PPM)
        snprintf(clk.warning, sizeof(clk.warning), "the calibration windows spread over %u ppm: "
                 "this host's clock or scheduling is unsteady", spread);

    printk("time: TSC %llu kHz from CLOCK_MONOTONIC_RAW, %u windows of %u ms, spread %u ppm, "
           "within %u ppm; CLOCK_MONOTONIC %+lld ppm; TSC reads fenced by %s\n",
           (unsigned long long)clk.khz, CAL_WINDOWS, CAL_WINDOW_MS, spread, unc,
           (long long)tsc_ppm(checks[CHECK_MONOTONIC].hz, hz), tsc_fence_name(tsc_fence));
    record_begin(&r, "calibration");
    record_u64(&r, "khz", clk.khz);
    record_str(&r, "source", tsc_source());
    record_bool(&r, "calibrated", clk.calibrated);
    record_str(&r, "reason", clk.calibrated ? "the TSC against CLOCK_MONOTONIC_RAW (hosted)"
                                            : "the TSC rate against CLOCK_MONOTONIC_RAW is implausible");
    record_u64(&r, "windows", CAL_WINDOWS);
    record_u64(&r, "window_ms", CAL_WINDOW_MS);
    record_null(&r, "poll_ns");
    record_u64(&r, "accepted", CAL_WINDOWS);
    record_u64(&r, "spread_ppm", spread);
    record_bool(&r, "invariant_tsc", cpu.invariant_tsc);
    record_str(&r, "tsc_fence", tsc_fence_name(tsc_fence));
    record_u64(&r, "duration_us", (clock_ns(CLOCK_MONOTONIC_RAW) - start) / 1000);
    record_str(&r, "kind", tsc_kind_name(TSC_KIND_MEASURED));
    record_u64(&r, "uncertainty_ppm", unc);
    record_arr_begin(&r, "warnings");
    if (clk.warning[0])
        record_str(&r, NULL, clk.warning);
    record_arr_end(&r);
    record_arr_begin(&r, "checks");
    for (unsigned c = 0; c < NCHECKS; c++) {
        const struct tsc_clock *k = &checks[c];
        int64_t ppm = tsc_ppm(k->hz, hz);
        uint64_t tol = (uint64_t)tsc_agree_ppm(k->kind) + k->unc_ppm + unc;
        const char *status = !k->hz ? "absent" : (uint64_t)(ppm < 0 ? -ppm : ppm) <= tol ? "ok" : "bad";
        record_check(&r, c, k, ppm, status);
    }
    record_arr_end(&r);
    record_end(&r);
}

int64_t host_clock_recheck(void)
{
    uint64_t t, ns;

    if (!clk.calibrated)
        return 0;
    pair(CLOCK_MONOTONIC_RAW, &t, &ns);
    uint64_t hz = tsc_hz_measured(t - clk.tsc0, ns - clk.ns0, NS_PER_S, 1);
    printk("time: over the %llu ms since calibration the TSC ran at %llu kHz by "
           "CLOCK_MONOTONIC_RAW (%+lld ppm)\n", (unsigned long long)((ns - clk.ns0) / 1000000),
           (unsigned long long)((hz + 500) / 1000), (long long)tsc_ppm(hz, clk.scale.hz));
    return tsc_ppm(hz, clk.scale.hz);
}
