// SPDX-License-Identifier: MIT
// References for the bootinfo target's memory map, written from mm/e820.h's
// and mm/usable.h's contracts and nothing else: the type of every address is
// found by asking every raw entry that holds it, and the usable pages by
// rounding each run of RAM that classification leaves. Slow on purpose (an
// address range costs a pass over all entries); the parsers' 16 KiB inputs
// hold at most a few hundred entries.
#include "tests/fuzz/oracle_map.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "mm/layout.h"
#include "tests/fuzz/check.h"

/* Most restrictive first, as mm/e820.h documents: the first type present wins. */
static const uint32_t priority[] = { E820_UNUSABLE, E820_NVS, E820_RESERVED, E820_ACPI, E820_RAM };

/*
 * Every address where some type may change: both ends of each raw and each
 * sanitised entry, sorted; and the type by brute force from each point to
 * the next, worked out once for both checks.
 */
static uint64_t points[4 * E820_MAX + 2];
static uint32_t types[4 * E820_MAX + 2];
static unsigned npoints;

/* Raw entry i's end: past 2^64 it is clipped to 2^64 - 1. */
static uint64_t raw_end(const struct mmap_entry *m)
{
    return m->addr + m->len < m->addr ? UINT64_MAX : m->addr + m->len;
}

/* Types other than the five named ones are reserved. */
static uint32_t known(uint32_t type)
{
    return type >= E820_RAM && type <= E820_UNUSABLE ? type : E820_RESERVED;
}

/* The type at address x by brute force: 0 when no raw entry holds it. */
static uint32_t type_at(const struct mmap_entry *raw, unsigned n, uint64_t x)
{
    bool held[E820_UNUSABLE + 1] = { false };

    for (unsigned i = 0; i < n; i++)
        if (raw[i].len && raw[i].addr <= x && x < raw_end(&raw[i]))
            held[known(raw[i].type)] = true;
    for (unsigned p = 0; p < sizeof(priority) / sizeof(priority[0]); p++)
        if (held[priority[p]])
            return priority[p];
    return 0;
}

/* The sanitised map's type at x, 0 between its entries. */
static uint32_t map_type_at(const struct e820_map *map, uint64_t x)
{
    for (unsigned i = 0; i < map->count; i++)
        if (map->e[i].addr <= x && x - map->e[i].addr < map->e[i].len)
            return map->e[i].type;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* points[0..npoints): the distinct edges of raw and of map, sorted, and their types. */
static void collect(const struct mmap_entry *raw, unsigned n, const struct e820_map *map)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n; i++) {
        points[k++] = raw[i].addr;
        points[k++] = raw_end(&raw[i]);
    }
    for (unsigned i = 0; map && i < map->count; i++) {
        points[k++] = map->e[i].addr;
        points[k++] = map->e[i].addr + map->e[i].len;
    }
    qsort(points, k, sizeof(points[0]), by_value);
    npoints = 0;
    for (unsigned i = 0; i < k; i++)
        if (!npoints || points[npoints - 1] != points[i])
            points[npoints++] = points[i];
    for (unsigned i = 0; i < npoints; i++)
        types[i] = type_at(raw, n, points[i]);
}

void oracle_e820(const struct mmap_entry *raw, unsigned n, int rc, const struct e820_map *map)
{
    collect(raw, n, rc ? NULL : map);
    if (rc) {
        /* Refused: only a map that needs more than E820_MAX entries out may be. */
        unsigned runs = 0;
        for (unsigned k = 0; k + 1 < npoints; k++)
            runs += types[k] && (k == 0 || types[k - 1] != types[k]);
        CHECK(n > E820_MAX || runs > E820_MAX);
        return;
    }
    /* Both maps hold one type between two neighbouring points: compare at each. */
    for (unsigned k = 0; k < npoints; k++)
        CHECK(types[k] == map_type_at(map, points[k]));
}

/* The first whole page at or after byte a. */
static uint64_t page_up(uint64_t a)
{
    return a / PAGE_SIZE + (a % PAGE_SIZE != 0);
}

/* Page ranges, in address order, touching ones joined. */
static struct bootmem_region want[E820_MAX * 2], got[E820_MAX * 2 + BOOTMEM_MAX_REGIONS];

static unsigned append(struct bootmem_region *out, unsigned k, uint64_t s, uint64_t e)
{
    if (s >= e)
        return k;
    if (k && out[k - 1].e == s) {
        out[k - 1].e = e;
        return k;
    }
    out[k] = (struct bootmem_region){ s, e };
    return k + 1;
}

static int by_start(const void *a, const void *b)
{
    const struct bootmem_region *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

void oracle_usable(const struct bootmem *bm, const struct usable_stats *st)
{
    static struct bootmem_region parts[BOOTMEM_MAX_REGIONS + USABLE_MAX_RANGES];
    unsigned nwant = 0, ngot = 0, nparts = 0;
    /* Each run of RAM, whole pages only, without the first MiB and from MAX_PFN_LIMIT up. */
    for (unsigned k = 0; k + 1 < npoints;) {
        if (types[k] != E820_RAM) {
            k++;
            continue;
        }
        unsigned j = k + 1;
        while (j + 1 < npoints && types[j] == E820_RAM)
            j++;
        uint64_t s = page_up(points[k]), e = points[j] / PAGE_SIZE;
        if (s < 256)
            s = 256;
        if (e > MAX_PFN_LIMIT)
            e = MAX_PFN_LIMIT;
        nwant = append(want, nwant, s, e);
        k = j;
    }
    /* What the boot allocator got and what was left out, together, are those pages. */
    for (unsigned i = 0; i < bm->nr; i++)
        parts[nparts++] = bm->r[i];
    for (unsigned i = 0; i < st->nleft; i++)
        parts[nparts++] = st->left[i];
    qsort(parts, nparts, sizeof(parts[0]), by_start);
    for (unsigned i = 0; i < nparts; i++) {
        CHECK(parts[i].s < parts[i].e && (i == 0 || parts[i - 1].e <= parts[i].s));
        ngot = append(got, ngot, parts[i].s, parts[i].e);
    }
    CHECK(ngot == nwant);
    for (unsigned i = 0; i < ngot; i++)
        CHECK(got[i].s == want[i].s && got[i].e == want[i].e);
}
