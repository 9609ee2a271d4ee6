// SPDX-License-Identifier: MIT
// One ACPI table by signature: the root table is length- and checksum-checked,
// the table found only for a plausible length (its parser checks the rest).
#include "kernel/acpi/acpi_find.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

static uint64_t rd(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;

    memcpy(&v, p, bytes);
    return v;
}

/* The root table's address and entry size from the RSDP: 8 for the XSDT, 4 for the RSDT. */
static int root_of(const uint8_t *rsdp, uint32_t rsdp_len, uint64_t *root, unsigned *esize,
                   struct err *e)
{
    if (!rsdp || rsdp_len < 20 || memcmp(rsdp, "RSD PTR ", 8) || !acpi_checksum_ok(rsdp, 20))
        return err_set(e, -EINVAL, "ACPI: no sound RSDP from the loader");
    if (rsdp[15] >= 2 && rsdp_len >= 36 && rd(rsdp + 20, 4) == 36 && acpi_checksum_ok(rsdp, 36) &&
        rd(rsdp + 24, 8)) {
        *root = rd(rsdp + 24, 8);
        *esize = 8;
        return 0;
    }
    *root = rd(rsdp + 16, 4);
    *esize = 4;
    return *root ? 0 : err_set(e, -EINVAL, "ACPI: the RSDP names no root table");
}

/* The len bytes of the table at pa, once its header's length is plausible. */
static const uint8_t *map_table(uint64_t pa, phys_read_fn phys, void *ctx, uint32_t *len)
{
    const uint8_t *h = pa ? phys(pa, ACPI_HDR_LEN, ctx) : NULL;

    if (!h)
        return NULL;
    *len = (uint32_t)rd(h + 4, 4);
    if (*len < ACPI_HDR_LEN || *len > ACPI_TABLE_MAX)
        return NULL;
    return phys(pa, *len, ctx);
}

int acpi_table_find(const uint8_t *rsdp, uint32_t rsdp_len, const char *sig, phys_read_fn phys,
                    void *ctx, const uint8_t **tbl, uint32_t *len, struct err *e)
{
    uint64_t root_pa;
    unsigned esize;
    uint32_t rlen, n;
    const uint8_t *root;
    int rc = root_of(rsdp, rsdp_len, &root_pa, &esize, e);

    if (rc)
        return rc;
    root = map_table(root_pa, phys, ctx, &rlen);
    if (!root || !acpi_checksum_ok(root, rlen) ||
        memcmp(root, esize == 8 ? "XSDT" : "RSDT", 4))
        return err_set(e, -EINVAL, "ACPI: the %s at 0x%llx is unreadable or its checksum is bad",
                       esize == 8 ? "XSDT" : "RSDT", (unsigned long long)root_pa);
    n = MIN((rlen - ACPI_HDR_LEN) / esize, ACPI_ROOT_ENTRIES_MAX);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t pa = rd(root + ACPI_HDR_LEN + i * esize, esize);
        const uint8_t *h = pa ? phys(pa, ACPI_HDR_LEN, ctx) : NULL;

        if (!h || memcmp(h, sig, 4))
            continue;
        *tbl = map_table(pa, phys, ctx, len);
        if (!*tbl)
            return err_set(e, -EINVAL, "ACPI: %s at 0x%llx has an implausible length", sig,
                           (unsigned long long)pa);
        return 0;
    }
    return err_set(e, -ENOENT, "ACPI: no %s table", sig);
}
