// SPDX-License-Identifier: MIT
// kstart: the boot path, top to bottom, from the hand-over to the report.
#include "kernel/acpi/topo.h"
#include "kernel/bootinfo/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/console/console.h"
#include "kernel/console/printk.h"
#include "kernel/console/qrscreen.h"
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/selftest.h"
#include "kernel/panic.h"
#include "kernel/smp/smp.h"
#include "kernel/time/time.h"
#include "kernel/traps.h"
#include "kernel/version.h"
#include "mm/layout.h"
#include "mm/mm.h"
#include "mm/paging.h"
#include "mm/peers/peer.h"
#include "bench/bench.h"
#include "bench/probe.h"
#include "bench/report.h"

static bool opt_selftest;
static bool opt_memonly;

CMDLINE_OPT(selftest, .key = "selftest", .type = OPT_FLAG, .dst = &opt_selftest,
            .help = "run the in-kernel self-tests (KTAP on serial) instead of the benchmark");
CMDLINE_OPT(memonly, .key = "memonly", .type = OPT_FLAG, .dst = &opt_memonly,
            .help = "stop after the memory summary (large guests, memory tests)");
CMDLINE_OPT(verbose, .key = "verbose", .type = OPT_FLAG, .dst = &printk_verbose,
            .help = "print more detail about each step");

enum fault { FAULT_NONE, FAULT_UD, FAULT_PF, FAULT_GP, FAULT_DE, FAULT_PANIC, FAULT_AP };
static const char *const fault_names[] = {
    [FAULT_NONE] = "none",
    [FAULT_UD] = "ud",
    [FAULT_PF] = "pf",
    [FAULT_GP] = "gp",
    [FAULT_DE] = "de",
    [FAULT_PANIC] = "panic",
    [FAULT_AP] = "ap",
};
static enum fault opt_fault = FAULT_NONE;
CMDLINE_CHOICE(fault, opt_fault, fault_names,
               "raise an exception or panic on purpose, to test the fatal-error path "
               "(ap: an exception on another CPU)");

/* Loader data lies below 4 GiB, which the boot page tables map 1:1. */
static const void *boot_phys(uint64_t paddr, uint64_t len, void *ctx)
{
    (void)ctx;
    if (paddr == 0 || paddr + len < paddr || paddr + len > (1ull << 32))
        return NULL;
    return (const void *)(uintptr_t)paddr;
}

static void parse_bootinfo(uint32_t loader, uint32_t magic, uint32_t info)
{
    struct err e;
    int rc;

    if (loader == BI_LOADER_MB2)
        rc = mb2_parse(&bootinfo, magic, info, boot_phys, NULL, &e);
    else
        rc = pvh_parse(&bootinfo, info, boot_phys, NULL, &e);
    if (rc)
        panic("bad boot information from the %s loader: %s",
              bi_loader_name((enum bi_loader)loader), e.msg);
}

/* fault=...: the fatal-error paths are tested by boots that take them. */
static __attribute__((noinline)) void raise_fault(void)
{
    switch (opt_fault) {
    case FAULT_NONE:
    case FAULT_AP:
        return;
    case FAULT_UD:
        __asm__ volatile("ud2");
        break;
    case FAULT_PF:
        *(volatile uint64_t *)0xdead0000000ull = 1;
        break;
    case FAULT_GP:
        __asm__ volatile("movq %0, %%rax; movq (%%rax), %%rax" : : "i"(0x8000000000000000ull) : "rax");
        break;
    case FAULT_DE:
        /* In assembly: the compiler would fold a C division by zero away. */
        __asm__ volatile("xorl %%ecx, %%ecx; movl $1, %%eax; xorl %%edx, %%edx; divl %%ecx"
                         : : : "eax", "ecx", "edx");
        break;
    case FAULT_PANIC:
        panic("panic requested on the command line (fault=panic)");
    }
    panic("fault=%s did not fault", fault_names[opt_fault]);
}

static __attribute__((noinline)) void ud_on_ap(unsigned cpu, void *arg)
{
    (void)cpu;
    (void)arg;
    __asm__ volatile("ud2");
}

/* fault=ap: an invalid opcode on the last CPU up, which must report it as the boot CPU would. */
static void raise_fault_on_ap(void)
{
    if (opt_fault != FAULT_AP)
        return;
    if (smp_ncpus < 2)
        panic("fault=ap needs a second CPU, and only the boot CPU is up");
    smp_call(1ull << (smp_ncpus - 1), ud_on_ap, NULL, NULL);
    panic("fault=ap: CPU %u did not fault", smp_ncpus - 1);
}

/*
 * The work the command line asks for: none (memonly), the self-tests, or
 * the benchmark and its final screen.
 */
static int run_work(struct err *e)
{
    if (opt_memonly)
        return 0;
    if (opt_selftest)
        return selftest_run_all(e);
    int rc = bench_main(e);
    if (rc)
        return rc;
    /* The final screen: the report, and the results as a QR code. */
    qrscreen_results(report_text(), report_payload());
    return 0;
}

static void print_banner(void)
{
    printk("\nbootheap %s: how fast can a kernel hand its boot memory to its buddy heap?\n",
           BOOTHEAP_VERSION);
    if (!serial_present())
        printk("no serial port found: records go nowhere, the screen shows the report\n");
}

__noreturn void kstart(uint32_t loader, uint32_t magic, uint32_t info, uint32_t load_offset);

__noreturn void kstart(uint32_t loader, uint32_t magic, uint32_t info, uint32_t load_offset)
{
    struct err e;

    /* Where the loader put the image: every physical address of it adds this. */
    kimage_offset = load_offset;
    /* Serial first: everything after this can speak. */
    serial_init();
    /* CPU identity: the exit path needs to know whether QEMU runs us. */
    cpu_init();
    /* Exceptions: from here a fault prints a report instead of rebooting. */
    traps_init();
    /* Boot information: the last read of the loader's own format. */
    parse_bootinfo(loader, magic, info);
    /* The screen, when the loader set up a framebuffer. */
    screen_init(&bootinfo.fb);
    /* Who we are, on every console. */
    print_banner();
    /* Options for every subsystem. */
    cmdline_apply(bootinfo.cmdline);
    /* `help`: the option registry, then stop. */
    if (cmdline_help())
        machine_done();
    /* What the loader and the CPU said: text and the boot record. */
    bootinfo_report(&bootinfo);
    /* fault=...: the fatal-error paths, taken on purpose. */
    raise_fault();
    /* The other CPUs' way in: pages below 1 MiB, kept from the boot allocator. */
    smp_reserve_trampoline();
    /* Memory: the map, the boot allocator, page tables, frame table. */
    mm_init(&bootinfo);
    /* probe: time what picks the accelerator, before calibration, and exit. */
    probe_maybe_run();
    /* The TSC's rate, with ACPI tables and the HPET mapped properly now:
     * every figure after this is ticks turned into ns. */
    time_init(&bootinfo, phys_map);
    /* CPUs and NUMA nodes from the MADT and SRAT, or one of each. */
    topo_init(&e820);
    /* Every other CPU started and parked; the TSC skew between them. */
    smp_init();
    raise_fault_on_ap();
    /* The heap's memory: whatever the boot allocator still holds, less the
     * page arrays of the peers (Linux, FreeBSD) that will run. */
    mm_heap_takeover(opt_memonly ? 0 : peer_layouts_wanted());
    /* The work: stop here (memonly), the self-tests (KTAP), or the benchmark. */
    if (run_work(&e))
        machine_fail(e.msg);
    machine_done();
}
