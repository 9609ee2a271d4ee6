/* SPDX-License-Identifier: MIT */
/*
 * The machine's CPUs and NUMA nodes, from the ACPI MADT, SRAT and SLIT.
 * Pure parsing and checking over table bytes, so that host tests and the
 * fuzzer drive it; kernel/acpi/topo_boot.c finds the tables and reports.
 */
#ifndef KERNEL_ACPI_TOPO_H
#define KERNEL_ACPI_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "mm/e820.h"

#define TOPO_MAX_CPUS       64      /* enabled CPUs the kernel supports */
#define TOPO_MAX_NODES      8       /* == MAX_NUMNODES (mm/numa.h asserts it) */
#define TOPO_MAX_MEMBLKS    64      /* SRAT memory ranges kept */
#define TOPO_MAX_AFFINITY   256     /* SRAT processor entries kept (possible CPUs) */
#define TOPO_NO_NODE        0xffu

/* Entry types and flags (ACPI 6.5, sections 5.2.12 and 5.2.16). */
#define MADT_LAPIC          0
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC         9
#define MADT_ENABLED        (1u << 0)
#define MADT_ONLINE_CAPABLE (1u << 1)
#define SRAT_CPU            0
#define SRAT_MEMORY         1
#define SRAT_X2APIC         2
#define SRAT_ENABLED        (1u << 0)
#define SRAT_HOTPLUG        (1u << 1)

struct topo_cpu {
    uint32_t apic_id;
    uint32_t uid;               /* ACPI processor UID */
    uint8_t node;               /* TOPO_NO_NODE until SRAT says */
    bool x2apic;                /* listed by an x2APIC entry */
};

/* A memory range on one node: bytes [start, end). */
struct topo_memblk {
    uint64_t start, end;
    uint8_t node;
    bool hotplug;
};

struct topo_affinity {
    uint32_t apic_id;
    uint8_t node;
};

/*
 * What the tables say, after topo_finish(): enabled CPUs (the boot CPU
 * among them), nodes numbered 0.. in the order the SRAT first names their
 * proximity domains, memory ranges sorted by address. A node may have
 * memory and no CPU, or CPUs and no memory: ACPI allows both and so does
 * the kernel. fallback says why the tables were not used, when they were
 * not: the machine is then one CPU and one node.
 */
struct topo {
    bool madt, srat, slit;      /* table found and parsed */
    uint64_t lapic_base;        /* physical, from the MADT (or its override) */
    unsigned ncpus;
    struct topo_cpu cpu[TOPO_MAX_CPUS];
    unsigned cpus_disabled;     /* listed, not enabled, not online-capable */
    unsigned cpus_hotplug;      /* listed as online-capable: not started at boot */
    unsigned nnodes;
    uint32_t node_pxm[TOPO_MAX_NODES];
    unsigned nmemblks;
    struct topo_memblk mem[TOPO_MAX_MEMBLKS];
    unsigned nskipped_mem;      /* disabled or hot-pluggable-and-absent ranges */
    unsigned naff;
    struct topo_affinity aff[TOPO_MAX_AFFINITY];
    uint8_t distance[TOPO_MAX_NODES][TOPO_MAX_NODES];  /* SLIT, when slit */
    bool fallback;
    char fallback_reason[192];
};

/* Empties t: no tables seen yet. */
void topo_reset(struct topo *t);

/*
 * Parses a MADT of len bytes (header included): length, checksum and every
 * entry's bounds are checked first. Adds the enabled local APIC and x2APIC
 * entries as CPUs and counts the others. Returns 0, -EINVAL for a bad
 * checksum, a truncated entry or a repeated APIC id, or -E2BIG for more
 * than TOPO_MAX_CPUS enabled CPUs; e says which.
 */
int topo_parse_madt(struct topo *t, const uint8_t *tbl, uint32_t len, struct err *e);

/*
 * Parses an SRAT: processor and x2APIC affinity (enabled entries only) and
 * memory affinity (enabled ranges; hot-pluggable ones kept for
 * topo_finish() to clip to the memory map). Returns 0, -EINVAL (checksum,
 * truncated entry), -ERANGE (a range that wraps or ends above 16 TiB) or
 * -E2BIG (more nodes, ranges or processor entries than supported).
 */
int topo_parse_srat(struct topo *t, const uint8_t *tbl, uint32_t len, struct err *e);

/*
 * Parses a SLIT after the SRAT: the distances between the nodes the SRAT
 * named. Only for reports: returns 0 or -EINVAL, and on failure t keeps no
 * distances (t->slit false) and nothing else changes.
 */
int topo_parse_slit(struct topo *t, const uint8_t *tbl, uint32_t len, struct err *e);

/*
 * Checks the whole against the sanitised memory map and the boot CPU:
 * the boot CPU is listed; with an SRAT, every CPU has a node, the table
 * names some CPU and some memory, ranges do not overlap, and every page of
 * RAM lies in a range. Hot-pluggable ranges keep only what the map has as
 * RAM. Without a MADT the machine is the boot CPU alone. Returns 0 or a
 * negative errno with e filled; the caller then calls topo_fallback().
 */
int topo_finish(struct topo *t, const struct e820_map *map, uint32_t boot_apic_id,
                struct err *e);

/* Makes t one CPU (boot_apic_id) on one node, keeping why in t. */
void topo_fallback(struct topo *t, uint32_t boot_apic_id, const char *why);

/* Index of the CPU with apic_id in t->cpu, or -1. */
int topo_cpu_index(const struct topo *t, uint32_t apic_id);

/* ---- the kernel's topology (kernel/acpi/topo_boot.c) ---- */

extern struct topo topo;

/*
 * Reads the MADT, SRAT and SLIT through the loader's RSDP, checks them
 * against map (the sanitised memory map), prints what they say, and on any
 * problem prints a warning and falls back to one CPU and one node. After
 * mm_init() (tables are read through the page tables); never fails.
 */
void topo_init(const struct e820_map *map);

#endif
