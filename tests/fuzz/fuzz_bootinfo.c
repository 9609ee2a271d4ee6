// SPDX-License-Identifier: MIT
// libFuzzer target: arbitrary bytes through the multiboot2 and PVH boot-info
// parsers, then the e820 sanitiser and the usable-RAM step; or through the
// ACPI table walk; or through the MADT, SRAT and SLIT parsers and the node
// map built from them; or as calls to the boot allocator. Every result must
// keep its invariants, and the memory map, the usable pages and the boot
// allocator's pages must equal what references that share no code with
// them work out (tests/fuzz/oracle_map.c, tests/fuzz/bootmem.c).
//
// Input: byte 0 selects, byte 1 places, the rest is physical memory at BASE.
//   byte 0 bit 2: the ACPI walk (kernel/acpi/acpi.c) instead of the boot info:
//                 byte 1 is the RSDP's offset from BASE, byte 0 bit 3 makes
//                 it 36 bytes long (ACPI 2.0) instead of 20
//   byte 0 bit 0: 0 multiboot2, 1 PVH
//   byte 0 bit 1: multiboot2 only: pass a wrong magic (byte 0 mixed into it)
//   byte 0 bit 4: firmware tables instead: the rest is a MADT, an SRAT and a
//                 SLIT back to back, each as long as its header says
//   byte 0 bit 5: boot-allocator calls instead (tests/fuzz/bootmem.c)
//   byte 1:       offset of the info / start info from BASE, in bytes
// tests/fuzz/make_corpus.py writes seeds in this format.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/acpi/acpi.h"
#include "kernel/bootinfo/bootinfo.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "mm/e820.h"
#include "mm/layout.h"
#include "mm/usable.h"
#include "tests/fuzz/bootmem.h"
#include "tests/fuzz/check.h"
#include "tests/fuzz/oracle_map.h"
#include "tests/fuzz/topo.h"

#define BASE 0x100000ull

#define SEL_PVH       0x01
#define SEL_BAD_MAGIC 0x02
#define SEL_ACPI      0x04
#define SEL_ACPI_20   0x08
#define SEL_TOPO      0x10
#define SEL_BOOTMEM   0x20

struct mem {
    const uint8_t *buf;
    size_t size;
};

static const void *phys(uint64_t paddr, uint64_t len, void *ctx)
{
    const struct mem *m = ctx;

    if (paddr < BASE || paddr - BASE > m->size || len > m->size - (paddr - BASE))
        return NULL;
    return m->buf + (paddr - BASE);
}

static bool inside(const struct mem *m, uint64_t start, uint64_t end)
{
    return start >= BASE && start <= end && end - BASE <= m->size;
}

static uint32_t rd32(const struct mem *m, uint64_t paddr)
{
    uint32_t v;
    memcpy(&v, phys(paddr, 4, (void *)m), 4);
    return v;
}

static uint64_t rd64(const struct mem *m, uint64_t paddr)
{
    uint64_t v;
    memcpy(&v, phys(paddr, 8, (void *)m), 8);
    return v;
}

/* Parse succeeded, so the tags are well formed: find the first of a type. */
static uint64_t mb2_find(const struct mem *m, uint64_t info, uint32_t type)
{
    uint64_t t = info + 8;

    for (;;) {
        uint32_t ttype = rd32(m, t), tsize = rd32(m, t + 4);
        if (ttype == type)
            return t;
        if (ttype == 0)
            return 0;
        t += (tsize + 7) & ~7u;
    }
}

