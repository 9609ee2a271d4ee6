// SPDX-License-Identifier: MIT
// TSC calibration at boot: the PIT windows, the reference clocks read around
// them, the choice of rate, the report and the `calibration` record.
#include "kernel/time.h"

#include "kernel/acpi.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/printk.h"
#include "kernel/record.h"
#include "kernel/selftest.h"
#include "kernel/string.h"
#include "kernel/tsc_math.h"
#include "mm/paging.h"

/*
 * 5 clean windows of 20 ms: about 105 ms in all when none is thrown away,
 * and the retries stop at CAL_BUDGET_MS, inside the 250 ms budget.
 */
static unsigned opt_pit_windows = 5;
static unsigned opt_pit_ms = 20;
static bool opt_time_verbose;

CMDLINE_OPT(pit_windows, .key = "pit_windows", .type = OPT_UINT, .dst = &opt_pit_windows,
            .min = 1, .max = TSC_WINDOWS_MAX,
            .help = "clean PIT calibration windows wanted (1-16; default 5; up to twice "
                    "as many are run)");
CMDLINE_OPT(pit_ms, .key = "pit_ms", .type = OPT_UINT, .dst = &opt_pit_ms, .min = 1, .max = 54,
            .help = "length of one PIT window in ms (1-54, the 16-bit count's limit; default 20)");
CMDLINE_OPT(time_verbose, .key = "time_verbose", .type = OPT_FLAG, .dst = &opt_time_verbose,
            .help = "print every PIT calibration window");

/*
 * Before the PIT has spoken the TSC rate is unknown, so timeouts assume the
 * fastest plausible TSC: waiting N ms "at 10 GHz" is N ms or longer on any
 * real one (19 ms at 2.1 GHz for the 1 ms probe's 4 ms timeout). The probe
 * is tried three times before the PIT is called dead, because an emulated
 * PIT can stand still for several ms when the host deschedules QEMU.
 */
#define TSC_HZ_CEIL         10000000000ull
#define PIT_PROBE_US        1000u
#define PIT_PROBE_TIMEOUT_US 4000u
#define PIT_PROBE_TRIES     3u
/* Windows beyond pit_windows (retries) are not started past this point. */
#define CAL_BUDGET_MS       230u
#define REF_SAMPLE_TRIES    4u

#define HPET_MMIO_LEN       0x400u
#define HPET_REG_CAP        0x000u
#define HPET_REG_CFG        0x010u
#define HPET_REG_COUNTER    0x0f0u
#define HPET_CAP_COUNT_64   (1ull << 13)
#define HPET_CFG_ENABLE     1ull
#define HPET_PERIOD_MAX_FS  100000000ull    /* the spec's upper bound: 100 ns */

static struct {
    bool calibrated;
    bool pit_fires;         /* the PIT counted down in the probe: the self-test may use it */
    bool pit_disagrees;     /* its figure is off the chosen rate: a lying PIT */
    enum tsc_src source;
    uint64_t khz;
    struct tsc_scale scale;
    char pit_why[80];
    char warning[200];
} tsc;

bool time_calibrated(void) { return tsc.calibrated; }
uint64_t tsc_khz(void) { return tsc.khz; }
const char *time_source(void) { return tsc_src_name(tsc.calibrated ? tsc.source : TSC_SRC_NONE); }
bool tsc_invariant(void) { return cpu.invariant_tsc; }
const char *tsc_warning(void) { return tsc.warning[0] ? tsc.warning : NULL; }

uint64_t tsc_to_ns(uint64_t ticks)
{
    /* A zero scale gives 0 for 0 ticks and TSC_NS_UNKNOWN otherwise. */
    return tsc_scale_ns(&tsc.scale, ticks);
}

/* ---- reference counters: HPET and ACPI PM timer ----------------------------- */

#define REF_SAMPLES_MAX (TSC_RUNS_MAX + 1)

