// SPDX-License-Identifier: MIT
// The CPUID leaves that state a TSC rate: read through clkio, decoded apart
// from the reading so that the host tests can present any CPU.
#include "kernel/time/leaves.h"

#include "kernel/libc.h"
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
    if (l->hypervisor) {
        r = clkio_cpuid(0x40000000, 0);
        l->hv_max_leaf = r.eax;
        regs_str(l->hv_signature, r.ebx, r.ecx, r.edx);
        if (l->hv_max_leaf >= 0x40000010)
            l->l40000010 = clkio_cpuid(0x40000010, 0);
    }
}

void tsc_leaves_clocks(const struct tsc_leaves *l, struct tsc_clock *clk)
{
    const struct cpuid_regs *r = &l->l15;
    uint32_t mhz = l->l16.eax & 0xffff;

    /* TSC = crystal * EBX / EAX; a zero ECX means the crystal is not enumerated. */
    if (r->eax && r->ebx && r->ecx) {
        clk[TSC_SRC_CPUID15].state = TSC_CLK_OK;
        clk[TSC_SRC_CPUID15].hz = tsc_muldiv(r->ecx, r->ebx, r->eax);
    } else if (r->eax && r->ebx) {
        clk[TSC_SRC_CPUID15].why = "ratio without crystal frequency";
    }
    if (mhz) {
        clk[TSC_SRC_CPUID16].state = TSC_CLK_OK;
        clk[TSC_SRC_CPUID16].hz = (uint64_t)mhz * 1000000u;
    }
    /* The timing leaf that VMware defined and KVM/QEMU fill: EAX = TSC kHz. */
    if (l->l40000010.eax) {
        clk[TSC_SRC_HYPERVISOR].state = TSC_CLK_OK;
        clk[TSC_SRC_HYPERVISOR].hz = (uint64_t)l->l40000010.eax * 1000u;
    }
}
