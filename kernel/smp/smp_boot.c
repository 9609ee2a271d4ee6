// SPDX-License-Identifier: MIT
// Bring-up of the application processors: the trampoline below 1 MiB,
// INIT-STARTUP-STARTUP, each CPU's stack and tables, and the smp report.
#include "kernel/bootinfo/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/lib/string.h"
#include "kernel/panic.h"
#include "kernel/smp/apic.h"
#include "kernel/smp/smp.h"
#include "kernel/time/time.h"
#include "kernel/time/tsc.h"
#include "kernel/traps.h"
#include "mm/paging.h"
#include "mm/reserve.h"

#define TRAMP_PAGES     4           /* code and data, PML4, PDPT, PD */
#define TRAMP_LOW       0x1000ull   /* above the real-mode IVT and BIOS data */
#define TRAMP_HIGH      0xa0000ull  /* below the legacy video hole */
#define AP_STACK_PAGES  8
/*
 * How long a started CPU has to say it is up. Hardware answers in
 * microseconds, but under TCG each vCPU is a host thread, and on a loaded
 * host it may wait seconds for a core: 10 s tells a busy host from a CPU
 * that is not there (smp_phantom), and stays far below the harness's stall
 * limit (60 s).
 */
#define AP_ANSWER_MS    10000

/* The block at TRAMP_DATA in boot/trampoline.asm: every offset is written there too. */
#define TRAMP_DATA      8
struct tramp_data {
    uint16_t gdt_limit;
    uint32_t gdt_base;
    uint16_t pad0;
    uint32_t pm32_off;
    uint16_t pm32_sel;
    uint16_t pad1;
    uint32_t lm64_off;
    uint16_t lm64_sel;
    uint16_t pad2;
    uint32_t cr3;
    uint32_t efer_or;
    uint64_t stack_top;
    uint64_t entry;
    uint64_t arg;
    uint32_t apic_id;
    uint32_t x2apic;
    uint64_t gdt[4];
} __packed;
_Static_assert(offsetof(struct tramp_data, gdt_limit) == 0, "TD_GDTR");
_Static_assert(offsetof(struct tramp_data, gdt_base) == 2, "TD_GDTR base");
_Static_assert(offsetof(struct tramp_data, pm32_off) == 8, "TD_PM32");
_Static_assert(offsetof(struct tramp_data, pm32_sel) == 12, "TD_PM32 selector");
_Static_assert(offsetof(struct tramp_data, lm64_off) == 16, "TD_LM64");
_Static_assert(offsetof(struct tramp_data, lm64_sel) == 20, "TD_LM64 selector");
_Static_assert(offsetof(struct tramp_data, cr3) == 24, "TD_CR3");
_Static_assert(offsetof(struct tramp_data, efer_or) == 28, "TD_EFER");
_Static_assert(offsetof(struct tramp_data, stack_top) == 32, "TD_STACK");
_Static_assert(offsetof(struct tramp_data, entry) == 40, "TD_ENTRY");
_Static_assert(offsetof(struct tramp_data, arg) == 48, "TD_ARG");
_Static_assert(offsetof(struct tramp_data, apic_id) == 56, "TD_APIC_ID");
_Static_assert(offsetof(struct tramp_data, x2apic) == 60, "TD_X2APIC");
_Static_assert(offsetof(struct tramp_data, gdt) == 64, "TD_GDT");
_Static_assert(sizeof(struct tramp_data) == 96, "TRAMP_DATA_LEN");

/* The trampoline's GDT selectors, as boot/trampoline.asm loads them. */
#define TSEL_CODE32 0x08
#define TSEL_DATA   0x10
#define TSEL_CODE64 0x18

extern const char tramp_start[], tramp_pm32[], tramp_lm64[], tramp_end[];
extern uint8_t boot_stack[];

static bool opt_phantom;
CMDLINE_OPT(smp_phantom, .key = "smp_phantom", .type = OPT_FLAG, .dst = &opt_phantom,
            .help = "also start an APIC id no CPU has, to test that a silent CPU is left out");

static uint64_t tramp_base;             /* physical; 0: none found */
static const char *tramp_missing = "not chosen";
static uint64_t boot_cr0, boot_cr3, boot_cr4;
static uint64_t bringup_ticks;
static unsigned nfailed;
static uint32_t failed_ids[SMP_MAX_CPUS + 1];

