// SPDX-License-Identifier: MIT
// MADT, SRAT and SLIT parsing and the checks that decide whether the
// firmware's CPUs and nodes are used or the machine falls back to one of each.
#include "kernel/acpi/topo.h"

#include "kernel/acpi/acpi.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"
#include "mm/layout.h"

#define MADT_ENTRIES    44u     /* header, local APIC address, flags */
#define SRAT_ENTRIES    48u     /* header, reserved (4 + 8) */
#define SLIT_ENTRIES    44u     /* header, number of localities (8) */

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

void topo_reset(struct topo *t)
{
    memset(t, 0, sizeof(*t));
}

int topo_cpu_index(const struct topo *t, uint32_t apic_id)
{
    for (unsigned i = 0; i < t->ncpus; i++)
        if (t->cpu[i].apic_id == apic_id)
            return (int)i;
    return -1;
}

/* Length, signature and checksum of a whole table before any field is read. */
static int table_check(const uint8_t *tbl, uint32_t len, const char *sig, uint32_t min,
                       struct err *e)
{
    if (len < min || rd32(tbl + 4) != len)
        return err_set(e, -EINVAL, "%s: %u bytes, header says %u (at least %u needed)", sig,
                       len, len >= 8 ? rd32(tbl + 4) : 0, min);
    if (memcmp(tbl, sig, 4))
        return err_set(e, -EINVAL, "%s: wrong signature", sig);
    if (!acpi_checksum_ok(tbl, len))
        return err_set(e, -EINVAL, "%s: bad checksum", sig);
    return 0;
}

/*
 * The next entry of a table of subtables {u8 type, u8 length, ...}: NULL at
 * the end, or with *rc set when an entry is cut short or claims less than
 * its own header or than its type needs (min[type], 0 for unknown types).
 */
static const uint8_t *next_entry(const uint8_t *tbl, uint32_t len, uint32_t *off,
                                 const uint8_t *min, unsigned nmin, const char *sig,
                                 int *rc, struct err *e)
{
    const uint8_t *p = tbl + *off;
    uint8_t type, elen;

    if (*off == len)
        return NULL;
    if (len - *off < 2) {
        *rc = err_set(e, -EINVAL, "%s: entry at offset %u is cut short", sig, *off);
        return NULL;
    }
    type = p[0];
    elen = p[1];
    if (elen < 2 || elen > len - *off || (type < nmin && elen < min[type])) {
        *rc = err_set(e, -EINVAL, "%s: entry type %u at offset %u has length %u (%u bytes left)",
                      sig, type, *off, elen, len - *off);
        return NULL;
    }
    *off += elen;
    return p;
}

static int add_cpu(struct topo *t, uint32_t apic_id, uint32_t uid, uint32_t flags, bool x2,
                   struct err *e)
{
    if (!(flags & MADT_ENABLED)) {
        if (flags & MADT_ONLINE_CAPABLE)
            t->cpus_hotplug++;
        else
            t->cpus_disabled++;
        return 0;
    }
    if (topo_cpu_index(t, apic_id) >= 0)
        return err_set(e, -EINVAL, "MADT: APIC id %u is listed twice", apic_id);
    if (t->ncpus == TOPO_MAX_CPUS)
        return err_set(e, -E2BIG, "MADT: more than %u enabled CPUs", TOPO_MAX_CPUS);
    t->cpu[t->ncpus++] = (struct topo_cpu){ apic_id, uid, TOPO_NO_NODE, x2 };
    return 0;
}

int topo_parse_madt(struct topo *t, const uint8_t *tbl, uint32_t len, struct err *e)
{
    static const uint8_t min[] = { [MADT_LAPIC] = 8, [MADT_LAPIC_OVERRIDE] = 12,
                                   [MADT_X2APIC] = 16 };
    uint32_t off = MADT_ENTRIES;
    const uint8_t *p;
    int rc = table_check(tbl, len, "APIC", MADT_ENTRIES, e);

    if (rc)
        return rc;
    t->lapic_base = rd32(tbl + 36);
    while ((p = next_entry(tbl, len, &off, min, ARRAY_SIZE(min), "MADT", &rc, e))) {
        if (p[0] == MADT_LAPIC && p[3] == 0xff)
            t->cpus_disabled++;         /* 0xff is the broadcast id, never a CPU */
        else if (p[0] == MADT_LAPIC)
            rc = add_cpu(t, p[3], p[2], rd32(p + 4), false, e);
        else if (p[0] == MADT_X2APIC)
            rc = add_cpu(t, rd32(p + 4), rd32(p + 12), rd32(p + 8), true, e);
        else if (p[0] == MADT_LAPIC_OVERRIDE)
            t->lapic_base = rd64(p + 4);
        if (rc)
            return rc;
    }
    if (rc)
        return rc;
    t->madt = true;
    return 0;
}

