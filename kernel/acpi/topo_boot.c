// SPDX-License-Identifier: MIT
// topo_init(): the firmware's CPUs and nodes, read once, checked, printed;
// a bad table costs NUMA and the other CPUs, never the run.
#include "kernel/acpi/acpi_find.h"
#include "kernel/acpi/topo.h"
#include "kernel/bootinfo/bootinfo.h"
#include "kernel/console/printk.h"
#include "kernel/lib/string.h"
#include "kernel/smp/apic.h"
#include "mm/paging.h"

struct topo topo;

static const void *acpi_map(uint64_t paddr, uint64_t len, void *ctx)
{
    (void)ctx;
    return phys_map(paddr, len, false);
}

typedef int (*table_parser)(struct topo *t, const uint8_t *tbl, uint32_t len, struct err *e);

/* Parses table sig when present: 0 when absent or sound, else the parser's error. */
static int parse_table(const char *sig, table_parser parse, struct err *e)
{
    const uint8_t *tbl;
    uint32_t len;
    int rc = acpi_table_find(bootinfo.rsdp, bootinfo.rsdp_len, sig, acpi_map, NULL, &tbl, &len, e);

    if (rc == -ENOENT)
        return 0;
    if (rc && !strcmp(sig, "APIC"))
        return 0;                       /* no usable ACPI at all: one CPU, nothing wrong */
    return rc ? rc : parse(&topo, tbl, len, e);
}

static void print_topo(void)
{
    printk("cpus: %u enabled in the %s", topo.ncpus, topo.madt ? "MADT" : "(no MADT)");
    if (topo.cpus_hotplug || topo.cpus_disabled)
        printk(", %u online-capable and %u disabled left out", topo.cpus_hotplug,
               topo.cpus_disabled);
    if (topo.srat)
        printk("; %u node%s in the SRAT\n", topo.nnodes, topo.nnodes == 1 ? "" : "s");
    else
        printk("; no SRAT\n");
    for (unsigned i = 0; i < topo.nmemblks; i++)
        printk("  SRAT: node %u (domain %u) [0x%llx-0x%llx)%s\n", topo.mem[i].node,
               topo.node_pxm[topo.mem[i].node], (unsigned long long)topo.mem[i].start,
               (unsigned long long)topo.mem[i].end, topo.mem[i].hotplug ? " hot-pluggable" : "");
}

void topo_init(const struct e820_map *map)
{
    uint32_t boot_id = apic_boot_id();
    struct err e;
    int rc;

    topo_reset(&topo);
    rc = parse_table("APIC", topo_parse_madt, &e);
    if (!rc)
        rc = parse_table("SRAT", topo_parse_srat, &e);
    if (!rc && topo.srat) {
        struct err se;
        if (parse_table("SLIT", topo_parse_slit, &se))
            printk("warning: %s; node distances are not reported\n", se.msg);
    }
    if (!rc)
        rc = topo_finish(&topo, map, boot_id, &e);
    if (rc) {
        printk("warning: firmware tables unusable: %s\n"
               "warning: falling back to one CPU and one node\n", e.msg);
        topo_fallback(&topo, boot_id, e.msg);
    }
    print_topo();
}
