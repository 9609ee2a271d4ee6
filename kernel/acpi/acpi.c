// SPDX-License-Identifier: MIT
// ACPI table walk for the timers: RSDP -> XSDT/RSDT -> FADT and HPET. Every
// length is bounded and every checksum checked before a field is read.
#include "kernel/acpi/acpi.h"

#include <stdarg.h>

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

/* Tables are byte-packed and may sit at any alignment: read fields by copy. */
static uint32_t rd32(const uint8_t *p, size_t off)
{
    uint32_t v;

    memcpy(&v, p + off, sizeof(v));
    return v;
}

static uint64_t rd64(const uint8_t *p, size_t off)
{
    uint64_t v;

    memcpy(&v, p + off, sizeof(v));
    return v;
}

bool acpi_checksum_ok(const void *p, size_t len)
{
    const uint8_t *b = p;
    uint8_t sum = 0;

    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + b[i]);
    return sum == 0;
}

__printf(2, 3) static void note(struct acpi_timers *t, const char *fmt, ...)
{
    va_list ap;

    if (t->nnotes >= ACPI_NOTES_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(t->notes[t->nnotes++], ACPI_NOTE_LEN, fmt, ap);
    va_end(ap);
}

/* A table's signature as text; firmware garbage prints as '?'. */
static void sig_text(char out[5], const uint8_t *p)
{
    for (int i = 0; i < 4; i++)
        out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
    out[4] = '\0';
}

/*
 * The whole table at paddr, after its length and checksum passed; NULL (with
 * a note) otherwise. *len gets its length. sig, when not NULL, must match.
 */
static const uint8_t *table_get(struct acpi_timers *t, uint64_t paddr, const char *sig,
                                phys_read_fn phys, void *ctx, uint32_t *len)
{
    const uint8_t *h = phys(paddr, ACPI_HDR_LEN, ctx);
    const uint8_t *tbl;
    char name[5];

    if (!h) {
        note(t, "ACPI %s at 0x%llx: cannot be mapped, skipped", sig ? sig : "table",
             (unsigned long long)paddr);
        return NULL;
    }
    sig_text(name, h);
    if (sig && memcmp(h, sig, 4)) {
        note(t, "ACPI %s at 0x%llx: signature is '%s', skipped", sig,
             (unsigned long long)paddr, name);
        return NULL;
    }
    *len = rd32(h, 4);
    if (*len < ACPI_HDR_LEN || *len > ACPI_TABLE_MAX) {
        note(t, "ACPI %s at 0x%llx: length %u is implausible, skipped", name,
             (unsigned long long)paddr, *len);
        return NULL;
    }
    tbl = phys(paddr, *len, ctx);
    if (!tbl) {
        note(t, "ACPI %s at 0x%llx: %u bytes cannot be mapped, skipped", name,
             (unsigned long long)paddr, *len);
        return NULL;
    }
    if (!acpi_checksum_ok(tbl, *len)) {
        note(t, "ACPI %s at 0x%llx: checksum bad, skipped", name, (unsigned long long)paddr);
        return NULL;
    }
    return tbl;
}

/* FADT: X_PM_TMR_BLK when it names an I/O port, else PM_TMR_BLK. */
static void parse_fadt(struct acpi_timers *t, const uint8_t *f, uint32_t len, uint64_t paddr)
{
    uint32_t flags, blk;

    if (len < FADT_LEN_V1) {
        note(t, "ACPI FACP at 0x%llx: %u bytes, shorter than ACPI 1.0's %u, skipped",
             (unsigned long long)paddr, len, FADT_LEN_V1);
        t->pm = ACPI_BAD;
        return;
    }
    flags = rd32(f, FADT_FLAGS);
    if (flags & FADT_HW_REDUCED) {
        t->pm = ACPI_ABSENT;    /* hardware-reduced ACPI has no PM timer */
        return;
    }
    t->pm_32bit = flags & FADT_TMR_VAL_EXT;
    if (len >= FADT_LEN_X_PM_TMR) {
        uint8_t space = f[FADT_X_PM_TMR_BLK];
        uint64_t addr = rd64(f, FADT_X_PM_TMR_BLK + 4);

        if (addr && space == ACPI_GAS_IO && addr <= 0xffff) {
            t->pm = ACPI_OK;
            t->pm_port = (uint16_t)addr;
            return;
        }
        if (addr)
            note(t, "ACPI FACP: X_PM_TMR_BLK 0x%llx in address space %u is not an I/O "
                 "port; trying PM_TMR_BLK", (unsigned long long)addr, space);
    }
    blk = rd32(f, FADT_PM_TMR_BLK);
    if (blk == 0) {
        t->pm = ACPI_ABSENT;
        return;
    }
    if (blk > 0xffff || f[FADT_PM_TMR_LEN] != 4) {
        note(t, "ACPI FACP: PM_TMR_BLK 0x%x with length %u is not a 4-byte I/O port, skipped",
             blk, f[FADT_PM_TMR_LEN]);
        t->pm = ACPI_BAD;
        return;
    }
    t->pm = ACPI_OK;
    t->pm_port = (uint16_t)blk;
}

/* HPET table: the register block must be in memory space, at a nonzero address. */
static void parse_hpet(struct acpi_timers *t, const uint8_t *h, uint32_t len, uint64_t paddr)
{
    uint8_t space;
    uint64_t base;

    if (len < HPET_TBL_LEN) {
        note(t, "ACPI HPET at 0x%llx: %u bytes, shorter than %u, skipped",
             (unsigned long long)paddr, len, HPET_TBL_LEN);
        t->hpet = ACPI_BAD;
        return;
    }
    space = h[HPET_TBL_BASE_GAS];
    base = rd64(h, HPET_TBL_BASE_GAS + 4);
    if (space != ACPI_GAS_MEMORY || base == 0 || (base & 7)) {
        note(t, "ACPI HPET: base 0x%llx in address space %u is not usable, skipped",
             (unsigned long long)base, space);
        t->hpet = ACPI_BAD;
        return;
    }
    t->hpet = ACPI_OK;
    t->hpet_base = base;
}

/* Walks one root table; false when the root itself is unusable. */
static bool walk_root(struct acpi_timers *t, uint64_t root_pa, bool xsdt, phys_read_fn phys,
                      void *ctx)
{
    const char *rsig = xsdt ? "XSDT" : "RSDT";
    unsigned esize = xsdt ? 8 : 4;
    uint32_t rlen, n;
    const uint8_t *root = table_get(t, root_pa, rsig, phys, ctx, &rlen);

    if (!root)
        return false;
    n = (rlen - ACPI_HDR_LEN) / esize;
    if (n > ACPI_ROOT_ENTRIES_MAX) {
        note(t, "ACPI %s: %u entries, only the first %u read", rsig, n, ACPI_ROOT_ENTRIES_MAX);
        n = ACPI_ROOT_ENTRIES_MAX;
    }
    t->root = rsig;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t pa = xsdt ? rd64(root, ACPI_HDR_LEN + i * 8) : rd32(root, ACPI_HDR_LEN + i * 4);
        const uint8_t *h, *tbl;
        bool fadt, hpet;
        uint32_t len;

        if (pa == 0)
            continue;
        h = phys(pa, ACPI_HDR_LEN, ctx);
        if (!h) {
            note(t, "ACPI %s entry %u at 0x%llx: cannot be mapped, skipped", rsig, i,
                 (unsigned long long)pa);
            continue;
        }
        /* Only the tables this walk needs are validated; the first good one wins. */
        fadt = !memcmp(h, "FACP", 4) && t->pm != ACPI_OK;
        hpet = !memcmp(h, "HPET", 4) && t->hpet != ACPI_OK;
        if (!fadt && !hpet)
            continue;
        tbl = table_get(t, pa, fadt ? "FACP" : "HPET", phys, ctx, &len);
        if (!tbl) {
            if (fadt)
                t->pm = ACPI_BAD;
            else
                t->hpet = ACPI_BAD;
            continue;
        }
        if (fadt)
            parse_fadt(t, tbl, len, pa);
        else
            parse_hpet(t, tbl, len, pa);
    }
    return true;
}

