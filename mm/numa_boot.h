/* SPDX-License-Identifier: MIT */
/*
 * The kernel's node map (mm/numa_boot.c): built once at boot from the SRAT
 * or fake nodes with mm/numa.h's rules, then reported with each node's
 * memory, handed-over pages and CPUs.
 */
#ifndef MM_NUMA_BOOT_H
#define MM_NUMA_BOOT_H

#include <stdint.h>

struct record;

/*
 * Builds the live node map for frames below max_pfn: from the SRAT when
 * kernel/acpi/topo_boot.c accepted one, else fake equal runs of whole 1 GiB
 * granules (fake > 1), else one node. A map larger than the static one
 * comes from the boot allocator. A map that cannot be built is reported
 * and replaced by one node. Returns the number of nodes.
 */
unsigned numa_boot_init(uint64_t max_pfn, unsigned fake);

/* Prints a line per node: its span, pages handed over, CPUs. */
void numa_boot_print(void);

/* Adds the memory record's node_map object to r. */
void numa_boot_report(struct record *r);

#endif