/*
 * A counter read in step with the TSC at every window boundary, so that it
 * is measured over the very intervals the PIT is, and a window spoiled by a
 * clock that stood still falls out of the consensus like a bad PIT window.
 */
struct ref {
    enum tsc_src src;
    bool present;
    const char *why;                /* when not usable */
    uint64_t mask;                  /* counter width */
    uint64_t num, den;              /* counter rate: num / den Hz */
    uint16_t port;                  /* PM timer */
    volatile uint8_t *regs;         /* HPET, mapped for this call of time_init() only */
    bool hpet_was_off;
    uint64_t hpet_cfg;
    unsigned n;                     /* samples taken */
    uint64_t tsc[REF_SAMPLES_MAX], cnt[REF_SAMPLES_MAX];
};

static uint64_t ref_read(const struct ref *r)
{
    if (r->src == TSC_SRC_PMTIMER)
        return inl(r->port) & r->mask;
    if (r->mask == UINT32_MAX)
        return *(volatile uint32_t *)(r->regs + HPET_REG_COUNTER);
    return *(volatile uint64_t *)(r->regs + HPET_REG_COUNTER);
}

/*
 * One (TSC, counter) pair: the counter read between two TSC reads, the
 * tightest bracket of a few tries kept, so that an SMI or a preempted vCPU
 * inside one try does not skew the pair (Linux's tsc_read_refs() keeps only
 * reads with a small bracket for the same reason).
 */
static void ref_sample(struct ref *r)
{
    uint64_t best = UINT64_MAX;

    if (!r->present || r->n >= REF_SAMPLES_MAX)
        return;
    for (unsigned i = 0; i < REF_SAMPLE_TRIES; i++) {
        uint64_t a = tsc_now();
        uint64_t c = ref_read(r);
        uint64_t b = tsc_now();

        if (b - a < best) {
            best = b - a;
            r->tsc[r->n] = a + (b - a) / 2;
            r->cnt[r->n] = c;
        }
    }
    r->n++;
}

/* Maps the HPET and starts its main counter if firmware left it stopped. */
static void hpet_setup(struct ref *r, uint64_t base)
{
    uint64_t cap, period;

    r->regs = phys_map(base, HPET_MMIO_LEN, true);
    if (!r->regs) {
        r->why = "registers cannot be mapped";
        return;
    }
    cap = *(volatile uint64_t *)(r->regs + HPET_REG_CAP);
    period = cap >> 32;
    if (cap == UINT64_MAX || period == 0 || period > HPET_PERIOD_MAX_FS) {
        r->why = "period out of spec (no HPET at the address?)";
        return;
    }
    r->mask = (cap & HPET_CAP_COUNT_64) ? UINT64_MAX : UINT32_MAX;
    r->num = FS_PER_S;
    r->den = period;
    r->hpet_cfg = *(volatile uint64_t *)(r->regs + HPET_REG_CFG);
    if (!(r->hpet_cfg & HPET_CFG_ENABLE)) {
        /* Only the main counter: no comparator has its interrupt enabled. */
        *(volatile uint64_t *)(r->regs + HPET_REG_CFG) = r->hpet_cfg | HPET_CFG_ENABLE;
        r->hpet_was_off = true;
    }
    r->present = true;
}

/* Puts the HPET back as firmware left it; the pointer dies with this call. */
static void hpet_finish(struct ref *r)
{
    if (r->present && r->hpet_was_off)
        *(volatile uint64_t *)(r->regs + HPET_REG_CFG) = r->hpet_cfg;
    r->regs = NULL;
}

static void pmtmr_setup(struct ref *r, uint16_t port, bool bits32)
{
    r->port = port;
    r->mask = bits32 ? UINT32_MAX : 0xffffffu;
    r->num = PMTMR_HZ;
    r->den = 1;
    r->present = true;
}

