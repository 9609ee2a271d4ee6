// SPDX-License-Identifier: MIT
// From the sanitised map to the boot allocator's first regions. Host-pure,
// so the unit tests run it on hostile maps.
#include "mm/usable.h"

#include "kernel/compiler.h"
#include "kernel/errno.h"
#include "kernel/libc.h"
#include "mm/layout.h"

/* First whole page at or above addr; never wraps (the last page rounds to 2^52). */
static uint64_t pfn_up(uint64_t addr)
{
    return PFN_DOWN(addr) + ((addr & (PAGE_SIZE - 1)) != 0);
}

int usable_ram(const struct e820_map *map, const struct usable_resv *resv, unsigned nresv,
               struct bootmem *bm, struct usable_stats *st, struct err *e)
{
    int err;

    memset(st, 0, sizeof(*st));
    bootmem_reset(bm);
    if (nresv > USABLE_MAX_RESV)
        return err_set(e, -E2BIG, "%u ranges to reserve; the limit is %u", nresv, USABLE_MAX_RESV);
    for (unsigned i = 0; i < map->count; i++) {
        const struct mmap_entry *m = &map->e[i];
        if (m->type != E820_RAM)
            continue;
        st->ram_bytes += m->len;
        uint64_t s = pfn_up(m->addr), end = PFN_DOWN(m->addr + m->len);
        if (s >= end)
            continue;           /* less than a whole page */
        if (end > MAX_PFN_LIMIT) {
            st->ignored_bytes += (end - MAX(s, MAX_PFN_LIMIT)) << PAGE_SHIFT;
            end = MAX(s, MAX_PFN_LIMIT);
            if (s >= end)
                continue;
        }
        st->usable_bytes += (end - s) << PAGE_SHIFT;
        if ((err = bootmem_add(bm, s, end)))
            return err_set(e, err, "cannot add RAM mfn [0x%llx, 0x%llx) to the boot allocator: "
                           "its %u-region list is full", (unsigned long long)s,
                           (unsigned long long)end, BOOTMEM_MAX_REGIONS);
    }
    for (unsigned i = 0; i < nresv; i++) {
        uint64_t before = bootmem_pages(bm);
        if (resv[i].end > resv[i].start &&
            (err = bootmem_zap(bm, PFN_DOWN(resv[i].start), pfn_up(resv[i].end))))
            return err_set(e, err, "cannot reserve %s [0x%llx, 0x%llx): the boot allocator's "
                           "%u-region list is full", resv[i].what,
                           (unsigned long long)resv[i].start, (unsigned long long)resv[i].end,
                           BOOTMEM_MAX_REGIONS);
        st->zapped[i] = before - bootmem_pages(bm);
    }
    return 0;
}