/* Tag 6 entries, or EFI descriptors from tag 17, copied entry by entry. */
static void check_mb2_map(const struct bootinfo *bi, const struct mem *m, uint64_t info)
{
    uint64_t t;

    if (strcmp(bi->mmap_source, "multiboot2 memory map") == 0) {
        t = mb2_find(m, info, 6);
        CHECK(t != 0);
        uint32_t size = rd32(m, t + 4), esize = rd32(m, t + 8);
        CHECK(bi->mmap_count == (size - 16) / esize);
        for (unsigned i = 0; i < bi->mmap_count; i++) {
            uint64_t e = t + 16 + (uint64_t)i * esize;
            CHECK(bi->mmap[i].addr == rd64(m, e));
            CHECK(bi->mmap[i].len == rd64(m, e + 8));
            CHECK(bi->mmap[i].type == rd32(m, e + 16));
        }
    } else {
        CHECK(strcmp(bi->mmap_source, "multiboot2 EFI memory map") == 0);
        CHECK(mb2_find(m, info, 6) == 0);       /* tag 6 wins when present */
        t = mb2_find(m, info, 17);
        CHECK(t != 0);
        uint32_t size = rd32(m, t + 4), dsize = rd32(m, t + 8);
        CHECK(bi->mmap_count == (size - 16) / dsize);
        for (unsigned i = 0; i < bi->mmap_count; i++) {
            uint64_t d = t + 16 + (uint64_t)i * dsize;
            uint32_t efi_type = rd32(m, d);
            uint64_t pages = rd64(m, d + 24);
            bool usable = efi_type == 7 || (efi_type >= 1 && efi_type <= 4);
            CHECK(bi->mmap[i].addr == rd64(m, d + 8));
            CHECK(pages <= UINT64_MAX >> 12 && bi->mmap[i].len == pages << 12);
            CHECK(bi->mmap[i].type >= 1 && bi->mmap[i].type <= 5);
            CHECK((bi->mmap[i].type == 1) == usable);
        }
    }
}

static void check_pvh_map(const struct bootinfo *bi, const struct mem *m, uint64_t si)
{
    uint64_t map = rd64(m, si + 40);
    uint32_t n = rd32(m, si + 48);

    CHECK(strcmp(bi->mmap_source, "PVH memory map") == 0);
    CHECK(n >= 1 && bi->mmap_count == n);
    for (unsigned i = 0; i < n; i++) {
        CHECK(bi->mmap[i].addr == rd64(m, map + 24 * i));
        CHECK(bi->mmap[i].len == rd64(m, map + 24 * i + 8));
        CHECK(bi->mmap[i].type == rd32(m, map + 24 * i + 16));
    }
    uint64_t rsdp = rd64(m, si + 32);
    CHECK(bi->rsdp_phys == rsdp);
    if (rsdp)
        CHECK(memcmp(bi->rsdp, phys(rsdp, bi->rsdp_len, (void *)m), bi->rsdp_len) == 0);
    else
        CHECK(bi->rsdp_len == 0);
}

/*
 * The parsed map through the e820 sanitiser and the usable-RAM step, with
 * what they promise of their output: entries sorted, none empty, none
 * overlapping or wrapping, types among the e820 ones, same types never
 * touching; usable regions whole pages of RAM clear of the first MiB. Then
 * both answers against the references of tests/fuzz/oracle_map.c, which
 * work them out from the raw entries without the code under test.
 */