/*
 * With the PIT dead, a reference times the windows itself: spin until it has
 * counted ms since its last sample. A counter that stops cannot hang us: the
 * TSC bounds the wait too.
 */
static void ref_wait(const struct ref *r, unsigned ms)
{
    uint64_t want = tsc_muldiv(r->num, ms, r->den * 1000u);
    uint64_t limit = tsc_muldiv(TSC_HZ_CEIL, 2ull * ms, 1000u);
    uint64_t t0 = tsc_now();
    uint64_t c0 = r->n ? r->cnt[r->n - 1] : ref_read(r);

    while (((ref_read(r) - c0) & r->mask) < want && tsc_now() - t0 < limit)
        cpu_relax();
}

/* The consensus of the counter's windows, as a clock for tsc_choose(). */
static void ref_result(struct ref *r, struct tsc_clock *c)
{
    uint64_t hz[REF_SAMPLES_MAX];
    struct tsc_consensus k;
    unsigned n = 0, windows = r->n ? r->n - 1 : 0;

    c->why = r->why;
    if (!r->present) {
        c->state = r->why ? TSC_CLK_BAD : TSC_CLK_ABSENT;
        return;
    }
    for (unsigned i = 1; i < r->n; i++) {
        uint64_t d = (r->cnt[i] - r->cnt[i - 1]) & r->mask;
        if (d)
            hz[n++] = tsc_hz_measured(r->tsc[i] - r->tsc[i - 1], d, r->num, r->den);
    }
    tsc_consensus(hz, n, TSC_BAND_PPM, &k);
    c->hz = k.hz;
    if (n == 0) {
        c->why = windows ? "counter does not advance" : "no window to measure over";
        c->state = TSC_CLK_BAD;
    } else if (k.kept * 2 <= windows) {
        c->why = "its windows disagree";
        c->state = TSC_CLK_BAD;
    } else {
        c->state = TSC_CLK_OK;
    }
}

/* ---- CPUID figures ----------------------------------------------------------- */

static void cpuid_clocks(struct tsc_clock *clk)
{
    if (cpu.max_leaf >= 0x15) {
        /* TSC = crystal * EBX / EAX; a zero ECX means the crystal is not enumerated. */
        struct cpuid_regs r = cpuid(0x15, 0);
        if (r.eax && r.ebx && r.ecx) {
            clk[TSC_SRC_CPUID15].state = TSC_CLK_OK;
            clk[TSC_SRC_CPUID15].hz = tsc_muldiv(r.ecx, r.ebx, r.eax);
        } else if (r.eax && r.ebx) {
            clk[TSC_SRC_CPUID15].why = "ratio without crystal frequency";
        }
    }
    if (cpu.max_leaf >= 0x16) {
        uint32_t mhz = cpuid(0x16, 0).eax & 0xffff;
        if (mhz) {
            clk[TSC_SRC_CPUID16].state = TSC_CLK_OK;
            clk[TSC_SRC_CPUID16].hz = (uint64_t)mhz * 1000000u;
        }
    }
    /* The timing leaf that VMware defined and KVM/QEMU fill: EAX = TSC kHz. */
    if (cpu.hypervisor && cpu.hv_max_leaf >= 0x40000010) {
        uint32_t khz = cpuid(0x40000010, 0).eax;
        if (khz) {
            clk[TSC_SRC_HYPERVISOR].state = TSC_CLK_OK;
            clk[TSC_SRC_HYPERVISOR].hz = (uint64_t)khz * 1000u;
        }
    }
}

/* ---- ACPI ---------------------------------------------------------------------- */

static const void *acpi_phys(uint64_t paddr, uint64_t len, void *ctx)
{
    (void)ctx;
    return phys_map(paddr, len, false);
}

/* ---- the windows ----------------------------------------------------------------- */

struct cal {
    struct tsc_window w[TSC_RUNS_MAX];
    unsigned n;                     /* PIT windows run */
    uint32_t latch;
    struct tsc_pit_result res;
    struct ref hpet, pm;
};

