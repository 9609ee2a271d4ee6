/* SPDX-License-Identifier: MIT */
/*
 * The ACPI tables that timekeeping needs: RSDP, RSDT or XSDT, the FADT's PM
 * timer and the HPET table. Pure parsing over a physical-memory reader, so
 * the host tests feed it synthetic tables. Every table is length- and
 * checksum-checked; a bad one is noted and skipped, never trusted.
 */
#ifndef KERNEL_ACPI_ACPI_H
#define KERNEL_ACPI_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "kernel/lib/physread.h"

#define ACPI_HDR_LEN        36u
#define ACPI_TABLE_MAX      (1u << 20)  /* a longer table is a lie */
#define ACPI_ROOT_ENTRIES_MAX 256u      /* entries walked in the RSDT/XSDT */
#define ACPI_NOTES_MAX      8u
#define ACPI_NOTE_LEN       112u

/* FADT fields (ACPI 6.5, table 5.9), byte offsets. */
#define FADT_PM_TMR_BLK     76u
#define FADT_PM_TMR_LEN     91u
#define FADT_FLAGS          112u
#define FADT_LEN_V1         116u        /* ACPI 1.0 FADT: up to and with Flags */
#define FADT_X_PM_TMR_BLK   208u
#define FADT_LEN_X_PM_TMR   220u        /* with the 12-byte X_PM_TMR_BLK */
#define FADT_TMR_VAL_EXT    (1u << 8)   /* PM timer counts 32 bits, not 24 */
#define FADT_HW_REDUCED     (1u << 20)  /* no fixed hardware: no PM timer */

/* HPET description table fields (IA-PC HPET spec 1.0a, table 3). */
#define HPET_TBL_BASE_GAS   40u
#define HPET_TBL_LEN        56u

#define ACPI_GAS_MEMORY     0u
#define ACPI_GAS_IO         1u

enum acpi_state { ACPI_ABSENT, ACPI_OK, ACPI_BAD };

struct acpi_timers {
    const char *root;               /* "XSDT" or "RSDT"; NULL when none was usable */
    enum acpi_state pm;             /* the FADT's PM timer */
    uint16_t pm_port;
    bool pm_32bit;                  /* FADT TMR_VAL_EXT */
    enum acpi_state hpet;
    uint64_t hpet_base;             /* physical address of the register block */
    unsigned nnotes;                /* problems found, in the order met */
    char notes[ACPI_NOTES_MAX][ACPI_NOTE_LEN];
};

/* True when the len bytes at p sum to 0 modulo 256. */
bool acpi_checksum_ok(const void *p, size_t len);

/*
 * Finds the PM timer and the HPET from a copy of the RSDP (rsdp_len 20 or 36;
 * 0 means the loader gave none). Pointers from phys are used only during the
 * call. Returns 0 when a root table was read; -ENOENT when the loader gave
 * no RSDP or the RSDP names no root table; -EINVAL when the RSDP, or every
 * root table it names, is unusable. Either way out holds what was found,
 * and its notes say why anything was skipped.
 */
int acpi_find_timers(const uint8_t *rsdp, uint32_t rsdp_len, phys_read_fn phys, void *ctx,
                     struct acpi_timers *out);

#endif