static void check_sanitised_map(const struct bootinfo *bi)
{
    static struct e820_map map;
    static struct bootmem bm;
    struct err e = { "" };

    int rc = e820_sanitise(bi->mmap, bi->mmap_count, &map, &e);
    oracle_e820(bi->mmap, bi->mmap_count, rc, &map);
    if (rc) {
        CHECK(map.count == 0 && strlen(e.msg) > 0);
        return;
    }
    for (unsigned i = 0; i < map.count; i++) {
        const struct mmap_entry *e = &map.e[i];
        CHECK(e->len > 0 && e->addr + e->len > e->addr);
        CHECK(e->type >= E820_RAM && e->type <= E820_UNUSABLE);
        if (i) {
            const struct mmap_entry *p = &map.e[i - 1];
            CHECK(p->addr + p->len <= e->addr);
            CHECK(p->addr + p->len < e->addr || p->type != e->type);
        }
    }
    struct usable_resv resv[] = { { "first MiB", 0, 1u << 20 } };
    static struct usable_stats st;
    if (usable_ram(&map, resv, 1, &bm, &st, &e)) {
        CHECK(strlen(e.msg) > 0);
        return;
    }
    oracle_usable(&bm, &st);
    /* The largest ranges are kept, within the limit; the rest are listed, and no page is lost. */
    uint64_t smallest_kept = UINT64_MAX, largest_left = 0;
    CHECK(bm.nr <= USABLE_KEEP_MAX && bm.nr + st.nleft == st.ranges);
    CHECK(bootmem_pages(&bm) + st.left_pages + st.zapped[0] == st.usable_bytes >> PAGE_SHIFT);
    for (unsigned i = 0; i < bm.nr; i++)
        smallest_kept = MIN(smallest_kept, bm.r[i].e - bm.r[i].s);
    for (unsigned i = 0; i < st.nleft; i++) {
        CHECK(st.left[i].s < st.left[i].e && !bootmem_contains(&bm, st.left[i].s, st.left[i].s + 1));
        CHECK(i == 0 || st.left[i - 1].e <= st.left[i].s);
        largest_left = MAX(largest_left, st.left[i].e - st.left[i].s);
    }
    CHECK(largest_left <= smallest_kept);
    for (unsigned i = 0, j = 0; i < bm.nr; i++) {
        CHECK(bm.r[i].s < bm.r[i].e && bm.r[i].s >= 256);
        CHECK(i == 0 || bm.r[i - 1].e <= bm.r[i].s);
        CHECK(bm.r[i].e <= MAX_PFN_LIMIT);
        /* Every usable page lies inside one RAM entry: both lists are sorted, walk them together. */
        uint64_t s = bm.r[i].s << PAGE_SHIFT, e = bm.r[i].e << PAGE_SHIFT;
        while (j < map.count && map.e[j].addr + map.e[j].len <= s)
            j++;
        CHECK(j < map.count && map.e[j].type == E820_RAM && map.e[j].addr <= s &&
              e - map.e[j].addr <= map.e[j].len);
    }
}

static void check_success(const struct bootinfo *bi, const struct mem *m, bool pvh, uint64_t at)
{
    CHECK(bi->loader == (pvh ? BI_LOADER_PVH : BI_LOADER_MB2));
    check_string(bi->cmdline, sizeof(bi->cmdline));
    check_string(bi->loader_name, sizeof(bi->loader_name));
    CHECK(bi->mmap_count >= 1 && bi->mmap_count <= BI_MMAP_MAX);
    CHECK(bi->mmap_source != NULL);
    CHECK(bi->module_count <= BI_MODULES_MAX);
    CHECK(bi->resv_count <= BI_RESV_MAX);
    CHECK(bi->rsdp_len == 0 || bi->rsdp_len == 20 || bi->rsdp_len == 36);

    unsigned module_ranges = 0;
    for (unsigned i = 0; i < bi->module_count; i++) {
        check_string(bi->modules[i].cmdline, sizeof(bi->modules[i].cmdline));
        CHECK(bi->modules[i].start <= bi->modules[i].end);
        module_ranges += bi->modules[i].start != bi->modules[i].end;
    }

    /*
     * Loader data the parser read lies inside the served memory; a module is
     * only an address range, so its reservation must match its entry.
     */
    unsigned seen_modules = 0;
    for (unsigned i = 0; i < bi->resv_count; i++) {
        const struct bi_range *r = &bi->resv[i];
        CHECK(r->what != NULL && r->start < r->end);
        if (strstr(r->what, "module") && !strstr(r->what, "module list")) {
            bool match = false;
            for (unsigned j = 0; j < bi->module_count; j++)
                match |= bi->modules[j].start == r->start && bi->modules[j].end == r->end;
            CHECK(match);
            seen_modules++;
        } else {
            CHECK(inside(m, r->start, r->end));
        }
    }
    CHECK(seen_modules == module_ranges);

    if (pvh) {
        CHECK(strcmp(bi->loader_name, "PVH") == 0);
        CHECK(bi->resv_count >= 2);
        CHECK(bi->resv[0].start == at && bi->resv[0].end == at + 56);
        check_pvh_map(bi, m, at);
    } else {
        CHECK(bi->resv_count >= 1);
        const struct bi_range *last = &bi->resv[bi->resv_count - 1];
        CHECK(last->start == at && last->end == at + rd32(m, at));
        CHECK(bi->rsdp_phys == 0);
        check_mb2_map(bi, m, at);
    }
    check_sanitised_map(bi);
}