/* Xen's setup_node(): the node of a proximity domain, numbered on first sight. */
static int pxm_node(struct topo *t, uint32_t pxm, struct err *e)
{
    for (unsigned n = 0; n < t->nnodes; n++)
        if (t->node_pxm[n] == pxm)
            return (int)n;
    if (t->nnodes == TOPO_MAX_NODES)
        return err_set(e, -E2BIG, "SRAT: more than %u proximity domains", TOPO_MAX_NODES);
    t->node_pxm[t->nnodes] = pxm;
    return (int)t->nnodes++;
}

static int add_affinity(struct topo *t, uint32_t apic_id, uint32_t pxm, struct err *e)
{
    int node = pxm_node(t, pxm, e);

    if (node < 0)
        return node;
    if (t->naff == TOPO_MAX_AFFINITY)
        return err_set(e, -E2BIG, "SRAT: more than %u processor entries", TOPO_MAX_AFFINITY);
    t->aff[t->naff++] = (struct topo_affinity){ apic_id, (uint8_t)node };
    return 0;
}

static int add_memory(struct topo *t, const uint8_t *p, bool rev1, struct err *e)
{
    uint32_t pxm = rd32(p + 2), flags = rd32(p + 28);
    uint64_t base = rd64(p + 8), size = rd64(p + 16);
    int node;

    if (rev1)
        pxm &= 0xff;                    /* SRAT revision 1 defined one byte */
    if (!(flags & SRAT_ENABLED) || size == 0) {
        t->nskipped_mem += (flags & SRAT_ENABLED) ? 0 : 1;
        return 0;
    }
    if (base + size < base || base + size > MAX_PHYS_ADDR)
        return err_set(e, -ERANGE, "SRAT: memory [0x%llx, +0x%llx) for domain %u is out of "
                       "range (the kernel supports 16 TiB)", (unsigned long long)base,
                       (unsigned long long)size, pxm);
    node = pxm_node(t, pxm, e);
    if (node < 0)
        return node;
    if (t->nmemblks == TOPO_MAX_MEMBLKS)
        return err_set(e, -E2BIG, "SRAT: more than %u memory ranges", TOPO_MAX_MEMBLKS);
    t->mem[t->nmemblks++] = (struct topo_memblk){ base, base + size, (uint8_t)node,
                                                  (flags & SRAT_HOTPLUG) != 0 };
    return 0;
}

