/* SPDX-License-Identifier: MIT */
/* Finding one ACPI table by its signature, from the RSDP through the XSDT or RSDT. */
#ifndef KERNEL_ACPI_ACPI_FIND_H
#define KERNEL_ACPI_ACPI_FIND_H

#include <stdint.h>

#include "kernel/acpi/acpi.h"
#include "kernel/lib/errno.h"

/*
 * The first table called sig (4 characters) that the root table lists:
 * *tbl points at its *len bytes (length bounded by ACPI_TABLE_MAX, checksum
 * left to the table's parser) for as long as phys keeps it mapped. Uses the
 * XSDT when the RSDP is ACPI 2.0 and sound, else the RSDT. Returns 0,
 * -ENOENT when no root table lists sig, or -EINVAL when the RSDP or root
 * table is unusable; e says which.
 */
int acpi_table_find(const uint8_t *rsdp, uint32_t rsdp_len, const char *sig, phys_read_fn phys,
                    void *ctx, const uint8_t **tbl, uint32_t *len, struct err *e);

#endif