/* True when [s, e) overlaps anything in the loader's map but RAM, or loader data. */
static bool tramp_clash(uint64_t s, uint64_t e)
{
    bool in_ram = false;

    for (unsigned i = 0; i < bootinfo.mmap_count; i++) {
        const struct mmap_entry *m = &bootinfo.mmap[i];
        uint64_t me = m->addr + m->len;
        if (m->type == 1 && m->addr <= s && e <= me)
            in_ram = true;
        else if (m->type != 1 && m->addr < e && s < me)
            return true;
    }
    for (unsigned i = 0; i < bootinfo.resv_count; i++)
        if (bootinfo.resv[i].start < e && s < bootinfo.resv[i].end)
            return true;
    return !in_ram;
}

void smp_reserve_trampoline(void)
{
    uint64_t len = TRAMP_PAGES * PAGE_SIZE;

    /* From the top of conventional memory down, as far from page 0 as it goes. */
    for (uint64_t s = TRAMP_HIGH - len; s >= TRAMP_LOW; s -= PAGE_SIZE) {
        if (!tramp_clash(s, s + len)) {
            tramp_base = s;
            mm_reserve_early("AP trampoline", s, s + len);
            return;
        }
    }
    tramp_missing = "no 16 KiB of free RAM below 640 KiB";
}

/* Busy-waits us microseconds; uncalibrated, it assumes 10 GHz, so it only waits longer. */
static void udelay(uint64_t us)
{
    uint64_t khz = tsc_khz() ? tsc_khz() : 10000000, t0 = tsc_now();

    while (tsc_now() - t0 < us * khz / 1000)
        cpu_relax();
}

/* Copies the trampoline and builds its page tables: the low 2 MiB identity-mapped, the upper half the kernel's. */
static struct tramp_data *tramp_install(void)
{
    uint8_t *page = phys_to_virt(tramp_base);
    uint64_t *pml4 = (uint64_t *)(page + PAGE_SIZE), *pdpt = pml4 + 512, *pd = pdpt + 512;
    const uint64_t *kpml4 = phys_to_virt(boot_cr3 & ~0xfffull);
    struct tramp_data *d = (struct tramp_data *)(page + TRAMP_DATA);

    if ((size_t)(tramp_end - tramp_start) > PAGE_SIZE)
        panic("AP trampoline is %zu bytes, more than a page", (size_t)(tramp_end - tramp_start));
    memcpy(page, tramp_start, (size_t)(tramp_end - tramp_start));
    memset(pml4, 0, 3 * PAGE_SIZE);
    pml4[0] = (tramp_base + 2 * PAGE_SIZE) | PTE_P | PTE_W;
    pdpt[0] = (tramp_base + 3 * PAGE_SIZE) | PTE_P | PTE_W;
    pd[0] = 0 | PTE_P | PTE_W | PTE_PS;
    for (unsigned i = 256; i < 512; i++)
        pml4[i] = kpml4[i];

    d->gdt[0] = 0;
    d->gdt[1] = 0x00cf9b000000ffffull;      /* 32-bit code */
    d->gdt[2] = 0x00cf93000000ffffull;      /* data */
    d->gdt[3] = 0x00af9b000000ffffull;      /* 64-bit code */
    d->gdt_limit = sizeof(d->gdt) - 1;
    d->gdt_base = (uint32_t)(tramp_base + TRAMP_DATA + offsetof(struct tramp_data, gdt));
    d->pm32_off = (uint32_t)(tramp_base + (tramp_pm32 - tramp_start));
    d->pm32_sel = TSEL_CODE32;
    d->lm64_off = (uint32_t)(tramp_base + (tramp_lm64 - tramp_start));
    d->lm64_sel = TSEL_CODE64;
    d->cr3 = (uint32_t)(tramp_base + PAGE_SIZE);
    d->efer_or = (1u << 8) | (cpu.nx ? EFER_NXE : 0);       /* LME, NXE */
    d->entry = (uint64_t)smp_ap_entry;
    d->x2apic = apic_mode == APIC_X2APIC;
    return d;
}

