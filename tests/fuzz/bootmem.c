// SPDX-License-Identifier: MIT
// The bootinfo target's boot-allocator mode (tests/fuzz/fuzz_bootinfo.c,
// byte 0 bit 5): add, zap, alloc and contains on one boot allocator over
// 1024 pages, each call held to a bitmap of the free pages that the calls
// alone move, as mm/bootmem.h documents them.
//
// Input: five bytes a call: a kind, then two 16-bit little-endian values
// a and b. kind % 8: 0-2 add [a, b), 3-4 zap [a, b) (both % 1025), 5-6
// alloc a % 65 pages aligned to 1 << (b & 7) (or to b & 0x7f when b & 0x80,
// which may be no power of two) below MFN (b >> 8) * 5 (none when b >> 8
// is 0xff), 7 contains [a, b); kind 0xff seals the allocator instead.
#include "tests/fuzz/bootmem.h"

#include <stdbool.h>
#include <string.h>

#include "kernel/lib/errno.h"
#include "mm/bootmem.h"
#include "tests/fuzz/check.h"

#define PAGES 1024u

static struct bootmem bm, before;
static bool free_page[PAGES];
static bool sealed;

static bool any_free(uint64_t s, uint64_t e)
{
    for (uint64_t p = s; p < e; p++)
        if (free_page[p])
            return true;
    return false;
}

static bool all_free(uint64_t s, uint64_t e)
{
    for (uint64_t p = s; p < e; p++)
        if (!free_page[p])
            return false;
    return true;
}

static void set(uint64_t s, uint64_t e, bool v)
{
    for (uint64_t p = s; p < e; p++)
        free_page[p] = v;
}

/* The allocator's regions hold exactly the model's free pages, sorted and apart. */
static void same_pages(void)
{
    bool seen[PAGES] = { false };
    uint64_t n = 0;

    CHECK(bm.nr <= BOOTMEM_MAX_REGIONS);
    for (unsigned i = 0; i < bm.nr; i++) {
        CHECK(bm.r[i].s < bm.r[i].e && bm.r[i].e <= PAGES);
        CHECK(i == 0 || bm.r[i - 1].e <= bm.r[i].s);
        for (uint64_t p = bm.r[i].s; p < bm.r[i].e; p++)
            seen[p] = true;
        n += bm.r[i].e - bm.r[i].s;
    }
    for (unsigned p = 0; p < PAGES; p++)
        CHECK(seen[p] == free_page[p]);
    CHECK(bootmem_pages(&bm) == n);
}

/* [s, e) lies inside one region of before, touching neither end: zapping it splits that region. */
static bool splits(uint64_t s, uint64_t e)
{
    for (unsigned i = 0; i < before.nr; i++)
        if (before.r[i].s < s && e < before.r[i].e)
            return true;
    return false;
}

static void add(uint64_t s, uint64_t e)
{
    int rc = bootmem_add(&bm, s, e);

    if (s >= e || any_free(s, e)) {
        CHECK(rc == (s >= e ? 0 : -EINVAL));
    } else if (rc == -ENOSPC) {
        CHECK(before.nr == BOOTMEM_MAX_REGIONS);
    } else {
        CHECK(rc == 0);
        set(s, e, true);
    }
}

static void zap(uint64_t s, uint64_t e)
{
    int rc = bootmem_zap(&bm, s, e);

    if (rc == -ENOSPC) {
        CHECK(before.nr == BOOTMEM_MAX_REGIONS && splits(s, e));
        return;
    }
    CHECK(rc == 0);
    if (s < e)
        set(s, e, false);
}

/*
 * The documented choice: the highest region with nr pages aligned to align
 * below limit takes them from its top. Returns the first MFN, or -1 when no
 * region has room; *split tells whether pages stay free above them.
 */
static int64_t expected(uint64_t nr, uint64_t align, uint64_t limit, bool *split)
{
    for (unsigned i = before.nr; i-- > 0;) {
        uint64_t top = before.r[i].e < limit ? before.r[i].e : limit;
        if (top < nr)
            continue;
        uint64_t pg = (top - nr) & ~(align - 1);
        if (pg >= before.r[i].s && top > before.r[i].s) {
            *split = pg > before.r[i].s && pg + nr < before.r[i].e;
            return (int64_t)pg;
        }
    }
    return -1;
}

static void alloc(uint16_t a, uint16_t b)
{
    uint64_t nr = a % 65, align = b & 0x80 ? b & 0x7f : 1u << (b & 7);
    uint64_t limit = b >> 8 == 0xff ? UINT64_MAX : (uint64_t)(b >> 8) * 5, mfn = 0;
    bool split = false;
    int rc = bootmem_alloc(&bm, nr, align, limit, &mfn);

    if (sealed) {
        CHECK(rc == -EPERM);
        return;
    }
    if (nr == 0 || align == 0 || (align & (align - 1))) {
        CHECK(rc == -EINVAL);
        return;
    }
    int64_t want = expected(nr, align, limit, &split);
    if (want < 0) {
        CHECK(rc == -ENOMEM);
    } else if (split && before.nr == BOOTMEM_MAX_REGIONS) {
        CHECK(rc == -ENOSPC);
    } else {
        CHECK(rc == 0 && mfn == (uint64_t)want);
        CHECK(mfn % align == 0 && mfn + nr <= limit && all_free(mfn, mfn + nr));
        set(mfn, mfn + nr, false);
    }
}

void fuzz_bootmem(const uint8_t *buf, size_t size)
{
    bootmem_reset(&bm);
    memset(free_page, 0, sizeof(free_page));
    sealed = false;
    for (size_t at = 0; at + 5 <= size; at += 5) {
        uint8_t kind = buf[at];
        uint16_t a = (uint16_t)(buf[at + 1] | buf[at + 2] << 8), b = (uint16_t)(buf[at + 3] | buf[at + 4] << 8);
        uint64_t s = a % (PAGES + 1), e = b % (PAGES + 1);

        before = bm;
        if (kind == 0xff) {
            bootmem_seal(&bm);
            sealed = true;
        } else if (kind % 8 < 3) {
            add(s, e);
        } else if (kind % 8 < 5) {
            zap(s, e);
        } else if (kind % 8 < 7) {
            alloc(a, b);
        } else {
            CHECK(bootmem_contains(&bm, s, e) == (s >= e || all_free(s, e)));
        }
        same_pages();
    }
}
