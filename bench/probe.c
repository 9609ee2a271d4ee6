// SPDX-License-Identifier: MIT
// The accelerator probe: memory writes, PIT port reads and the frame-table
// setup, timed in TSC ticks, one record each; the host turns them into time.
#include "bench/probe.h"

#include "kernel/cmdline.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "kernel/lib/libc.h"
#include "mm/bootmem.h"
#include "mm/frametable.h"
#include "mm/paging.h"

#define PROBE_WRITE_BYTES   MiB(64)
#define PROBE_PIT_READS     4096u
#define PROBE_PORTB         0x61    /* what calibration polls for the PIT's OUT2 */

static bool opt_probe;

CMDLINE_OPT(probe, .key = "probe", .type = OPT_FLAG, .dst = &opt_probe,
            .help = "time a 64 MiB write, PIT reads and the frame-table setup, then exit");

/* An ordered TSC read: nothing before it runs after, nothing after it before. */
static uint64_t probe_tsc(void)
{
    uint64_t t;

    lfence();
    t = rdtsc();
    lfence();
    return t;
}

/* One `probe` record: the item, its size, its ticks and the TSC now. */
static void probe_record(const char *item, const char *unit, uint64_t amount, uint64_t ticks)
{
    struct record r;

    record_begin(&r, "probe");
    record_str(&r, "item", item);
    if (unit)
        record_u64(&r, unit, amount);
    record_u64(&r, "ticks", ticks);
    record_u64(&r, "tsc", probe_tsc());
    record_end(&r);
}

void probe_maybe_run(void)
{
    uint64_t mfn, t0, ticks;
    volatile uint8_t sink = 0;

    if (!opt_probe)
        return;
    printk("probe: frame-table setup, a 64 MiB write, %u PIT port reads\n", PROBE_PIT_READS);
    probe_record("start", NULL, 0, 0);
    probe_record("frametable", "bytes", frametable.bytes + frametable.m2p_bytes,
                 frametable.setup_ticks);

    if (bootmem_alloc(&bootmem, PROBE_WRITE_BYTES >> PAGE_SHIFT, 512, UINT64_MAX, &mfn))
        machine_fail("probe: no 64 MiB of boot memory to write (boot the probe with 256 MiB or more)");
    t0 = probe_tsc();
    memset(phys_to_virt(mfn << PAGE_SHIFT), 0x5a, PROBE_WRITE_BYTES);
    ticks = probe_tsc() - t0;
    probe_record("write", "bytes", PROBE_WRITE_BYTES, ticks);

    t0 = probe_tsc();
    for (unsigned i = 0; i < PROBE_PIT_READS; i++)
        sink ^= inb(PROBE_PORTB);
    ticks = probe_tsc() - t0;
    (void)sink;
    probe_record("pit_reads", "reads", PROBE_PIT_READS, ticks);
    machine_done();
}