static void refs_sample(struct cal *c)
{
    ref_sample(&c->hpet);
    ref_sample(&c->pm);
}

/*
 * A 1 ms probe first: it finds a dead PIT within three 4 ms timeouts "at
 * 10 GHz", and its rough rate bounds the real windows' timeouts. Then
 * windows until pit_windows of them pass the rule, or twice that many ran,
 * or the retries would take the calibration past CAL_BUDGET_MS; the
 * references are read at every window boundary.
 */
static void calibrate(struct cal *c, uint64_t t0)
{
    struct tsc_window probe;
    uint32_t probe_latch = pit_latch_for_us(PIT_PROBE_US);
    uint64_t probe_timeout = tsc_muldiv(TSC_HZ_CEIL, PIT_PROBE_TIMEOUT_US, 1000000u);
    uint64_t rough_hz, timeout, budget;
    enum tsc_win_verdict v = TSC_WIN_OK;
    unsigned passed = 0;

    c->latch = pit_latch_for_us(opt_pit_ms * 1000u);
    for (unsigned i = 0; i < PIT_PROBE_TRIES; i++) {
        pit_oneshot(probe_latch, probe_timeout, &probe);
        v = tsc_window_check(&probe, probe_latch);
        if (v != TSC_WIN_STUCK_HIGH && v != TSC_WIN_NO_RISE)
            break;
    }
    refs_sample(c);
    if (v == TSC_WIN_NO_RISE || v == TSC_WIN_STUCK_HIGH) {
        struct ref *timer = c->hpet.present ? &c->hpet : c->pm.present ? &c->pm : NULL;

        tsc_pit_summarise(c->w, 0, c->latch, opt_pit_windows, &c->res);
        c->res.dead = v;
        snprintf(c->res.why, sizeof(c->res.why), "dead (%s%s, %u tries)",
                 tsc_win_verdict_name(v), v == TSC_WIN_NO_RISE ? " within 4 ms" : "",
                 PIT_PROBE_TRIES);
        for (unsigned i = 0; timer && i < opt_pit_windows; i++) {
            ref_wait(timer, opt_pit_ms);
            refs_sample(c);
        }
        return;
    }
    tsc.pit_fires = true;
    /* Four windows' worth at the probe's rate; a probe stretched by a stall
     * only makes the timeout longer. */
    rough_hz = tsc_hz_measured(probe.ticks, probe_latch, PIT_HZ, 1);
    if (!rough_hz)
        rough_hz = TSC_HZ_CEIL;
    timeout = tsc_muldiv(rough_hz, 4ull * c->latch, PIT_HZ);
    budget = tsc_muldiv(rough_hz, CAL_BUDGET_MS, 1000u);
    for (c->n = 0; c->n < 2 * opt_pit_windows && passed < opt_pit_windows; c->n++) {
        if (c->n >= opt_pit_windows &&
            tsc_now() - t0 + tsc_muldiv(rough_hz, opt_pit_ms, 1000u) > budget)
            break;
        pit_oneshot(c->latch, timeout, &c->w[c->n]);
        refs_sample(c);
        v = tsc_window_check(&c->w[c->n], c->latch);
        passed += v == TSC_WIN_OK;
        if (v == TSC_WIN_NO_RISE) {
            c->n++;
            break;
        }
    }
    tsc_pit_summarise(c->w, c->n, c->latch, opt_pit_windows, &c->res);
}

/* ---- the report ------------------------------------------------------------------ */

static const char *const status_names[] = {
    [TSC_CLK_ABSENT] = "absent", [TSC_CLK_OK] = "ok", [TSC_CLK_BAD] = "bad",
};

static uint64_t hz_to_khz(uint64_t hz) { return (hz + 500) / 1000; }

