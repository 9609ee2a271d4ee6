/* SPDX-License-Identifier: MIT */
/* Ending a run: the done record, then QEMU's isa-debug-exit or a halt. */
#ifndef KERNEL_EXIT_H
#define KERNEL_EXIT_H

#include "kernel/cpu.h"
#include "kernel/lib/compiler.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1 };

/*
 * isa-debug-exit at port 0xf4: QEMU exits with (v << 1) | 1, so success is
 * 33 and failure 35. Any other status (1 for QEMU's own errors, 124 for a
 * timeout) means the kernel never got to say.
 */
#define DEBUG_EXIT_PORT  0xf4
#define DEBUG_EXIT_OK    0x10
#define DEBUG_EXIT_FAIL  0x11

/* exit= on the command line: how a run ends. */
enum exit_mode {
    EXIT_MODE_AUTO,     /* isa-debug-exit when CPUID says KVM or TCG */
    EXIT_MODE_QEMU,     /* always write isa-debug-exit */
    EXIT_MODE_HALT,     /* never: print and halt, as on real hardware */
};

/*
 * Whether a run ends through QEMU's exit device: always with qemu, never
 * with halt, and with auto when CPUID names KVM or TCG (QEMU is there).
 */
static inline bool exit_via_port(enum exit_mode m, enum accel a)
{
    return m == EXIT_MODE_QEMU || (m == EXIT_MODE_AUTO && (a == ACCEL_KVM || a == ACCEL_TCG));
}

/* Prints {"type":"done","status":"ok"} and ends the run. */
__noreturn void machine_done(void);

/* Prints the reason and {"type":"done","status":"fail"}, and ends the run. */
__noreturn void machine_fail(const char *why);

/* Ends the run with the given status without printing a record. */
__noreturn void machine_exit(int status);

#endif