__noreturn void smp_ap_entry(struct percpu *pc)
{
    write_cr3(boot_cr3);
    write_cr4(boot_cr4);
    write_cr0(boot_cr0);
    percpu_install(pc);
    traps_init_cpu(pc->traps);
    apic_init_ap();
    smp_park();
}

/* STARTUP, a pause, STARTUP again, as the MP specification has it; then waits for the CPU. */
static bool start_one(struct tramp_data *d, struct percpu *pc)
{
    uint64_t khz = tsc_khz() ? tsc_khz() : 10000000, t0;

    d->stack_top = pc->stack_hi;
    d->arg = (uint64_t)pc;
    d->apic_id = pc->apic_id;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    apic_send_startup(pc->apic_id, (uint8_t)(tramp_base >> 12));
    udelay(200);
    if (!__atomic_load_n(&pc->online, __ATOMIC_ACQUIRE))
        apic_send_startup(pc->apic_id, (uint8_t)(tramp_base >> 12));
    t0 = tsc_now();
    while (!__atomic_load_n(&pc->online, __ATOMIC_ACQUIRE)) {
        if (tsc_now() - t0 > AP_ANSWER_MS * khz) {
            apic_send_init(pc->apic_id);        /* back to waiting, wherever it was */
            return false;
        }
        cpu_relax();
    }
    return true;
}

/* The APIC ids to start, the boot CPU's left out; with smp_phantom one no CPU has. */
static unsigned ap_ids(uint32_t *ids, uint32_t boot_id)
{
    unsigned n = 0;
    uint32_t top = 0;

    for (unsigned i = 0; i < topo.ncpus; i++) {
        uint32_t id = topo.cpu[i].apic_id;
        top = MAX(top, id);
        if (id == boot_id)
            continue;
        if (id > 254 && apic_mode != APIC_X2APIC) {
            printk("warning: CPU with APIC id %u needs x2APIC mode: left out\n", id);
            failed_ids[nfailed++] = id;
            continue;
        }
        ids[n++] = id;
    }
    if (opt_phantom)
        ids[n++] = MIN(top + 1, 254u);
    return n;
}

static void start_aps(uint32_t boot_id)
{
    uint32_t ids[SMP_MAX_CPUS + 1];
    unsigned n = ap_ids(ids, boot_id), k;
    struct tramp_data *d;
    uint64_t t0;

    if (!n)
        return;
    if (!tramp_base) {
        printk("warning: %u CPU%s not started: %s\n", n, n == 1 ? "" : "s", tramp_missing);
        return;
    }
    d = tramp_install();
    t0 = tsc_now();
    /* INIT to all, one 10 ms wait, then STARTUP one CPU at a time: the data block is shared. */
    for (k = 0; k < n; k++)
        apic_send_init(ids[k]);
    udelay(10000);
    for (k = 0; k < n; k++) {
        struct percpu *pc = &percpus[smp_ncpus];
        int t = topo_cpu_index(&topo, ids[k]);

        /* A slot whose CPU did not answer keeps its stack and tables for the next. */
        if (!pc->traps) {
            pc->traps = mm_alloc_boot("CPU stacks and tables",
                                      PFN_UP(sizeof(struct trap_cpu)), UINT64_MAX);
            pc->stack_lo = (uintptr_t)mm_alloc_boot("CPU stacks and tables", AP_STACK_PAGES,
                                                    UINT64_MAX);
            pc->stack_hi = pc->stack_lo + AP_STACK_PAGES * PAGE_SIZE;
        }
        pc->cpu = smp_ncpus;
        pc->apic_id = ids[k];
        pc->node = t >= 0 ? topo.cpu[t].node : 0;
        pc->online = 0;
        if (start_one(d, pc)) {
            smp_ncpus++;
            continue;
        }
        printk("warning: CPU with APIC id %u did not answer within %u ms: left out\n", ids[k],
               AP_ANSWER_MS);
        failed_ids[nfailed++] = ids[k];
    }
    bringup_ticks = tsc_now() - t0;
}

static uint64_t ns_or_zero(uint64_t ticks)
{
    uint64_t ns = tsc_to_ns(ticks);

    return ns == TSC_NS_UNKNOWN ? 0 : ns;
}