/* time_verbose: every window, for a reader who doubts the summary. */
static void print_windows(const struct cal *c)
{
    for (unsigned i = 0; i < c->n; i++) {
        const struct tsc_window *w = &c->w[i];

        printk("time:   window %u: %llu ticks, %u polls, edges %llu/%llu ticks, "
               "longest gap %llu ticks: %s\n", i, (unsigned long long)w->ticks, w->passes,
               (unsigned long long)w->start_gap, (unsigned long long)w->last_gap,
               (unsigned long long)w->max_gap,
               tsc_win_verdict_name(tsc_window_check(w, c->latch)));
    }
}

static void print_report(const struct cal *c, const struct tsc_clock *clk,
                         const struct tsc_choice *ch, uint64_t duration_ns)
{
    const struct tsc_pit_result *p = &c->res;
    struct record r;
    char line[360];
    size_t len = 0;

    if (c->n && p->hz)
        printk("time: PIT: %u of %u windows of %u ms kept (%u too few polls, %u edge gaps, "
               "%u outliers), TSC %llu kHz, spread %u ppm\n", p->accepted, c->n, opt_pit_ms,
               p->rejected[TSC_WIN_FEW_PASSES], p->rejected[TSC_WIN_GAP], p->outliers,
               (unsigned long long)hz_to_khz(p->hz), p->spread_ppm);
    else if (c->n)
        printk("time: PIT: none of %u windows of %u ms kept (%u too few polls, %u edge gaps)\n",
               c->n, opt_pit_ms, p->rejected[TSC_WIN_FEW_PASSES], p->rejected[TSC_WIN_GAP]);
    else
        printk("time: PIT: %s\n", p->why);
    if (opt_time_verbose)
        print_windows(c);
    for (int i = TSC_SRC_PIT + 1; i < TSC_SRC_COUNT; i++) {
        const char *name = tsc_src_name(i);
        int k;

        if (clk[i].hz && ch->has_ppm[i])
            k = snprintf(line + len, sizeof(line) - len, "%s %s %llu kHz (%+lld ppm)",
                         len ? "," : "", name, (unsigned long long)hz_to_khz(clk[i].hz),
                         (long long)ch->ppm[i]);
        else if (clk[i].hz)
            k = snprintf(line + len, sizeof(line) - len, "%s %s %llu kHz", len ? "," : "",
                         name, (unsigned long long)hz_to_khz(clk[i].hz));
        else
            k = snprintf(line + len, sizeof(line) - len, "%s %s %s", len ? "," : "", name,
                         status_names[ch->status[i]]);
        if (k > 0)
            len = MIN(len + (size_t)k, sizeof(line) - 1);
        if (clk[i].state == TSC_CLK_BAD && clk[i].why) {
            k = snprintf(line + len, sizeof(line) - len, " [%s]", clk[i].why);
            if (k > 0)
                len = MIN(len + (size_t)k, sizeof(line) - 1);
        }
    }
    printk("time: cross-checks vs PIT:%s\n", line);
    if (ch->calibrated)
        printk("time: TSC %llu kHz from %s: %s; calibration took %llu ms\n",
               (unsigned long long)tsc.khz, tsc_src_name(ch->source), ch->reason,
               (unsigned long long)(duration_ns / 1000000u));
    else
        printk("time: error: no usable clock to calibrate the TSC (%s); every result "
               "is labelled uncalibrated and given in TSC ticks\n", ch->reason);
    if (tsc.warning[0])
        printk("time: %s\n", tsc.warning);
    if (cpu.accel == ACCEL_TCG)
        printk("time: note: under TCG every clock is emulated; these are not hardware timings\n");

    record_begin(&r, "calibration");
    record_u64(&r, "khz", tsc.khz);
    record_str(&r, "source", tsc_src_name(ch->source));
    record_bool(&r, "calibrated", ch->calibrated);
    record_str(&r, "reason", ch->reason);
    record_u64(&r, "windows", c->n);
    record_u64(&r, "window_ms", opt_pit_ms);
    record_u64(&r, "accepted", p->accepted);
    record_u64(&r, "spread_ppm", p->spread_ppm);
    record_bool(&r, "invariant_tsc", cpu.invariant_tsc);
    if (ch->calibrated)
        record_u64(&r, "duration_us", duration_ns / 1000u);
    else
        record_null(&r, "duration_us");
    record_arr_begin(&r, "checks");
    for (int i = 0; i < TSC_SRC_COUNT; i++) {
        record_obj_begin(&r, NULL);
        record_str(&r, "name", tsc_src_name(i));
        if (clk[i].hz)
            record_u64(&r, "khz", hz_to_khz(clk[i].hz));
        else
            record_null(&r, "khz");
        if (ch->has_ppm[i])
            record_i64(&r, "ppm", ch->ppm[i]);
        else
            record_null(&r, "ppm");
        record_str(&r, "status", status_names[ch->status[i]]);
        record_obj_end(&r);
    }
    record_arr_end(&r);
    record_end(&r);
}

