/* SPDX-License-Identifier: MIT */
/*
 * The tester's sequences: from a seed, the calls of init_heap_pages() over
 * the layout (layout.c: frames, pdx and nodes), each at boot, at boot with
 * the M2P live, or after boot (some on a thread of their own beside
 * others allocating and freeing), a range handed over twice where the
 * sequence plants a stop; or the user's own calls (--calls); and the
 * sequence printed as a person reads it (--show, and after a difference).
 */
#include <stdio.h>
#include <stdlib.h>

#include "xen_stand.h"
#include "tester.h"

static uint64_t rng;

uint64_t xh_next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

unsigned long xh_below(unsigned long n) { return n ? xh_next() % n : 0; }

/*
 * "S+N,S+N@,...": init_heap_pages(S, N) in turn, '@' after boot; frames
 * numbered from MFN 0 (no offset, no compression), one node, boot
 * scrubbing idle, every page as the boot allocator leaves it.
 */
static void parse_calls(struct sequence *q, const char *text)
{
    const char *p = text;

    q->frames = 0, q->nodes = 1, q->bootscrub = BOOTSCRUB_MODE_IDLE, q->garbage = false;
    q->specials = q->stops = 0, q->shift = 6, q->concurrent = false;
    q->base_pdx = 0, q->hole_bits = 0, q->pdx_offset = 0, q->runs = q->holes = false;
    while ( *p && q->calls < MAX_CALLS )
    {
        char *end;
        struct call *c = &q->call[q->calls++];

        c->s = strtoul(p, &end, 0);
        if ( *end != '+' )
            break;
        c->n = strtoul(end + 1, &end, 0);
        c->phase = *end == '@' ? PHASE_ACTIVE : PHASE_BOOT;
        end += *end == '@';
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
    xh_make_layout(q);
}

/*
 * Ranges over the frames, cut where the frames stop being contiguous in
 * MFN (a PDX hole) and where no node has memory, as the boot allocator's
 * regions are: those that touch or leave gaps, at most MAX_CALLS.
 */
static unsigned int make_ranges(const struct sequence *q, struct call *r)
{
    unsigned long s, e, i;
    unsigned int n = 0;

    for ( s = xh_below(4) ? 0 : xh_below(q->frames / 4); s < q->frames && n < MAX_CALLS; )
    {
        unsigned long len = 1 + xh_below(xh_below(2) ? q->frames / 4 : 1UL << (MAX_ORDER + 2));

        e = min(s + len, q->frames);
        for ( i = s; i < e && n < MAX_CALLS; )
        {
            unsigned long j = i;

            if ( !xh_on_node(i) )
            {
                i++;
                continue;
            }
            while ( j + 1 < e && xh_on_node(j + 1) && xh_index_mfn(j + 1) == xh_index_mfn(j) + 1 )
                j++;
            r[n++] = (struct call){ i, j + 1 - i, PHASE_BOOT, false };
            i = j + 1;
        }
        s = e + (xh_below(2) ? 0 : xh_below(1UL << xh_below(MAX_ORDER + 2)));
    }
    return n;
}

/*
 * Whether every node calls k on reach has had memory from an earlier call:
 * hot-add on a thread beside allocations brings no node its first memory,
 * as init_node_heap() sets a node's heap up without heap_lock (the concurrent
 * phase holds Xen to what it is written for, which does not include that).
 */
static bool nodes_known(const struct sequence *q, unsigned int k)
{
    unsigned long known = 0, f;
    unsigned int i;

    for ( i = 0; i < q->calls; i++ )
        for ( f = q->call[i].s; f < q->call[i].s + q->call[i].n; f++ )
        {
            unsigned long bit = 1UL << xh_memnodemap[(xh_base_pdx + f) >> memnode_shift];

            if ( i >= k && !(known & bit) )
                return false;
            if ( i < k )
                known |= bit;
        }
    return true;
}

/*
 * The layout and calls of `seed`: the ranges handed over last first (as
 * end_boot_allocator() does) or shuffled, the later ones with the M2P
 * live, then after boot; some pages owned, referenced, pending offline,
 * broken or flagged; where the sequence plants a stop, a page in use and
 * broken or a range handed over a second time. With `calls` (--calls),
 * the user's calls in place of the random ones.
 */
void xh_make_sequence(struct sequence *q, uint64_t seed, const char *calls)
{
    struct call r[MAX_CALLS];
    unsigned int i, k, m, nranges;

    rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    memset(q, 0, sizeof(*q));
    q->seed = seed;
    q->frames = 64UL << xh_below(7);
    q->frames += xh_below(q->frames);
    q->shift = xh_below(7);
    q->nodes = xh_below(3) ? 1 + xh_below(3) : 1 + xh_below(MAX_NUMNODES);
    q->bootscrub = xh_below(3);
    q->garbage = xh_below(4) == 0;
    q->specials = xh_below(3) ? 0 : 1 + xh_below(6);
    q->stops = xh_below(8) ? 0 : 1 + xh_below(2);
    if ( calls )
    {
        parse_calls(q, calls);
        return;
    }
    q->runs = xh_below(3) != 0;
    q->holes = q->runs && !xh_below(3);
    if ( xh_below(2) )
    {
        /*
         * The table from a pdx past 0 (Arm's), perhaps across a PDX hole
         * (both) or, with no hole, with the pdx offset from the MFN by a
         * multiple of 2^MAX_ORDER that need not be one of a node group
         * (staging's offset compression), so that a long range's MFN and
         * pdx part at a group boundary.
         */
        unsigned long block;

        q->bottom_bits = min(MAX_ORDER + (unsigned int)xh_below(3), 20U);
        q->hole_bits = xh_below(2) ? 0 : 1 + xh_below(4);
        if ( !q->hole_bits && xh_below(2) )
            q->pdx_offset = (1 + xh_below(63)) << MAX_ORDER;
        block = 1UL << q->bottom_bits;
        if ( block >= MAX_FRAMES && xh_below(2) )
            q->base_pdx = block - xh_below(q->frames);
        else
            q->base_pdx = xh_below(3) ? 1 + xh_below(1UL << 12) : 0;
#ifndef XH_PAIR
        /*
         * The measuring series (heap-init=) are x86's, whose frame table
         * starts at pdx 0: only a proposal for every architecture meets Arm's.
         */
        q->base_pdx = 0;
        q->pdx_offset = 0;
#endif
    }
    xh_make_layout(q);
    nranges = make_ranges(q, r);
    if ( xh_below(2) )
        for ( i = 0; i < nranges; i++ )
            q->call[i] = r[nranges - 1 - i];
    else
    {
        for ( i = 0; i < nranges; i++ )
            q->call[i] = r[i];
        for ( i = nranges; i > 1; i-- )
        {
            struct call t;

            k = xh_below(i);
            t = q->call[i - 1], q->call[i - 1] = q->call[k], q->call[k] = t;
        }
    }
    q->calls = nranges;
    /* The system is up from call k on, the M2P live from call m <= k on. */
    k = xh_below(2) ? nranges : xh_below(nranges + 1);
    m = xh_below(3) ? k : xh_below(k + 1);
    for ( i = m; i < nranges; i++ )
        q->call[i].phase = i < k ? PHASE_M2P : PHASE_ACTIVE;
    if ( q->stops && q->calls && q->calls < MAX_CALLS && xh_below(2) )
    {
        /* A part of an earlier range handed over again, after it. */
        const struct call *c = &q->call[xh_below(q->calls)];
        unsigned long off = xh_below(c->n);

        q->call[q->calls] = (struct call){ c->s + off, 1 + xh_below(c->n - off), PHASE_ACTIVE, false };
        q->calls++;
    }
    if ( !q->stops && !q->specials && k < nranges && !xh_below(3) && nodes_known(q, k) )
    {
        q->concurrent = true;
        for ( i = k; i < nranges; i++ )
            q->call[i].threaded = true;
    }
}

/*
 * A DMA width for a parallel hand-over's sequence (heap-init-smp keeps a
 * block above it on each node that has too little there): none for half
 * the seeds, else one whose edge falls in or below the frames. From the
 * seed alone, so that the sequence's other draws stay as they were.
 */
unsigned int xh_dma_bits(const struct sequence *q)
{
    uint64_t h = (q->seed + 1) * 0xd1b54a32d192ed03ULL;
    unsigned int top = flsl(xh_index_mfn(q->frames - 1));

    h ^= h >> 31;
    return h & 1 ? 0 : PAGE_SHIFT + 1 + (unsigned int)((h >> 1) % top);
}

/* The sequence and the pages it starts with, as a person reads them. */
void xh_show(const struct sequence *q)
{
    static const char *const PHASE[] = { "", " at boot, M2P live", " after boot" };
    static const char *const SCRUB[] = { "off", "idle", "on" };
    unsigned int i;
    unsigned long s;

    printf("  seed %llu, MAX_ORDER %u%s: %lu frames, %u node(s), memnode_shift %u, bootscrub %s, "
           "%u specials%s%s%s\n", (unsigned long long)q->seed, MAX_ORDER,
#ifdef XH_SCRUB_DEBUG
           ", CONFIG_SCRUB_DEBUG",
#else
           "",
#endif
           q->frames, q->nodes, q->shift, SCRUB[q->bootscrub], q->specials * 4, q->garbage ? ", stale fields" : "",
           q->stops ? ", a stop planted" : "", q->concurrent ? ", after boot on threads beside allocations and frees" : "");
    if ( q->dma_bits )
        printf("  DMA width %u bits\n", q->dma_bits);
    xh_show_layout(q);
    for ( i = 0; i < q->calls; i++ )
        printf("  %2u: init_heap_pages(frame %#lx = MFN %#lx, %#lx)%s%s\n", i, q->call[i].s,
               xh_index_mfn(q->call[i].s), q->call[i].n, PHASE[q->call[i].phase],
               q->call[i].threaded ? ", on a thread" : "");
    for ( s = 0; s < q->frames; s++ )
        if ( xh_frame_table[s].count_info || xh_frame_table[s].v.inuse._domain )
            printf("  before: frame %#lx count_info %#lx owner %u\n", s,
                   xh_frame_table[s].count_info, xh_frame_table[s].v.inuse._domain);
}
