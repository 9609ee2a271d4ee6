// SPDX-License-Identifier: MIT
// The CPUID leaves that state a TSC rate: read through clkio, decoded apart
// from the reading so that the host tests can present any CPU.
#include "kernel/time/leaves.h"

#include "kernel/lib/libc.h"
#include "kernel/time/clkio.h"
#include "kernel/time/tsc_math.h"

static void regs_str(char *dst, uint32_t a, uint32_t b, uint32_t c)
{
    memcpy(dst, &a, 4);
    memcpy(dst + 4, &b, 4);
    memcpy(dst + 8, &c, 4);
    dst[12] = '\0';
}

void tsc_leaves_read(struct tsc_leaves *l)
{
    struct cpuid_regs r = clkio_cpuid(0, 0);

    memset(l, 0, sizeof(*l));
    l->max_leaf = r.eax;
    regs_str(l->vendor, r.ebx, r.edx, r.ecx);
    r = clkio_cpuid(1, 0);
    l->model = (r.eax >> 4) & 0xf;
    l->family = (r.eax >> 8) & 0xf;
    if (l->family == 0xf)
        l->family += (r.eax >> 20) & 0xff;
    if (l->family >= 6)
        l->model |= ((r.eax >> 16) & 0xf) << 4;
    l->hypervisor = r.ecx & (1u << 31);
    if (l->max_leaf >= 0x15)
        l->l15 = clkio_cpuid(0x15, 0);
    if (l->max_leaf >= 0x16)
        l->l16 = clkio_cpuid(0x16, 0);
    l->max_ext_leaf = clkio_cpuid(0x80000000, 0).eax;
    if (l->max_ext_leaf >= 0x80000021 && l->max_ext_leaf <= 0x800000ff)
        l->ext21_eax = clkio_cpuid(0x80000021, 0).eax;
    if (l->hypervisor) {
        r = clkio_cpuid(0x40000000, 0);
        l->hv_max_leaf = r.eax;
        regs_str(l->hv_signature, r.ebx, r.ecx, r.edx);
        if (l->hv_max_leaf >= 0x40000010)
            l->l40000010 = clkio_cpuid(0x40000010, 0);
    }
}

/*
 * Hypervisors known to fill the timing leaf with the TSC rate they run the
 * guest's TSC at (VMware defined the leaf; KVM fills it when asked to).
 * Any other signature's leaf 0x40000010 may mean something else entirely.
 */
static bool hv_fills_timing_leaf(const char *sig)
{
    return !memcmp(sig, "KVMKVMKVM\0\0\0", 12) || !memcmp(sig, "VMwareVMware", 12);
}

enum tsc_fence tsc_leaves_fence(const struct tsc_leaves *l)
{
    bool amd = !memcmp(l->vendor, "AuthenticAMD", 12) || !memcmp(l->vendor, "HygonGenuine", 12);

    return !amd || (l->ext21_eax & (1u << 2)) ? TSC_FENCE_LFENCE : TSC_FENCE_MFENCE;
}

const char *tsc_fence_name(enum tsc_fence f)
{
    return f == TSC_FENCE_LFENCE ? "lfence" : "mfence";
}

/*
 * The core crystal of Intel CPUs whose CPUID 0x15 gives the TSC/crystal
 * ratio but not the crystal (ECX = 0), as Intel's SDM documents it (6th and
 * 7th generation Core, Xeon Scalable 06_55H, Goldmont 06_5CH) and as Linux
 * adds it (Denverton 06_5FH, Goldmont Plus 06_7AH). 0: not documented.
 */
static uint32_t crystal_hz(const struct tsc_leaves *l)
{
    if (memcmp(l->vendor, "GenuineIntel", 12) || l->family != 6)
        return 0;
    switch (l->model) {
    case 0x4e: case 0x5e: case 0x8e: case 0x9e:
        return 24000000;
    case 0x55: case 0x5f:
        return 25000000;
    case 0x5c: case 0x7a:
        return 19200000;
    }
    return 0;
}

static void set_clock(struct tsc_clock *c, enum tsc_kind kind, uint64_t hz, uint32_t unc_ppm)
{
    c->state = TSC_CLK_OK;
    c->kind = kind;
    c->hz = hz;
    c->unc_ppm = unc_ppm;
}

void tsc_leaves_clocks(const struct tsc_leaves *l, struct tsc_clock *clk)
{
    const struct cpuid_regs *r = &l->l15;
    uint32_t mhz = l->l16.eax & 0xffff;
    uint64_t khz = l->l40000010.eax;

    /* TSC = crystal * EBX / EAX, exact to the Hz; a zero ECX means the
     * crystal is not enumerated, and the model may still document it. */
    uint64_t crystal = r->ecx ? r->ecx : crystal_hz(l);

    if (r->eax && r->ebx && crystal) {
        set_clock(&clk[TSC_SRC_CPUID15], TSC_KIND_COMPUTED, tsc_muldiv(crystal, r->ebx, r->eax), 0);
    } else if (r->eax && r->ebx) {
        clk[TSC_SRC_CPUID15].state = TSC_CLK_BAD;
        clk[TSC_SRC_CPUID15].why = "ratio without crystal frequency";
    }
    if (mhz)
        set_clock(&clk[TSC_SRC_CPUID16], TSC_KIND_NOMINAL, (uint64_t)mhz * 1000000u,
                  TSC_NOMINAL_UNC_PPM);
    /* EAX = TSC kHz: rounded to 500 Hz at most. */
    if (khz && hv_fills_timing_leaf(l->hv_signature))
        set_clock(&clk[TSC_SRC_HYPERVISOR], TSC_KIND_COMPUTED, khz * 1000u,
                  (uint32_t)((500000000u + khz * 1000u - 1) / (khz * 1000u)));
    else if (khz)
        set_clock(&clk[TSC_SRC_HYPERVISOR], TSC_KIND_NOMINAL, khz * 1000u, TSC_NOMINAL_UNC_PPM);
}
