// SPDX-License-Identifier: MIT
// Xen-style boot allocator over a sorted array of free MFN ranges.
#include "mm/bootmem.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/libc.h"

struct bootmem bootmem;

void bootmem_reset(struct bootmem *bm)
{
    bm->nr = 0;
    bm->sealed = false;
}

void bootmem_seal(struct bootmem *bm)
{
    bm->sealed = true;
}

int bootmem_add(struct bootmem *bm, uint64_t s, uint64_t e)
{
    unsigned i;

    if (s >= e)
        return 0;
    /* First region that ends after s: the new one goes before it. */
    for (i = 0; i < bm->nr; i++)
        if (s < bm->r[i].e)
            break;
    if (i < bm->nr && e > bm->r[i].s)
        return -EINVAL;
    if (bm->nr == BOOTMEM_MAX_REGIONS)
        return -ENOSPC;
    memmove(&bm->r[i + 1], &bm->r[i], (bm->nr - i) * sizeof(bm->r[0]));
    bm->r[i] = (struct bootmem_region){ s, e };
    bm->nr++;
    return 0;
}

/* Drops regions that became empty, keeping the order. */
static void compact(struct bootmem *bm)
{
    unsigned j = 0;

    for (unsigned i = 0; i < bm->nr; i++)
        if (bm->r[i].s < bm->r[i].e)
            bm->r[j++] = bm->r[i];
    bm->nr = j;
}

int bootmem_zap(struct bootmem *bm, uint64_t s, uint64_t e)
{
    int err = 0;

    if (s >= e)
        return 0;
    for (unsigned i = 0; i < bm->nr; i++) {
        struct bootmem_region *r = &bm->r[i];
        if (e <= r->s)
            break;
        if (s >= r->e)
            continue;
        if (s <= r->s) {
            r->s = MIN(e, r->e);        /* cut the front (or all) */
        } else if (e >= r->e) {
            r->e = s;                   /* cut the back */
        } else {
            /* Inside: keep the front here, the back as a new region. */
            uint64_t tail_e = r->e;
            if (bm->nr == BOOTMEM_MAX_REGIONS) {
                err = -ENOSPC;
                break;
            }
            r->e = s;
            bootmem_add(bm, e, tail_e);
            break;                      /* nothing further can overlap */
        }
    }
    compact(bm);
    return err;
}

int bootmem_alloc(struct bootmem *bm, uint64_t nr, uint64_t align, uint64_t limit_mfn,
                  uint64_t *mfn)
{
    if (bm->sealed)
        return -EPERM;
    if (nr == 0 || align == 0 || (align & (align - 1)))
        return -EINVAL;
    for (unsigned i = bm->nr; i-- > 0;) {
        struct bootmem_region *r = &bm->r[i];
        uint64_t top = MIN(r->e, limit_mfn);
        if (top < nr || top <= r->s)
            continue;
        uint64_t pg = ALIGN_DOWN(top - nr, align);
        if (pg < r->s)
            continue;
        if (pg == r->s) {
            r->s = pg + nr;             /* taken from the front (or all of it) */
        } else if (pg + nr == r->e) {
            r->e = pg;                  /* taken from the back */
        } else {
            /* Alignment left pages above: they stay free as their own region. */
            if (bm->nr == BOOTMEM_MAX_REGIONS)
                return -ENOSPC;
            uint64_t tail_s = pg + nr, tail_e = r->e;
            r->e = pg;
            bootmem_add(bm, tail_s, tail_e);
        }
        compact(bm);
        *mfn = pg;
        return 0;
    }
    return -ENOMEM;
}

uint64_t bootmem_pages(const struct bootmem *bm)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < bm->nr; i++)
        n += bm->r[i].e - bm->r[i].s;
    return n;
}

bool bootmem_contains(const struct bootmem *bm, uint64_t s, uint64_t e)
{
    /* Adjacent regions are not merged, so [s, e) may run across several. */
    for (unsigned i = 0; i < bm->nr && s < e; i++)
        if (s >= bm->r[i].s && s < bm->r[i].e)
            s = bm->r[i].e;
    return s >= e;
}
