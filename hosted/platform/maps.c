// SPDX-License-Identifier: MIT
// Memory maps for the hosted runner: QEMU q35's layout for a size; any
// other map comes as a map file (mapfile.c).
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "hosted/platform/runner.h"
#include "kernel/lib/compiler.h"
#include "mm/e820.h"

int host_parse_size(const char *text, uint64_t *bytes, struct err *e)
{
    static const char units[] = "KMGT";
    const char *p = text;
    uint64_t v = 0;
    unsigned shift = 0;

    if (!isdigit((unsigned char)*p))
        return err_set(e, -EINVAL, "'%s' is not a size (say 256M, 8G or 1T)", text);
    for (; isdigit((unsigned char)*p); p++) {
        if (v > (UINT64_MAX - 9) / 10)
            return err_set(e, -EINVAL, "'%s' is too large", text);
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p) {
        const char *u = strchr(units, toupper((unsigned char)*p));
        if (!u)
            return err_set(e, -EINVAL, "'%s': the unit must be K, M, G or T", text);
        shift = 10 * (unsigned)(u - units + 1);
        p++;
        if (!strcmp(p, "iB") || !strcmp(p, "B"))
            p += strlen(p);
        if (*p)
            return err_set(e, -EINVAL, "'%s' is not a size (say 256M, 8G or 1T)", text);
    }
    if (v > (UINT64_MAX >> shift))
        return err_set(e, -EINVAL, "'%s' is too large", text);
    *bytes = v << shift;
    return 0;
}

int host_map_add(struct bootinfo *bi, uint64_t addr, uint64_t len, uint32_t type, struct err *e)
{
    if (bi->mmap_count == BI_MMAP_MAX)
        return err_set(e, -E2BIG, "more than %u memory-map entries", BI_MMAP_MAX);
    bi->mmap[bi->mmap_count++] = (struct mmap_entry){ addr, len, type };
    return 0;
}

/*
 * QEMU 7.2, q35, PVH boot through qboot, as the kernel's boot records show
 * it: RAM below 640 KiB less the EBDA, qboot's and the BIOS's areas below
 * 1 MiB, then RAM from 1 MiB. RAM below 4 GiB stops at 2 GiB when the guest
 * has 2.75 GiB or more (pc_q35_init's lowmem), the rest goes above 4 GiB.
 * Every q35 map has the 256 MiB MMCONFIG window at 2.75 GiB, and on AMD
 * hosts the HyperTransport hole [1012 GiB, 1 TiB); RAM above 4 GiB moves to
 * 1 TiB when it and the 32 GiB 64-bit PCI window after it would reach that
 * hole.
 */
int host_map_q35(struct bootinfo *bi, uint64_t ram, struct err *e)
{
    const uint64_t ht_start = 0xfd00000000ull, ht_len = GiB(12);
    uint64_t low = ram >= 0xb0000000ull ? GiB(2) : ram, high = ram - low;
    uint64_t high_start = GiB(4);
    int rc = 0;

    if (ram < MiB(2))
        return err_set(e, -EINVAL, "%llu bytes of RAM: a q35 guest needs at least 2 MiB",
                       (unsigned long long)ram);
    if (high && ALIGN_UP(GiB(4) + high, GiB(1)) + GiB(32) > ht_start)
        high_start = TiB(1);
    bi->mmap_count = 0;
    rc = rc ? rc : host_map_add(bi, 0, 0x9fc00, E820_RAM, e);
    rc = rc ? rc : host_map_add(bi, 0x9fc00, 0x400, E820_RESERVED, e);
    rc = rc ? rc : host_map_add(bi, 0xd0000, 0x20000, E820_NVS, e);
    rc = rc ? rc : host_map_add(bi, 0xf0000, 0x10000, E820_RESERVED, e);
    rc = rc ? rc : host_map_add(bi, 0xb0000000ull, MiB(256), E820_RESERVED, e);
    rc = rc ? rc : host_map_add(bi, ht_start, ht_len, E820_RESERVED, e);
    rc = rc ? rc : host_map_add(bi, MiB(1), low - MiB(1), E820_RAM, e);
    if (high)
        rc = rc ? rc : host_map_add(bi, high_start, high, E820_RAM, e);
    return rc;
}
