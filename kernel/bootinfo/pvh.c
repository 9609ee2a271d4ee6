// SPDX-License-Identifier: MIT
// PVH boot information: struct hvm_start_info and the tables it points to
// (Xen's public/arch-x86/hvm/start_info.h), parsed into struct bootinfo.
#include "kernel/bootinfo/bootinfo_priv.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

struct pvh_start_info {
    uint32_t magic;
    uint32_t version;
    uint32_t flags;
    uint32_t nr_modules;
    uint64_t modlist_paddr;
    uint64_t cmdline_paddr;
    uint64_t rsdp_paddr;
    uint64_t memmap_paddr;      /* version 1 and later */
    uint32_t memmap_entries;
    uint32_t reserved;
};

struct pvh_module {
    uint64_t paddr;
    uint64_t size;
    uint64_t cmdline_paddr;
    uint64_t reserved;
};

struct pvh_memmap_entry {
    uint64_t addr;
    uint64_t size;
    uint32_t type;
    uint32_t reserved;
};

_Static_assert(sizeof(struct pvh_start_info) == 56, "hvm_start_info v1");
_Static_assert(sizeof(struct pvh_module) == 32, "hvm_modlist_entry");
_Static_assert(sizeof(struct pvh_memmap_entry) == 24, "hvm_memmap_table_entry");

#define PVH_START_INFO_V0_SIZE 40

static int pvh_memmap(struct bootinfo *bi, const struct pvh_start_info *si, phys_read_fn phys,
                      void *ctx, struct err *e)
{
    const uint8_t *mm;
    int rc;

    if (si->memmap_entries == 0 || si->memmap_paddr == 0)
        return err_set(e, -ENOENT, "PVH start info has no memory map (%u entries at 0x%llx)",
                       si->memmap_entries, (unsigned long long)si->memmap_paddr);
    if (si->memmap_entries > BI_MMAP_MAX)
        return err_set(e, -E2BIG, "PVH memory map has %u entries, more than the %u kept",
                       si->memmap_entries, BI_MMAP_MAX);
    uint64_t mlen = (uint64_t)si->memmap_entries * sizeof(struct pvh_memmap_entry);
    if ((rc = bi_need((const void **)&mm, phys, ctx, si->memmap_paddr, mlen, "PVH memory map", e)))
        return rc;
    /* The tables need not be 8-byte aligned: copy each entry out. */
    for (uint32_t i = 0; i < si->memmap_entries; i++) {
        struct pvh_memmap_entry m;
        memcpy(&m, mm + (size_t)i * sizeof(m), sizeof(m));
        bi->mmap[bi->mmap_count++] = (struct mmap_entry){ m.addr, m.size, m.type };
    }
    bi->mmap_source = "PVH memory map";
    return bi_add_resv(bi, si->memmap_paddr, mlen, "PVH memory map", e);
}

static int pvh_cmdline(struct bootinfo *bi, uint64_t paddr, phys_read_fn phys, void *ctx,
                       struct err *e)
{
    /*
     * The string's length is unknown: read what the limit allows or, near
     * the end of readable memory, the longest readable prefix, found by
     * bisection (a shorter read of a readable range is readable too).
     */
    uint64_t avail = BI_CMDLINE_MAX;
    if (!phys(paddr, avail, ctx)) {
        uint64_t lo = 0, hi = BI_CMDLINE_MAX;   /* lo bytes readable, hi not */
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (phys(paddr, mid, ctx))
                lo = mid;
            else
                hi = mid;
        }
        avail = lo;
    }
    const char *s = avail ? phys(paddr, avail, ctx) : NULL;
    if (!s)
        return err_set(e, -EFAULT, "PVH command line at 0x%llx is not readable memory",
                       (unsigned long long)paddr);
    size_t len = strnlen(s, avail);
    if (len == avail)
        return err_set(e, -EINVAL, "PVH command line is not NUL-terminated within %llu bytes",
                       (unsigned long long)avail);
    memcpy(bi->cmdline, s, len + 1);
    return bi_add_resv(bi, paddr, len + 1, "PVH command line", e);
}

