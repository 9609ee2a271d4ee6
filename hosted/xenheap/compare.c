/* SPDX-License-Identifier: MIT */
/*
 * The tester's comparison: two sides' snapshots (tester.h's records),
 * record by record in order, or free blocks as sets for page against
 * chunk; and a record written as a person reads it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "xen_stand.h"
#include "tester.h"

/* What each kind of record holds (tester.h, R_*). */
static const char *const RECORD[] = {
    "count_info", "u (first_dirty, need_tlbflush, scrub_state)", "v (order or owner)",
    "tlbflush_timestamp", "the M2P entry", "free list entry", "free list length", "avail[]",
    "total_avail_pages", "node_need_scrub[]", "page_offlined_list entry", "page_broken_list entry",
    "heap metadata's frame", "first_valid_mfn", "printk() calls", "xenheap allocations",
    "node_avail_pages[]", "the page's first word (poison)", "the stop", "end",
};

/*
 * Free blocks as a set, for page against chunk: each list's entries
 * sorted, and the u and v of free pages inside a block (what a block's
 * earlier heads left there) not compared.
 */
static int by_entry(const void *x, const void *y)
{
    const struct record *a = x, *b = y;

    return a->value < b->value ? -1 : a->value > b->value;
}

static void as_sets(struct record *r, unsigned long n)
{
    unsigned long i = 0, j;

    for ( j = 0; j < n; j++ )
        if ( (r[j].kind == R_U || r[j].kind == R_V) && r[j].c )
            r[j].value = 0;
    while ( i < n )
    {
        for ( j = i; j < n && r[j].kind == R_LIST && r[j].a == r[i].a && r[j].b == r[i].b; j++ )
            ;
        if ( j > i + 1 )
        {
            qsort(r + i, j - i, sizeof(*r), by_entry);
            for ( ; i < j; i++ )
                r[i].c = 0;
        }
        i = j > i ? j : i + 1;
    }
}

/* A record as a person reads it, on stdout. */
void xh_describe(const struct record *r)
{
    switch ( r->kind )
    {
    case R_COUNT: case R_U: case R_V: case R_TLB: case R_M2P: case R_POISON:
        printf("page %#x %s = %#llx", r->a, RECORD[r->kind], (unsigned long long)r->value);
        break;
    case R_LIST:
        printf("node %u zone %u order %u list[%u] = page %#llx", r->a, r->b / 100, r->b % 100, r->c,
               (unsigned long long)r->value);
        break;
    case R_LIST_LEN:
        printf("node %u zone %u order %u list length %llu", r->a, r->b / 100, r->b % 100,
               (unsigned long long)r->value);
        break;
    case R_AVAIL:
        printf("avail[%u][%u] = %llu", r->a, r->b, (unsigned long long)r->value);
        break;
    case R_SCRUB: case R_META: case R_NODE_AVAIL:
        printf("node %u %s = %#llx", r->a, RECORD[r->kind], (unsigned long long)r->value);
        break;
    case R_STOP:
        printf("stopped at call %u on \"%s\"", r->a, xh_stop_text && *xh_stop_text ? xh_stop_text : "?");
        break;
    case R_OFFLINED: case R_BROKEN:
        printf("%s [%u] = page %#llx", RECORD[r->kind], r->c, (unsigned long long)r->value);
        break;
    default:
        printf("%s = %#llx", RECORD[r->kind], (unsigned long long)r->value);
    }
}

/* A stop's text as a record holds it (FNV-1a). */
uint64_t xh_text_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for ( ; *s; s++ )
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/*
 * The first record where `r` (n records) differs from `ref` (nref), or -1;
 * with `sets`, both compared as sets first (which sorts their lists).
 */
long xh_first_difference(struct record *r, unsigned long n, struct record *ref, unsigned long nref, bool sets)
{
    unsigned long i, common = min(n, nref);

    if ( sets )
    {
        as_sets(r, n);
        as_sets(ref, nref);
    }
    for ( i = 0; i < common; i++ )
        if ( memcmp(&r[i], &ref[i], sizeof(struct record)) )
            return i;
    return n == nref ? -1 : (long)common;
}
