// SPDX-License-Identifier: MIT
// The end of every run. Under QEMU the exit status carries the verdict; on
// real hardware the last lines stay on the screen and the CPU halts.
#include "kernel/exit.h"

#include "kernel/cmdline.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/cpu.h"

static const char *const exit_mode_names[] = {
    [EXIT_MODE_AUTO] = "auto",
    [EXIT_MODE_QEMU] = "qemu",
    [EXIT_MODE_HALT] = "halt",
};
static enum exit_mode mode = EXIT_MODE_AUTO;
CMDLINE_CHOICE(exit, mode, exit_mode_names,
               "how a run ends: auto (QEMU exit device under KVM/TCG), qemu, or halt");

__noreturn void machine_exit(int status)
{
    bool port = exit_via_port(mode, cpu.accel);

    __asm__ volatile("cli");
    if (port)
        outl(DEBUG_EXIT_PORT, status == EXIT_OK ? DEBUG_EXIT_OK : DEBUG_EXIT_FAIL);
    /* Real hardware, or QEMU without the exit device: stay here. */
    for (;;)
        __asm__ volatile("hlt");
}

__noreturn void machine_done(void)
{
    struct record r;

    record_begin(&r, "done");
    record_str(&r, "status", "ok");
    record_end(&r);
    printk("bootheap: finished, status ok\n");
    machine_exit(EXIT_OK);
}

__noreturn void machine_fail(const char *why)
{
    struct record r;

    record_begin(&r, "done");
    record_str(&r, "status", "fail");
    record_str(&r, "reason", why);
    record_end(&r);
    printk("bootheap: finished, status FAIL (%s)\n", why);
    machine_exit(EXIT_FAIL);
}