/* ---- calibration ----------------------------------------------------------------- */

static void set_warning(void)
{
    const char *inv = "the TSC is not invariant (CPUID 0x80000007 EDX bit 8 clear): its rate "
                      "may change with power states, so ns figures may be skewed";

    if (!tsc.calibrated && !cpu.invariant_tsc)
        snprintf(tsc.warning, sizeof(tsc.warning), "warning: the TSC is uncalibrated, and %s",
                 inv);
    else if (!tsc.calibrated)
        snprintf(tsc.warning, sizeof(tsc.warning),
                 "warning: the TSC is uncalibrated: results are raw ticks");
    else if (!cpu.invariant_tsc)
        snprintf(tsc.warning, sizeof(tsc.warning), "warning: %s", inv);
    else
        tsc.warning[0] = '\0';
}

void time_init(void)
{
    static struct cal cal;                  /* static: too big for a boot stack frame */
    struct tsc_clock clk[TSC_SRC_COUNT];
    struct acpi_timers at;
    struct tsc_choice ch;
    uint64_t t0 = tsc_now(), t1;

    memset(clk, 0, sizeof(clk));
    memset(&tsc, 0, sizeof(tsc));
    memset(&cal, 0, sizeof(cal));
    cal.hpet.src = TSC_SRC_HPET;
    cal.pm.src = TSC_SRC_PMTIMER;
    cpuid_clocks(clk);

    acpi_find_timers(bootinfo.rsdp, bootinfo.rsdp_len, acpi_phys, NULL, &at);
    for (unsigned i = 0; i < at.nnotes; i++)
        printk("time: %s\n", at.notes[i]);
    if (at.hpet == ACPI_OK)
        hpet_setup(&cal.hpet, at.hpet_base);
    else if (at.hpet == ACPI_BAD)
        cal.hpet.why = "bad ACPI HPET table";
    if (at.pm == ACPI_OK)
        pmtmr_setup(&cal.pm, at.pm_port, at.pm_32bit);
    else if (at.pm == ACPI_BAD)
        cal.pm.why = "bad ACPI FADT";

    calibrate(&cal, t0);
    hpet_finish(&cal.hpet);
    ref_result(&cal.hpet, &clk[TSC_SRC_HPET]);
    ref_result(&cal.pm, &clk[TSC_SRC_PMTIMER]);

    clk[TSC_SRC_PIT].hz = cal.res.hz;
    clk[TSC_SRC_PIT].state = cal.res.usable ? TSC_CLK_OK : TSC_CLK_BAD;
    strlcpy(tsc.pit_why, cal.res.why, sizeof(tsc.pit_why));
    clk[TSC_SRC_PIT].why = tsc.pit_why;

    tsc_choose(clk, &ch);
    tsc.calibrated = ch.calibrated;
    tsc.source = ch.source;
    if (ch.calibrated) {
        int64_t off = cal.res.hz ? tsc_ppm(cal.res.hz, ch.hz) : 0;
        tsc.pit_disagrees = off > (int64_t)TSC_AGREE_PPM || off < -(int64_t)TSC_AGREE_PPM;
        tsc_scale_init(&tsc.scale, ch.hz);
        tsc.khz = hz_to_khz(ch.hz);
    }
    set_warning();
    t1 = tsc_now();
    print_report(&cal, clk, &ch, tsc_to_ns(t1 - t0));
}

