/* SPDX-License-Identifier: MIT */
/*
 * The local APIC, in xAPIC mode (registers in memory) or x2APIC mode
 * (registers as MSRs): identity, inter-processor interrupts, EOI.
 */
#ifndef KERNEL_SMP_APIC_H
#define KERNEL_SMP_APIC_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_WAKE_VECTOR        0xf0    /* wakes a parked CPU (kernel/smp/smp.c) */
#define APIC_SPURIOUS_VECTOR    0xff

enum apic_mode { APIC_XAPIC, APIC_X2APIC };

extern enum apic_mode apic_mode;

/* The boot CPU's APIC id from CPUID (leaf 0xB when it has x2APIC, else leaf 1). */
uint32_t apic_boot_id(void);

/* True when CPUID 1 ECX bit 21 says this CPU has x2APIC mode. */
bool apic_has_x2apic(void);

/*
 * Sets up the boot CPU's local APIC: the mode (apic= on the command line;
 * auto keeps x2APIC when the firmware enabled it and takes it when an APIC
 * id above 254 needs it), software enable, the spurious vector. max_id is
 * the highest APIC id to be started. Never fails: a mode the CPU lacks is
 * reported and xAPIC used.
 */
void apic_init_boot(uint32_t max_id);

/* The same on an application processor, in the mode the boot CPU chose. */
void apic_init_ap(void);

/* This CPU's APIC id, from the APIC itself. */
uint32_t apic_id(void);

/* INIT (assert, then de-assert) to the CPU with APIC id id. */
void apic_send_init(uint32_t id);

/* STARTUP to id: it starts in real mode at page << 12 (page < 0x100). */
void apic_send_startup(uint32_t id, uint8_t page);

/* A fixed interrupt with vector to id. */
void apic_send_ipi(uint32_t id, uint8_t vector);

/* Ends the interrupt in service. */
void apic_eoi(void);

#endif
