/* SPDX-License-Identifier: MIT */
/* The bootinfo fuzz target's firmware-tables mode, apart from its boot-info and ACPI modes. */
#ifndef TESTS_FUZZ_TOPO_H
#define TESTS_FUZZ_TOPO_H

#include <stddef.h>
#include <stdint.h>

/*
 * buf as a MADT, an SRAT and a SLIT back to back, each as long as its header
 * says (or what is left), through topo_parse_*() and topo_finish() against
 * a fixed map; aborts on a broken invariant.
 */
void fuzz_topo(const uint8_t *buf, size_t size);

#endif