/*
 * The ACPI walk over served memory: whatever it finds, it finds inside it,
 * says so in bounded notes, and never claims a timer it has no address for.
 */
static void fuzz_acpi(const struct mem *m, uint8_t sel, uint64_t at)
{
    uint8_t rsdp[36] = { 0 };
    uint32_t len = sel & SEL_ACPI_20 ? 36 : 20;
    const void *p = phys(at, len, (void *)m);
    struct acpi_timers t;

    if (p)
        memcpy(rsdp, p, len);
    int rc = acpi_find_timers(rsdp, p ? len : 0, phys, (void *)m, &t);

    /* 0, or one of the two errnos kernel/acpi/acpi.h documents, always with a note saying why. */
    CHECK(rc == 0 || rc == -ENOENT || rc == -EINVAL);
    CHECK(rc == 0 || t.nnotes > 0);
    CHECK(t.nnotes <= ACPI_NOTES_MAX);
    for (unsigned i = 0; i < t.nnotes; i++)
        check_string(t.notes[i], sizeof(t.notes[i]));
    CHECK(t.root == NULL || !strcmp(t.root, "RSDT") || !strcmp(t.root, "XSDT"));
    CHECK(rc == 0 || t.root == NULL);
    CHECK(rc == 0 || (t.pm == ACPI_ABSENT && t.hpet == ACPI_ABSENT));
    CHECK(t.pm != ACPI_OK || t.pm_port != 0);
    CHECK(t.hpet != ACPI_OK || t.hpet_base != 0);
}

/* The negative errnos the parsers document (kernel/bootinfo/bootinfo.h). */
static bool known_error(int rc)
{
    return rc == -EINVAL || rc == -EFAULT || rc == -ENOENT || rc == -E2BIG || rc == -ENOSPC ||
           rc == -EPROTONOSUPPORT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bootinfo bi;
    struct err e = { "" };

    if (size < 2)
        return 0;
    uint8_t sel = data[0];
    bool pvh = sel & SEL_PVH;
    uint64_t at = BASE + data[1];

    /*
     * A heap block of exactly the served size, so ASan sees any read past
     * it; malloc's alignment keeps host and physical alignment the same.
     */
    struct mem m = { NULL, size - 2 };
    uint8_t *buf = malloc(m.size ? m.size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data + 2, m.size);
    m.buf = buf;

    if (sel & SEL_BOOTMEM) {
        fuzz_bootmem(buf, m.size);
        free(buf);
        return 0;
    }
    if (sel & SEL_TOPO) {
        fuzz_topo(buf, m.size);
        free(buf);
        return 0;
    }
    if (sel & SEL_ACPI) {
        fuzz_acpi(&m, sel, at);
        free(buf);
        return 0;
    }

    int rc;
    if (pvh) {
        rc = pvh_parse(&bi, at, phys, &m, &e);
    } else {
        uint32_t magic = MB2_BOOTLOADER_MAGIC;
        if (sel & SEL_BAD_MAGIC)
            magic ^= (uint32_t)sel << 24 | 1;
        rc = mb2_parse(&bi, magic, at, phys, &m, &e);
        if (sel & SEL_BAD_MAGIC)
            CHECK(rc == -EINVAL && !strncmp(e.msg, "multiboot2 magic is 0x", 22));
    }

    if (rc == 0) {
        /* Success writes no message. */
        CHECK(e.msg[0] == '\0');
        check_success(&bi, &m, pvh, at);
    } else {
        /* Every failure is a documented errno with a message that names it. */
        CHECK(known_error(rc));
        CHECK(e.msg[0] != '\0');
        check_string(e.msg, sizeof(e.msg));
    }
    free(buf);
    return 0;
}