/* ---- self-tests -------------------------------------------------------------------- */

/*
 * A PIT-timed 10 ms, measured again with the TSC, must come out as 10 ms in
 * ns within 2000 ppm: twice the agreement tolerance, since the chosen rate
 * may itself sit up to TSC_AGREE_PPM from the PIT's, plus one window's edge
 * noise. Intervals that fail the window rule (a stall at an edge, common
 * under TCG on a busy host) are not evidence either way, so up to 12 are
 * tried for 3 clean ones, and their median is judged.
 */
#define SELFTEST_PIT_US     10000u
#define SELFTEST_TOL_PPM    (2 * TSC_AGREE_PPM)
#define SELFTEST_WANT       3u
#define SELFTEST_TRIES      12u

SELFTEST(tsc_pit_interval)
{
    uint32_t latch = pit_latch_for_us(SELFTEST_PIT_US);
    uint64_t expect_ns = tsc_muldiv(latch, NS_PER_S, PIT_HZ);
    uint64_t ns[SELFTEST_WANT], got;
    unsigned n = 0, tries = 0;
    int64_t ppm;

    if (!tsc.calibrated || !tsc.pit_fires || tsc.pit_disagrees) {
        KT_SKIP(t, !tsc.calibrated ? "the TSC is uncalibrated"
                   : !tsc.pit_fires ? "the PIT is dead"
                   : "the PIT disagreed with the chosen rate");
        return;
    }
    while (n < SELFTEST_WANT && tries++ < SELFTEST_TRIES) {
        struct tsc_window w;

        pit_oneshot(latch, tsc_muldiv(tsc.scale.hz, 4 * SELFTEST_PIT_US, 1000000u), &w);
        if (tsc_window_check(&w, latch) == TSC_WIN_OK)
            ns[n++] = tsc_to_ns(w.ticks);
    }
    if (!KT_EXPECT(t, n >= 1, "none of %u PIT intervals was clean", SELFTEST_TRIES))
        return;
    got = tsc_median(ns, n);
    ppm = tsc_ppm(got, expect_ns);
    serial_printk("# tsc_pit_interval: PIT %llu ns, TSC %llu ns (%+lld ppm), median of %u "
                  "clean of %u\n", (unsigned long long)expect_ns, (unsigned long long)got,
                  (long long)ppm, n, tries);
    KT_EXPECT(t, ppm >= -(int64_t)SELFTEST_TOL_PPM && ppm <= (int64_t)SELFTEST_TOL_PPM,
              "PIT interval %llu ns, TSC says %llu ns (%+lld ppm, tolerance %u)",
              (unsigned long long)expect_ns, (unsigned long long)got, (long long)ppm,
              SELFTEST_TOL_PPM);
}

/* The scale in use converts its own rate's second to 10^9 ns, and 0 to 0. */
SELFTEST(tsc_scale_second)
{
    if (!tsc.calibrated) {
        KT_EXPECT(t, tsc_to_ns(1) == TSC_NS_UNKNOWN, "uncalibrated tsc_to_ns(1) pretends");
        return;
    }
    KT_EXPECT(t, tsc_to_ns(0) == 0, "tsc_to_ns(0) = %llu", (unsigned long long)tsc_to_ns(0));
    KT_EXPECT(t, tsc_to_ns(tsc.scale.hz) == NS_PER_S, "one second of ticks is %llu ns",
              (unsigned long long)tsc_to_ns(tsc.scale.hz));
}
