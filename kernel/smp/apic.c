// SPDX-License-Identifier: MIT
// Local APIC access for both modes. In xAPIC mode the registers are 4 KiB of
// uncached memory at the base IA32_APIC_BASE names; in x2APIC mode register
// offset r is MSR 0x800 + r / 16 and the ICR is one 64-bit MSR.
#include "kernel/smp/apic.h"

#include "kernel/cmdline.h"
#include "kernel/console/printk.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "mm/paging.h"

#define MSR_APIC_BASE       0x1b
#define APIC_BASE_ENABLE    (1ull << 11)
#define APIC_BASE_X2        (1ull << 10)
#define APIC_BASE_ADDR      0xffffff000ull

#define APIC_ID     0x20
#define APIC_TPR    0x80
#define APIC_EOI    0xb0
#define APIC_SVR    0xf0
#define APIC_ESR    0x280
#define APIC_ICR    0x300
#define APIC_ICR_HI 0x310

#define SVR_ENABLE      (1u << 8)
#define ICR_INIT        (5u << 8)
#define ICR_STARTUP     (6u << 8)
#define ICR_PENDING     (1u << 12)      /* xAPIC delivery status */
#define ICR_ASSERT      (1u << 14)
#define ICR_LEVEL       (1u << 15)

enum apic_choice { APIC_AUTO, APIC_FORCE_XAPIC, APIC_FORCE_X2APIC };
static const char *const apic_choices[] = {
    [APIC_AUTO] = "auto",
    [APIC_FORCE_XAPIC] = "xapic",
    [APIC_FORCE_X2APIC] = "x2apic",
};
static enum apic_choice opt_apic = APIC_AUTO;

CMDLINE_CHOICE(apic, opt_apic, apic_choices,
               "local APIC mode: auto (x2APIC when the firmware chose it or an APIC id "
               "needs it), xapic, or x2apic");

enum apic_mode apic_mode = APIC_XAPIC;
static volatile uint32_t *regs;         /* xAPIC registers, mapped uncached */

static uint32_t apic_read(unsigned reg)
{
    if (apic_mode == APIC_X2APIC)
        return (uint32_t)rdmsr(0x800 + reg / 16);
    return regs[reg / 4];
}

static void apic_write(unsigned reg, uint32_t v)
{
    if (apic_mode == APIC_X2APIC)
        wrmsr(0x800 + reg / 16, v);
    else
        regs[reg / 4] = v;
}

bool apic_has_x2apic(void)
{
    return cpuid(1, 0).ecx & (1u << 21);
}

uint32_t apic_boot_id(void)
{
    if (apic_has_x2apic() && cpu.max_leaf >= 0xb)
        return cpuid(0xb, 0).edx;
    return cpuid(1, 0).ebx >> 24;
}

uint32_t apic_id(void)
{
    uint32_t v = apic_read(APIC_ID);

    return apic_mode == APIC_X2APIC ? v : v >> 24;
}

/* Enables this CPU's APIC in the chosen mode, accepting every priority. */
static void enable_here(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE;

    if (apic_mode == APIC_X2APIC)
        base |= APIC_BASE_X2;
    wrmsr(MSR_APIC_BASE, base);
    apic_write(APIC_TPR, 0);
    apic_write(APIC_SVR, SVR_ENABLE | APIC_SPURIOUS_VECTOR);
}

void apic_init_boot(uint32_t max_id)
{
    uint64_t base = rdmsr(MSR_APIC_BASE);
    bool fw_x2 = (base & APIC_BASE_ENABLE) && (base & APIC_BASE_X2);
    bool want_x2 = opt_apic == APIC_FORCE_X2APIC ||
                   (opt_apic == APIC_AUTO && (fw_x2 || max_id > 254));

    if (want_x2 && !apic_has_x2apic()) {
        printk("warning: x2APIC %s, but this CPU has no x2APIC mode: using xAPIC%s\n",
               opt_apic == APIC_FORCE_X2APIC ? "asked for" : "needed",
               max_id > 254 ? " (CPUs with APIC ids above 254 stay down)" : "");
        want_x2 = false;
    }
    if (fw_x2 && !want_x2)
        printk("note: the firmware left the APIC in x2APIC mode; it stays there (no way back "
               "without a reset)\n");
    apic_mode = (want_x2 || fw_x2) ? APIC_X2APIC : APIC_XAPIC;
    if (apic_mode == APIC_XAPIC) {
        regs = phys_map(base & APIC_BASE_ADDR, 4096, true);
        if (!regs)
            panic("cannot map the local APIC at 0x%llx",
                  (unsigned long long)(base & APIC_BASE_ADDR));
    }
    enable_here();
}

void apic_init_ap(void)
{
    enable_here();
}

/* Writes the ICR; in xAPIC mode waits (bounded) until the APIC took it. */
static void send(uint32_t id, uint32_t low)
{
    if (apic_mode == APIC_X2APIC) {
        wrmsr(0x830, (uint64_t)id << 32 | low);
        return;
    }
    apic_write(APIC_ICR_HI, id << 24);
    apic_write(APIC_ICR, low);
    for (unsigned i = 0; i < 1000000 && (apic_read(APIC_ICR) & ICR_PENDING); i++)
        cpu_relax();
}

void apic_send_init(uint32_t id)
{
    send(id, ICR_INIT | ICR_LEVEL | ICR_ASSERT);
    send(id, ICR_INIT | ICR_LEVEL);
}

void apic_send_startup(uint32_t id, uint8_t page)
{
    if (apic_mode == APIC_XAPIC)
        apic_write(APIC_ESR, 0);
    send(id, ICR_STARTUP | page);
}

void apic_send_ipi(uint32_t id, uint8_t vector)
{
    send(id, ICR_ASSERT | vector);
}

void apic_eoi(void)
{
    apic_write(APIC_EOI, 0);
}
