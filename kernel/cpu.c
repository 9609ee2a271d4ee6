// SPDX-License-Identifier: MIT
// Reads the boot CPU's identity and the features bootheap depends on.
#include "kernel/cpu.h"

#include "kernel/lib/string.h"

struct cpu_info cpu;

static void regs_to_str(char *dst, const uint32_t *words, unsigned n)
{
    memcpy(dst, words, n * 4);
    dst[n * 4] = '\0';
}

void cpu_init(void)
{
    struct cpuid_regs r = cpuid(0, 0);
    uint32_t v[3] = { r.ebx, r.edx, r.ecx };

    cpu.max_leaf = r.eax;
    regs_to_str(cpu.vendor, v, 3);

    r = cpuid(1, 0);
    cpu.stepping = r.eax & 0xf;
    cpu.model = (r.eax >> 4) & 0xf;
    cpu.family = (r.eax >> 8) & 0xf;
    if (cpu.family == 0xf)
        cpu.family += (r.eax >> 20) & 0xff;
    if (cpu.family >= 6)
        cpu.model |= ((r.eax >> 16) & 0xf) << 4;
    cpu.sse2 = r.edx & (1u << 26);
    cpu.hypervisor = r.ecx & (1u << 31);

    cpu.max_ext_leaf = cpuid(0x80000000, 0).eax;
    if (cpu.max_ext_leaf >= 0x80000001) {
        r = cpuid(0x80000001, 0);
        cpu.gbpages = r.edx & (1u << 26);
        cpu.rdtscp = r.edx & (1u << 27);
    }
    if (cpu.max_ext_leaf >= 0x80000004) {
        uint32_t b[12];
        for (unsigned i = 0; i < 3; i++) {
            r = cpuid(0x80000002 + i, 0);
            b[i * 4 + 0] = r.eax;
            b[i * 4 + 1] = r.ebx;
            b[i * 4 + 2] = r.ecx;
            b[i * 4 + 3] = r.edx;
        }
        regs_to_str(cpu.brand, b, 12);
        /* Drop the leading blanks some CPUs pad with. */
        char *p = cpu.brand;
        while (*p == ' ')
            p++;
        memmove(cpu.brand, p, strlen(p) + 1);
    }
    if (cpu.max_ext_leaf >= 0x80000007)
        cpu.invariant_tsc = cpuid(0x80000007, 0).edx & (1u << 8);
    if (cpu.max_ext_leaf >= 0x80000008) {
        r = cpuid(0x80000008, 0);
        cpu.phys_bits = r.eax & 0xff;
        cpu.virt_bits = (r.eax >> 8) & 0xff;
    } else {
        cpu.phys_bits = 36;
        cpu.virt_bits = 48;
    }
#ifndef BOOTHEAP_HOSTED     /* EFER is the kernel's; user space cannot read it */
    cpu.nx = rdmsr(MSR_EFER) & EFER_NXE;
#endif

    cpu.accel = ACCEL_NONE;
    if (cpu.hypervisor) {
        r = cpuid(0x40000000, 0);
        uint32_t s[3] = { r.ebx, r.ecx, r.edx };
        cpu.hv_max_leaf = r.eax;
        regs_to_str(cpu.hv_signature, s, 3);
        if (!memcmp(cpu.hv_signature, "KVMKVMKVM", 9))
            cpu.accel = ACCEL_KVM;
        else if (!memcmp(cpu.hv_signature, "TCGTCGTCGTCG", 12))
            cpu.accel = ACCEL_TCG;
        else
            cpu.accel = ACCEL_OTHER;
    }
}

const char *accel_name(enum accel a)
{
    switch (a) {
    case ACCEL_KVM: return "KVM";
    case ACCEL_TCG: return "TCG";
    case ACCEL_OTHER: return "other hypervisor";
    case ACCEL_HOST: return "host";
    default: return "none";
    }
}

const char *accel_caveat(enum accel a)
{
    switch (a) {
    case ACCEL_TCG:
        return ": EMULATED TIMINGS, not comparable with hardware or KVM";
    case ACCEL_HOST:
        return ": HOSTED, Linux user space running the kernel's heap code on this "
               "machine's real CPU and memory, no hypervisor of bootheap's own";
    default:
        return "";
    }
}