int acpi_find_timers(const uint8_t *rsdp, uint32_t rsdp_len, phys_read_fn phys, void *ctx,
                     struct acpi_timers *out)
{
    uint64_t xsdt = 0;
    uint32_t rsdt;

    memset(out, 0, sizeof(*out));
    if (rsdp_len == 0 || !rsdp) {
        note(out, "ACPI: the loader passed no RSDP");
        return -ENOENT;
    }
    if (rsdp_len < 20 || memcmp(rsdp, "RSD PTR ", 8)) {
        note(out, "ACPI: RSDP signature or length (%u) is wrong, ACPI ignored", rsdp_len);
        return -EINVAL;
    }
    if (!acpi_checksum_ok(rsdp, 20)) {
        note(out, "ACPI: RSDP checksum bad, ACPI ignored");
        return -EINVAL;
    }
    rsdt = rd32(rsdp, 16);
    /* ACPI 2.0+: the XSDT, when the extended part is there and sums to 0. */
    if (rsdp[15] >= 2 && rsdp_len >= 36) {
        uint32_t xlen = rd32(rsdp, 20);

        if (xlen != 36 || !acpi_checksum_ok(rsdp, 36))
            note(out, "ACPI: RSDP extended length %u or checksum bad, using the RSDT", xlen);
        else
            xsdt = rd64(rsdp, 24);
    }
    if (xsdt && walk_root(out, xsdt, true, phys, ctx))
        return 0;
    if (xsdt)
        note(out, "ACPI: XSDT unusable, falling back to the RSDT");
    if (rsdt && walk_root(out, rsdt, false, phys, ctx))
        return 0;
    if (!rsdt)
        note(out, "ACPI: RSDP names no RSDT");
    return xsdt || rsdt ? -EINVAL : -ENOENT;
}
