/* SPDX-License-Identifier: MIT */
/*
 * The tester's sequences: from a seed, the layout of the frames, the
 * nodes and the calls of init_heap_pages(), or the user's own calls
 * (--calls); the frame table as the boot allocator leaves it; and the
 * sequence printed as a person reads it (--show, and after a difference).
 */
#include <stdio.h>
#include <stdlib.h>

#include "xen_stand.h"
#include "tester.h"

static uint64_t rng;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned long below(unsigned long n) { return n ? next() % n : 0; }

/*
 * "S+N,S+N@,...": init_heap_pages(S, N) in turn, '@' after boot; one
 * node, boot scrubbing idle, every page as the boot allocator leaves it.
 */
static void parse_calls(struct sequence *q, const char *text)
{
    const char *p = text;
    unsigned long i;

    q->frames = 0, q->nodes = 1, q->bootscrub = true, q->garbage = false, q->specials = 0, q->shift = 6;
    while ( *p && q->calls < MAX_CALLS )
    {
        char *end;
        struct call *c = &q->call[q->calls++];

        c->s = strtoul(p, &end, 0);
        if ( *end != '+' )
            break;
        c->n = strtoul(end + 1, &end, 0);
        c->after_boot = *end == '@';
        end += c->after_boot;
        if ( !c->n || c->s + c->n >= MAX_FRAMES || (*end && *end != ',') )
            break;
        q->frames = max(q->frames, c->s + c->n + 1);
        p = *end ? end + 1 : end;
    }
    if ( *p || !q->calls )
    {
        fprintf(stderr, "xenheap-test: --calls %s: want S+N[@],... within %#lx frames, at \"%s\"\n",
                text, MAX_FRAMES, p);
        exit(2);
    }
    memnode_shift = q->shift;
    xh_memnodemapsize = (q->frames >> q->shift) + 1;
    for ( i = 0; i <= (q->frames >> q->shift); i++ )
        xh_memnodemap[i] = 0;
}

/*
 * The layout and calls of `seed`: frames split into ranges that touch or
 * leave gaps, on up to three nodes in any order of node ids, handed over
 * last range first (as end_boot_allocator() does) or shuffled, the later
 * ones after boot; some pages owned, referenced or pending offline. With
 * `calls` (--calls), the user's calls in place of the random ones.
 */
void xh_make_sequence(struct sequence *q, uint64_t seed, const char *calls)
{
    unsigned long s, bounds[4];
    unsigned int i, k, nranges = 0, perm[3] = { 0, 1, 2 };
    struct call r[MAX_CALLS];

    rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    memset(q, 0, sizeof(*q));
    q->seed = seed;
    q->frames = 64UL << below(7);
    q->frames += below(q->frames);
    q->shift = below(7);
    q->nodes = 1 + below(3);
    q->bootscrub = below(2);
    q->garbage = below(4) == 0;
    q->specials = below(3) ? 0 : 1 + below(6);
    if ( calls )
    {
        parse_calls(q, calls);
        return;
    }
    for ( s = below(4) ? 0 : below(q->frames / 4); s < q->frames && nranges < MAX_CALLS; )
    {
        unsigned long n = 1 + below(below(2) ? q->frames / 4 : 1UL << (MAX_ORDER + 2));

        n = min(n, q->frames - s);
        r[nranges++] = (struct call){ s, n, false };
        s += n + (below(2) ? 0 : below(1UL << below(MAX_ORDER + 2)));
    }
    if ( below(2) )
        for ( i = 0; i < nranges; i++ )
            q->call[i] = r[nranges - 1 - i];
    else
    {
        for ( i = 0; i < nranges; i++ )
            q->call[i] = r[i];
        for ( i = nranges; i > 1; i-- )
        {
            struct call t;

            k = below(i);
            t = q->call[i - 1], q->call[i - 1] = q->call[k], q->call[k] = t;
        }
    }
    q->calls = nranges;
    k = below(2) ? nranges : below(nranges + 1);
    for ( i = k; i < nranges; i++ )
        q->call[i].after_boot = true;

    for ( i = 2; i > 0; i-- )
    {
        unsigned int t, j = below(i + 1);

        t = perm[i], perm[i] = perm[j], perm[j] = t;
    }
    bounds[0] = 0;
    for ( i = 1; i < q->nodes; i++ )
        bounds[i] = below((q->frames >> q->shift) + 1);
    bounds[q->nodes] = ~0UL;
    for ( i = 1; i < q->nodes; i++ )               /* sorted: each node one run */
        for ( k = i; k > 1 && bounds[k] < bounds[k - 1]; k-- )
        {
            unsigned long t = bounds[k];

            bounds[k] = bounds[k - 1], bounds[k - 1] = t;
        }
    memnode_shift = q->shift;
    xh_memnodemapsize = (q->frames >> q->shift) + 1;
    for ( s = 0; s <= (q->frames >> q->shift); s++ )
    {
        for ( i = 0; s >= bounds[i + 1]; i++ )
            ;
        xh_memnodemap[s] = perm[i];
    }
}

