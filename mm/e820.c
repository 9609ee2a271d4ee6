// SPDX-License-Identifier: MIT
// e820 sanitiser: one pass over the sorted start and end points of every
// entry, taking at each point the most restrictive type still open.
#include "mm/e820.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/libc.h"
#include "kernel/lib/sort.h"

/* Restrictiveness rank: higher wins an overlap. 0 means "no entry open". */
static unsigned rank(uint32_t type)
{
    switch (type) {
    case E820_RAM: return 1;
    case E820_ACPI: return 2;
    case E820_RESERVED: return 3;
    case E820_NVS: return 4;
    case E820_UNUSABLE: return 5;
    default: return 3;      /* loader-specific numbers (GRUB's 20): reserved */
    }
}

static const uint32_t type_of_rank[6] = {
    0, E820_RAM, E820_ACPI, E820_RESERVED, E820_NVS, E820_UNUSABLE,
};

struct point {
    uint64_t addr;
    uint8_t rank;
    int8_t delta;           /* +1: an entry of this rank opens; -1: closes */
};

/* Two points per entry, for the documented maximum of entries. */
static struct point points[2 * E820_MAX];

static bool before(const void *a, const void *b)
{
    return ((const struct point *)a)->addr < ((const struct point *)b)->addr;
}

int e820_sanitise(const struct mmap_entry *in, unsigned n, struct e820_map *out,
                  struct err *e)
{
    unsigned depth[6] = { 0 };
    unsigned np = 0;

    out->count = 0;
    if (n > E820_MAX)
        return err_set(e, -E2BIG, "memory map has %u entries; the limit is %u", n, E820_MAX);
    for (unsigned i = 0; i < n; i++) {
        uint64_t start = in[i].addr, end = in[i].addr + in[i].len;
        if (in[i].len == 0)
            continue;
        if (end < start)            /* wraps: clip at the top of the address space */
            end = UINT64_MAX;
        if (end == start)
            continue;
        uint8_t r = (uint8_t)rank(in[i].type);
        points[np++] = (struct point){ start, r, +1 };
        points[np++] = (struct point){ end, r, -1 };
    }
    /* Points at one address are applied together, so their order does not matter. */
    sort(points, np, sizeof(points[0]), before);

    /* Walk the distinct addresses; between two of them one type holds. */
    unsigned cur = 0;               /* rank in force since cur_start */
    uint64_t cur_start = 0;
    for (unsigned i = 0; i < np;) {
        uint64_t at = points[i].addr;
        for (; i < np && points[i].addr == at; i++)
            depth[points[i].rank] += (unsigned)points[i].delta;
        unsigned top = 0;
        for (unsigned r = 5; r > 0 && !top; r--)
            if (depth[r])
                top = r;
        if (top == cur)
            continue;               /* same type goes on: adjacent entries merge */
        if (cur) {
            if (out->count == E820_MAX)
                return err_set(e, -E2BIG, "sanitised memory map needs more than %u entries",
                               E820_MAX);
            out->e[out->count++] = (struct mmap_entry){ cur_start, at - cur_start, type_of_rank[cur] };
        }
        cur = top;
        cur_start = at;
    }
    return 0;
}

const char *e820_type_name(uint32_t type)
{
    switch (type) {
    case E820_RAM: return "RAM";
    case E820_RESERVED: return "reserved";
    case E820_ACPI: return "ACPI";
    case E820_NVS: return "NVS";
    case E820_UNUSABLE: return "unusable";
    default: return "other";
    }
}
