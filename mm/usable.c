// SPDX-License-Identifier: MIT
// From the sanitised map to the boot allocator's first regions: the usable
// ranges, then the largest of them when there are more than it keeps.
// Host-pure, so the unit tests run it on hostile maps.
#include "mm/usable.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/libc.h"
#include "kernel/lib/sort.h"
#include "mm/layout.h"

/* The usable ranges, in address order, before the boot allocator's limit. */
static struct bootmem_region ranges[USABLE_MAX_RANGES];
/* Their sizes in pages, sorted largest first: where the limit falls. */
static uint64_t sizes[USABLE_MAX_RANGES];

/* First whole page at or above addr; never wraps (the last page rounds to 2^52). */
static uint64_t pfn_up(uint64_t addr)
{
    return PFN_DOWN(addr) + ((addr & (PAGE_SIZE - 1)) != 0);
}

/* The whole pages of RAM below MAX_PFN_LIMIT, one range per RAM entry; returns how many. */
static unsigned ram_ranges(const struct e820_map *map, struct usable_stats *st)
{
    unsigned n = 0;

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
        ranges[n++] = (struct bootmem_region){ s, end };
    }
    return n;
}

/*
 * Removes MFNs [s, e) from ranges[0..*n), splitting the range it falls
 * inside (the caller's capacity allows one split per cut). Returns the pages
 * removed.
 */
static uint64_t cut(unsigned *n, uint64_t s, uint64_t e)
{
    uint64_t removed = 0;
    unsigned j = 0;

    for (unsigned i = 0; i < *n; i++) {
        struct bootmem_region *r = &ranges[i];
        if (s >= e || e <= r->s || s >= r->e)
            continue;
        removed += MIN(e, r->e) - MAX(s, r->s);
        if (s > r->s && e < r->e) {
            /* Inside: the back part becomes the next range. */
            memmove(&ranges[i + 2], &ranges[i + 1], (*n - i - 1) * sizeof(ranges[0]));
            ranges[i + 1] = (struct bootmem_region){ e, r->e };
            r->e = s;
            (*n)++;
            break;
        }
        if (s <= r->s)
            r->s = MIN(e, r->e);        /* the front, or all of it */
        else
            r->e = s;                   /* the back */
    }
    for (unsigned i = 0; i < *n; i++)   /* drop what became empty */
        if (ranges[i].s < ranges[i].e)
            ranges[j++] = ranges[i];
    *n = j;
    return removed;
}

static bool larger(const void *a, const void *b)
{
    return *(const uint64_t *)a > *(const uint64_t *)b;
}

/* Gives bm the USABLE_KEEP_MAX largest of ranges[0..n) and lists the rest in st. */
static int keep_largest(unsigned n, struct bootmem *bm, struct usable_stats *st, struct err *e)
{
    uint64_t limit = 0;         /* smaller ranges are left out... */
    unsigned ties = 0;          /* ...and ranges of this size beyond the first ties */
    int rc;

    if (n > USABLE_KEEP_MAX) {
        for (unsigned i = 0; i < n; i++)
            sizes[i] = ranges[i].e - ranges[i].s;
        sort(sizes, n, sizeof(sizes[0]), larger);
        limit = sizes[USABLE_KEEP_MAX - 1];
        for (unsigned i = 0; i < USABLE_KEEP_MAX; i++)
            ties += sizes[i] == limit;
    }
    for (unsigned i = 0; i < n; i++) {
        uint64_t pages = ranges[i].e - ranges[i].s;
        bool keep = pages > limit;
        if (pages == limit && ties) {
            keep = true;                /* equal sizes: the lower addresses stay */
            ties--;
        }
        if (!keep) {
            st->left[st->nleft++] = ranges[i];
            st->left_pages += pages;
        } else if ((rc = bootmem_add(bm, ranges[i].s, ranges[i].e))) {
            return err_set(e, rc, "cannot add RAM mfn [0x%llx, 0x%llx) to the boot allocator "
                           "(error %d)", (unsigned long long)ranges[i].s,
                           (unsigned long long)ranges[i].e, rc);
        }
    }
    return 0;
}

int usable_ram(const struct e820_map *map, const struct usable_resv *resv, unsigned nresv,
               struct bootmem *bm, struct usable_stats *st, struct err *e)
{
    memset(st, 0, sizeof(*st));
    bootmem_reset(bm);
    if (nresv > USABLE_MAX_RESV)
        return err_set(e, -E2BIG, "%u ranges to reserve; the limit is %u", nresv, USABLE_MAX_RESV);
    unsigned n = ram_ranges(map, st);
    for (unsigned i = 0; i < nresv; i++)
        if (resv[i].end > resv[i].start)
            st->zapped[i] = cut(&n, PFN_DOWN(resv[i].start), pfn_up(resv[i].end));
    st->ranges = n;
    return keep_largest(n, bm, st, e);
}