/* The frame table before the calls: as the boot allocator leaves it, with specials. */
void xh_make_frames(const struct sequence *q)
{
    unsigned long i;

    xh_nr_frames = q->frames;
    memset(xh_frame_table, 0, q->frames * sizeof(*xh_frame_table));
    for ( i = 0; i < q->frames; i++ )
    {
        struct page_info *pg = &xh_frame_table[i];

        xh_m2p[i] = next() & 0xfffff;
        if ( q->garbage )
        {
            pg->u.inuse.type_info = next();
            pg->tlbflush_timestamp = next();
            pg->list.next = pg->list.prev = (struct page_info *)(uintptr_t)0x5a5a;
        }
    }
    for ( i = 0; i < q->specials * 4; i++ )
    {
        struct page_info *pg = &xh_frame_table[below(q->frames)];

        switch ( below(6) )
        {
        case 5:                                     /* a domain's page, no reference left */
            pg->count_info = 0;
            pg->v.inuse._domain = 1 + below(3);
            break;
        case 0:                                     /* a domain's page */
            pg->count_info = PGC_allocated | 1;
            pg->v.inuse._domain = 1 + below(3);
            break;
        case 1:                                     /* referenced, no owner */
            pg->count_info = 1 + below(3);
            break;
        case 2:                                     /* pending offline */
            pg->count_info = PGC_state_offlining;
            break;
        case 3:                                     /* broken, pending offline */
            pg->count_info = PGC_state_offlining | PGC_broken;
            break;
        default:                                    /* a domain's page, being offlined */
            pg->count_info = PGC_state_offlining | PGC_allocated | 1;
            pg->v.inuse._domain = 1 + below(3);
            break;
        }
    }
}

/* The sequence and the pages it starts with, as a person reads them. */
void xh_show(const struct sequence *q)
{
    unsigned int i;
    unsigned long s;

    printf("  seed %llu, MAX_ORDER %u: %lu frames, %u node(s), memnode_shift %u, bootscrub %s, "
           "%u specials%s\n  node map:", (unsigned long long)q->seed, MAX_ORDER, q->frames, q->nodes,
           q->shift, q->bootscrub ? "idle" : "off", q->specials * 4, q->garbage ? ", stale fields" : "");
    for ( s = 0; s <= (q->frames >> q->shift); s++ )
        if ( !s || xh_memnodemap[s] != xh_memnodemap[s - 1] )
            printf(" %#lx:node %u", s << q->shift, xh_memnodemap[s]);
    printf("\n");
    for ( i = 0; i < q->calls; i++ )
        printf("  %2u: init_heap_pages(%#lx, %#lx)%s\n", i, q->call[i].s, q->call[i].n,
               q->call[i].after_boot ? " after boot" : "");
    for ( s = 0; s < q->frames; s++ )
        if ( xh_frame_table[s].count_info )
            printf("  before: page %#lx count_info %#lx owner %u\n", s,
                   xh_frame_table[s].count_info, xh_frame_table[s].v.inuse._domain);
}