int topo_parse_srat(struct topo *t, const uint8_t *tbl, uint32_t len, struct err *e)
{
    static const uint8_t min[] = { [SRAT_CPU] = 16, [SRAT_MEMORY] = 40, [SRAT_X2APIC] = 24 };
    uint32_t off = SRAT_ENTRIES;
    const uint8_t *p;
    bool rev1;
    int rc = table_check(tbl, len, "SRAT", SRAT_ENTRIES, e);

    if (rc)
        return rc;
    rev1 = tbl[8] < 2;
    while ((p = next_entry(tbl, len, &off, min, ARRAY_SIZE(min), "SRAT", &rc, e))) {
        if (p[0] == SRAT_CPU && (rd32(p + 4) & SRAT_ENABLED)) {
            uint32_t pxm = p[2];
            if (!rev1)
                pxm |= (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
            rc = add_affinity(t, p[3], pxm, e);
        } else if (p[0] == SRAT_X2APIC && (rd32(p + 12) & SRAT_ENABLED)) {
            rc = add_affinity(t, rd32(p + 8), rd32(p + 4), e);
        } else if (p[0] == SRAT_MEMORY) {
            rc = add_memory(t, p, rev1, e);
        }
        if (rc)
            return rc;
    }
    if (rc)
        return rc;
    t->srat = true;
    return 0;
}

int topo_parse_slit(struct topo *t, const uint8_t *tbl, uint32_t len, struct err *e)
{
    uint64_t n;
    int rc = table_check(tbl, len, "SLIT", SLIT_ENTRIES, e);

    t->slit = false;
    if (rc)
        return rc;
    n = rd64(tbl + 36);
    if (n == 0 || n > 0xffff || n * n > len - SLIT_ENTRIES)
        return err_set(e, -EINVAL, "SLIT: %llu localities do not fit in %u bytes",
                       (unsigned long long)n, len);
    for (unsigned a = 0; a < t->nnodes; a++) {
        for (unsigned b = 0; b < t->nnodes; b++) {
            uint64_t pa = t->node_pxm[a], pb = t->node_pxm[b];
            if (pa >= n || pb >= n)
                return err_set(e, -EINVAL, "SLIT: %llu localities, SRAT names domain %llu",
                               (unsigned long long)n, (unsigned long long)MAX(pa, pb));
        }
    }
    for (unsigned a = 0; a < t->nnodes; a++)
        for (unsigned b = 0; b < t->nnodes; b++)
            t->distance[a][b] = tbl[SLIT_ENTRIES + t->node_pxm[a] * n + t->node_pxm[b]];
    t->slit = true;
    return 0;
}

/* Insertion sort by start: a few dozen ranges at most. */
static void sort_memblks(struct topo *t)
{
    for (unsigned i = 1; i < t->nmemblks; i++) {
        struct topo_memblk m = t->mem[i];
        unsigned j = i;
        for (; j > 0 && t->mem[j - 1].start > m.start; j--)
            t->mem[j] = t->mem[j - 1];
        t->mem[j] = m;
    }
}

/*
 * A hot-pluggable range gives boot memory only where the map has RAM: it is
 * cut to the first and last RAM byte inside it, or dropped.
 */
static void clip_hotplug(struct topo *t, const struct e820_map *map)
{
    unsigned out = 0;

    for (unsigned i = 0; i < t->nmemblks; i++) {
        struct topo_memblk m = t->mem[i];
        if (m.hotplug) {
            uint64_t lo = UINT64_MAX, hi = 0;
            for (unsigned k = 0; k < map->count; k++) {
                const struct mmap_entry *x = &map->e[k];
                uint64_t a = MAX(m.start, x->addr), b = MIN(m.end, x->addr + x->len);
                if (x->type == E820_RAM && a < b) {
                    lo = MIN(lo, a);
                    hi = MAX(hi, b);
                }
            }
            if (lo >= hi) {
                t->nskipped_mem++;
                continue;
            }
            m.start = lo;
            m.end = hi;
        }
        t->mem[out++] = m;
    }
    t->nmemblks = out;
}

/* Every page of RAM lies in some range: Xen's nodes_cover_memory(). */
static int check_cover(const struct topo *t, const struct e820_map *map, struct err *e)
{
    for (unsigned i = 0; i < map->count; i++) {
        const struct mmap_entry *x = &map->e[i];
        uint64_t s = ALIGN_UP(x->addr, PAGE_SIZE), end = ALIGN_DOWN(x->addr + x->len, PAGE_SIZE);
        uint64_t covered = 0;

        if (x->type != E820_RAM || s >= end || s >= MAX_PHYS_ADDR)
            continue;
        end = MIN(end, MAX_PHYS_ADDR);
        for (unsigned k = 0; k < t->nmemblks; k++) {
            uint64_t lo = MAX(s, t->mem[k].start), hi = MIN(end, t->mem[k].end);
            if (lo < hi)
                covered += hi - lo;
        }
        if (covered != end - s)
            return err_set(e, -EINVAL, "SRAT: RAM [0x%llx, 0x%llx) is not all in a memory range",
                           (unsigned long long)s, (unsigned long long)end);
    }
    return 0;
}

static int finish_srat(struct topo *t, const struct e820_map *map, struct err *e)
{
    if (!t->naff)
        return err_set(e, -EINVAL, "SRAT: memory ranges but no processor affinity: no CPU "
                       "has a node");
    clip_hotplug(t, map);
    if (!t->nmemblks)
        return err_set(e, -EINVAL, "SRAT: processors but no enabled memory range: no memory "
                       "has a node");
    sort_memblks(t);
    for (unsigned i = 1; i < t->nmemblks; i++)
        if (t->mem[i].start < t->mem[i - 1].end)
            return err_set(e, -EINVAL, "SRAT: memory ranges [0x%llx, 0x%llx) and [0x%llx, "
                           "0x%llx) overlap", (unsigned long long)t->mem[i - 1].start,
                           (unsigned long long)t->mem[i - 1].end,
                           (unsigned long long)t->mem[i].start, (unsigned long long)t->mem[i].end);
    for (unsigned c = 0; c < t->ncpus; c++) {
        for (unsigned a = 0; a < t->naff && t->cpu[c].node == TOPO_NO_NODE; a++)
            if (t->aff[a].apic_id == t->cpu[c].apic_id)
                t->cpu[c].node = t->aff[a].node;
        if (t->cpu[c].node == TOPO_NO_NODE)
            return err_set(e, -EINVAL, "SRAT: CPU with APIC id %u has no processor affinity",
                           t->cpu[c].apic_id);
    }
    return check_cover(t, map, e);
}

int topo_finish(struct topo *t, const struct e820_map *map, uint32_t boot_apic_id,
                struct err *e)
{
    if (!t->madt) {
        topo_fallback(t, boot_apic_id, "no MADT: the boot CPU alone");
        t->fallback = false;            /* nothing was wrong, there was nothing to read */
        return 0;
    }
    if (topo_cpu_index(t, boot_apic_id) < 0)
        return err_set(e, -EINVAL, "MADT: the boot CPU (APIC id %u) is not listed as enabled",
                       boot_apic_id);
    if (t->srat)
        return finish_srat(t, map, e);
    for (unsigned c = 0; c < t->ncpus; c++)
        t->cpu[c].node = 0;
    return 0;
}

void topo_fallback(struct topo *t, uint32_t boot_apic_id, const char *why)
{
    topo_reset(t);
    t->ncpus = 1;
    t->cpu[0] = (struct topo_cpu){ boot_apic_id, 0, 0, boot_apic_id >= 0xff };
    t->fallback = true;
    snprintf(t->fallback_reason, sizeof(t->fallback_reason), "%s", why);
}