static int pvh_modules(struct bootinfo *bi, const struct pvh_start_info *si, phys_read_fn phys,
                       void *ctx, struct err *e)
{
    const uint8_t *mods;
    int rc;

    if (si->nr_modules > BI_MODULES_MAX)
        return err_set(e, -E2BIG, "PVH start info lists %u modules, more than the %u kept",
                       si->nr_modules, BI_MODULES_MAX);
    if (!si->nr_modules)
        return 0;
    uint64_t len = (uint64_t)si->nr_modules * sizeof(struct pvh_module);
    if ((rc = bi_need((const void **)&mods, phys, ctx, si->modlist_paddr, len, "PVH module list", e)))
        return rc;
    if ((rc = bi_add_resv(bi, si->modlist_paddr, len, "PVH module list", e)))
        return rc;
    for (uint32_t i = 0; i < si->nr_modules; i++) {
        struct pvh_module m;
        memcpy(&m, mods + (size_t)i * sizeof(m), sizeof(m));
        if (m.paddr + m.size < m.paddr)
            return err_set(e, -EFAULT, "PVH module %u wraps past 2^64", i);
        bi->modules[i] = (struct bi_module){ m.paddr, m.paddr + m.size, "" };
        if ((rc = bi_add_resv(bi, m.paddr, m.size, "PVH module", e)))
            return rc;
    }
    bi->module_count = si->nr_modules;
    return 0;
}

static int pvh_rsdp(struct bootinfo *bi, uint64_t paddr, phys_read_fn phys, void *ctx,
                    struct err *e)
{
    const uint8_t *r;
    int rc;

    if ((rc = bi_need((const void **)&r, phys, ctx, paddr, 20, "ACPI RSDP", e)))
        return rc;
    uint32_t len = r[15] >= 2 ? 36 : 20;   /* revision byte */
    if (len == 36 && (rc = bi_need((const void **)&r, phys, ctx, paddr, 36, "ACPI RSDP", e)))
        return rc;
    memcpy(bi->rsdp, r, len);
    bi->rsdp_len = len;
    bi->rsdp_phys = paddr;
    return 0;
}

int pvh_parse(struct bootinfo *bi, uint64_t paddr, phys_read_fn phys, void *ctx, struct err *e)
{
    const struct pvh_start_info *p;
    struct pvh_start_info si;
    int rc;

    bi_reset(bi, BI_LOADER_PVH);
    memcpy(bi->loader_name, "PVH", 4);
    if ((rc = bi_need((const void **)&p, phys, ctx, paddr, PVH_START_INFO_V0_SIZE,
                      "PVH start info", e)))
        return rc;
    memset(&si, 0, sizeof(si));
    memcpy(&si, p, PVH_START_INFO_V0_SIZE);
    if (si.magic != PVH_START_MAGIC)
        return err_set(e, -EINVAL, "PVH start info magic is 0x%08x, expected 0x%08x",
                       si.magic, PVH_START_MAGIC);
    if (si.version < 1)
        return err_set(e, -EPROTONOSUPPORT, "PVH start info version %u has no memory map (need 1)",
                       si.version);
    if ((rc = bi_need((const void **)&p, phys, ctx, paddr, sizeof(si), "PVH start info", e)))
        return rc;
    memcpy(&si, p, sizeof(si));
    if ((rc = bi_add_resv(bi, paddr, sizeof(si), "PVH start info", e)))
        return rc;
    if ((rc = pvh_memmap(bi, &si, phys, ctx, e)))
        return rc;
    if (si.cmdline_paddr && (rc = pvh_cmdline(bi, si.cmdline_paddr, phys, ctx, e)))
        return rc;
    if ((rc = pvh_modules(bi, &si, phys, ctx, e)))
        return rc;
    if (si.rsdp_paddr && (rc = pvh_rsdp(bi, si.rsdp_paddr, phys, ctx, e)))
        return rc;
    return 0;
}