static void report(void)
{
    int64_t skew = 0;
    uint64_t bound = 0;
    struct record r;

    for (unsigned c = 1; c < smp_ncpus; c++) {
        int64_t o = percpus[c].tsc_offset;
        skew = MAX(skew, o < 0 ? -o : o);
        bound = MAX(bound, percpus[c].tsc_rtt / 2);
    }
    printk("smp: %u of %u CPU%s up (%s mode), node%s:", smp_ncpus, topo.ncpus + (opt_phantom ? 1 : 0),
           topo.ncpus == 1 ? "" : "s", apic_mode == APIC_X2APIC ? "x2APIC" : "xAPIC",
           smp_ncpus == 1 ? "" : "s");
    for (unsigned c = 0; c < smp_ncpus; c++)
        printk(" %u", percpus[c].node);
    if (smp_ncpus > 1)
        printk("; up in %llu us; TSC skew %lld ticks (%llu ns), each measured to +-%llu ns\n",
               (unsigned long long)ns_or_zero(bringup_ticks) / 1000, (long long)skew,
               (unsigned long long)ns_or_zero((uint64_t)skew), (unsigned long long)ns_or_zero(bound));
    else
        printk("\n");

    record_begin(&r, "smp");
    record_u64(&r, "cpus_found", topo.ncpus);
    record_u64(&r, "cpus_up", smp_ncpus);
    record_u64(&r, "cpus_online_capable", topo.cpus_hotplug);
    record_u64(&r, "cpus_disabled", topo.cpus_disabled);
    record_arr_begin(&r, "cpus_failed");
    for (unsigned i = 0; i < nfailed; i++)
        record_u64(&r, NULL, failed_ids[i]);
    record_arr_end(&r);
    record_str(&r, "apic_mode", apic_mode == APIC_X2APIC ? "x2apic" : "xapic");
    record_bool(&r, "x2apic_cpu", apic_has_x2apic());
    record_str(&r, "tables", topo.fallback ? "fallback" : topo.madt ? "acpi" : "none");
    if (topo.fallback)
        record_str(&r, "fallback_reason", topo.fallback_reason);
    else
        record_null(&r, "fallback_reason");
    if (tramp_base)
        record_u64(&r, "trampoline", tramp_base);
    else
        record_null(&r, "trampoline");
    if (smp_ncpus > 1 && tsc_calibrated())
        record_u64(&r, "bringup_ns", tsc_to_ns(bringup_ticks));
    else
        record_null(&r, "bringup_ns");
    record_i64(&r, "tsc_skew_ticks", skew);
    if (tsc_calibrated()) {
        record_u64(&r, "tsc_skew_ns", tsc_to_ns((uint64_t)skew));
        record_u64(&r, "tsc_bound_ns", tsc_to_ns(bound));
    } else {
        record_null(&r, "tsc_skew_ns");
        record_null(&r, "tsc_bound_ns");
    }
    record_arr_begin(&r, "cpus");
    for (unsigned c = 0; c < smp_ncpus; c++) {
        record_obj_begin(&r, NULL);
        record_u64(&r, "cpu", c);
        record_u64(&r, "apic_id", percpus[c].apic_id);
        record_u64(&r, "node", percpus[c].node);
        record_i64(&r, "tsc_offset_ticks", percpus[c].tsc_offset);
        record_u64(&r, "tsc_rtt_ticks", percpus[c].tsc_rtt);
        record_obj_end(&r);
    }
    record_arr_end(&r);
    record_end(&r);
}

void smp_init(void)
{
    uint32_t boot_id = apic_boot_id(), top = boot_id;
    int t = topo_cpu_index(&topo, boot_id);
    struct percpu *bsp = &percpus[0];

    bsp->cpu = 0;
    bsp->apic_id = boot_id;
    bsp->node = t >= 0 ? topo.cpu[t].node : 0;
    bsp->stack_lo = (uintptr_t)boot_stack;
    bsp->stack_hi = (uintptr_t)boot_stack + 65536;
    bsp->online = 1;
    percpu_install(bsp);

    for (unsigned i = 0; i < topo.ncpus; i++)
        top = MAX(top, topo.cpu[i].apic_id);
    apic_init_boot(top);
    boot_cr0 = read_cr0();
    boot_cr3 = read_cr3();
    boot_cr4 = read_cr4();
    start_aps(boot_id);
    if (smp_ncpus > 1)
        smp_measure_tsc();
    report();
}
