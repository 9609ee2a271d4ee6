/* SPDX-License-Identifier: MIT */
/*
 * The differential tester of Xen's own init_heap_pages(): the real
 * functions of a patched page_alloc.c (cut from the tree at build time,
 * XH_EXTRACT) run each heap-init= variant over the same random sequences
 * of calls, each in a child of its own, and every page_info, every free
 * list in order and every counter is compared against chunk's. Built with
 * XH_PAIR, it holds a tree with the proposal series (side 1) against the
 * same tree stock (side 0) instead, each run with its default heap-init.
 *
 *   xenheap-test [--seed S] [--sequences N] [--page] [--all] [--show SEED]
 *                [--calls S+N[@],...]
 *
 * Exit 0: no difference; 1: a difference or a hard failure (the seed, the
 * calls and the first difference printed); 2: bad arguments.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xen_stand.h"
#include "tester.h"

/* ---- the stand-ins' state ---- */
struct page_info *xh_frame_table;
unsigned long xh_nr_frames;
struct domain xh_domains[4];
u32 xh_tlbflush_clock;
unsigned int memnode_shift;
nodeid_t xh_memnodemap[1 << 16];
unsigned long xh_memnodemapsize;
bool machine_to_phys_mapping_valid;
unsigned long *xh_m2p;
int system_state;
unsigned long xh_printks, xh_xenheap_allocs;
char *xh_ram;
unsigned char xh_listed[MAX_FRAMES];


void printk(const char *fmt, ...)
{
    (void)fmt;
    xh_printks++;
}

_Noreturn void xh_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "xenheap-test: %s:%d: %s\n", file, line, what);
    fflush(stderr);
    _exit(3);
}

void *mfn_to_virt(unsigned long mfn)
{
    if ( mfn >= xh_nr_frames )
        xh_fail(__FILE__, __LINE__, "mfn_to_virt() of a frame past the frame table");
    return xh_ram + mfn * PAGE_SIZE;
}

unsigned int page_to_llc_color(const struct page_info *pg)
{
    (void)pg;
    xh_fail(__FILE__, __LINE__, "page_to_llc_color(): a coloured page, with LLC colouring off (x86)");
}

void *alloc_xenheap_pages(unsigned int order, unsigned int memflags)
{
    (void)memflags;
    xh_xenheap_allocs++;
    return calloc(1, PAGE_SIZE << order);
}

void *xh_xmalloc(size_t bytes)
{
    xh_xenheap_allocs++;
    return calloc(1, bytes);
}

void xh_list_check(const struct page_info *pg, const struct page_list_head *h)
{
    const struct page_info *p;

    for ( p = h->next; p; p = p->list.next )
        if ( p == pg )
            return;
    xh_fail(__FILE__, __LINE__, "page_list_del() of a page not on the list");
}

/* ---- sequences ---- */
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
 * The layout and calls of `seed`: frames split into ranges that touch or
 * leave gaps, on up to three nodes in any order of node ids, handed over
 * last range first (as end_boot_allocator() does) or shuffled, the later
 * ones after boot; some pages owned, referenced or pending offline.
 */
static const char *given_calls;     /* --calls: one sequence of the user's */

static void parse_calls(struct sequence *q, const char *text);

static void make_sequence(struct sequence *q, uint64_t seed)
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
    if ( given_calls )
    {
        parse_calls(q, given_calls);
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

/* The frame table before the calls: as the boot allocator leaves it, with specials. */
static void make_frames(const struct sequence *q)
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

/*
 * The variants, each run by a side: every heap-init= variant of one tree
 * against chunk, or (XH_PAIR) the series against the same tree stock.
 */
#ifdef XH_PAIR
static const char *const VARIANT[] = { "stock", "series" };
static void (*const RUN[])(const struct sequence *, unsigned int) = { xh_run_0, xh_run_1 };
static void (*const SNAPSHOT[])(const struct sequence *, struct record *, unsigned long *) = {
    xh_snapshot_0, xh_snapshot_1,
};
#define NVARIANTS 2
#define CHUNK 0                               /* the reference every other variant is held to */
#define IS_PAGE(v) ((void)(v), false)        /* no variant compared as sets */
static const unsigned int ORDER[] = { CHUNK, 1 };
#define WHO "the tree with the "             /* before VARIANT[v] in what is printed */
#define REF "the stock tree"
#else
static const char *const VARIANT[] = { "page", "chunk-72b02bc", "chunk", "sweep" };
static void (*const RUN[])(const struct sequence *, unsigned int) = { xh_run_0, xh_run_0, xh_run_0, xh_run_0 };
static void (*const SNAPSHOT[])(const struct sequence *, struct record *, unsigned long *) = {
    xh_snapshot_0, xh_snapshot_0, xh_snapshot_0, xh_snapshot_0,
};
#define NVARIANTS 4
#define CHUNK 2
#define IS_PAGE(v) ((v) == 0)
/* chunk first; page last, as its comparison sorts chunk's lists. */
static const unsigned int ORDER[] = { CHUNK, 1, 3, 0 };
#define WHO "heap-init="
#define REF "chunk"
#endif

static const char *const RECORD[] = {
    "count_info", "u (first_dirty, need_tlbflush, scrub_state)", "v (order or owner)",
    "tlbflush_timestamp", "the M2P entry", "free list entry", "free list length", "avail[]",
    "total_avail_pages", "node_need_scrub[]", "page_offlined_list entry", "page_broken_list entry",
    "heap metadata's frame", "first_valid_mfn", "printk() calls", "xenheap allocations",
    "node_avail_pages[]", "end",
};

static struct record *slot[NVARIANTS];
static unsigned long *slot_len;

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

static void describe(const struct record *r, FILE *f)
{
    switch ( r->kind )
    {
    case R_COUNT: case R_U: case R_V: case R_TLB: case R_M2P:
        fprintf(f, "page %#x %s = %#llx", r->a, RECORD[r->kind], (unsigned long long)r->value);
        break;
    case R_LIST:
        fprintf(f, "node %u zone %u order %u list[%u] = page %#llx", r->a, r->b / 100, r->b % 100, r->c,
                (unsigned long long)r->value);
        break;
    case R_LIST_LEN:
        fprintf(f, "node %u zone %u order %u list length %llu", r->a, r->b / 100, r->b % 100,
                (unsigned long long)r->value);
        break;
    case R_AVAIL:
        fprintf(f, "avail[%u][%u] = %llu", r->a, r->b, (unsigned long long)r->value);
        break;
    case R_SCRUB: case R_META: case R_NODE_AVAIL:
        fprintf(f, "node %u %s = %#llx", r->a, RECORD[r->kind], (unsigned long long)r->value);
        break;
    case R_OFFLINED: case R_BROKEN:
        fprintf(f, "%s [%u] = page %#llx", RECORD[r->kind], r->c, (unsigned long long)r->value);
        break;
    default:
        fprintf(f, "%s = %#llx", RECORD[r->kind], (unsigned long long)r->value);
    }
}

static void show(const struct sequence *q, FILE *f)
{
    unsigned int i;
    unsigned long s;

    fprintf(f, "  seed %llu, MAX_ORDER %u: %lu frames, %u node(s), memnode_shift %u, bootscrub %s, "
            "%u specials%s\n  node map:", (unsigned long long)q->seed, MAX_ORDER, q->frames, q->nodes,
            q->shift, q->bootscrub ? "idle" : "off", q->specials * 4, q->garbage ? ", stale fields" : "");
    for ( s = 0; s <= (q->frames >> q->shift); s++ )
        if ( !s || xh_memnodemap[s] != xh_memnodemap[s - 1] )
            fprintf(f, " %#lx:node %u", s << q->shift, xh_memnodemap[s]);
    fprintf(f, "\n");
    for ( i = 0; i < q->calls; i++ )
        fprintf(f, "  %2u: init_heap_pages(%#lx, %#lx)%s\n", i, q->call[i].s, q->call[i].n,
                q->call[i].after_boot ? " after boot" : "");
    for ( s = 0; s < q->frames; s++ )
        if ( xh_frame_table[s].count_info )
            fprintf(f, "  before: page %#lx count_info %#lx owner %u\n", s,
                    xh_frame_table[s].count_info, xh_frame_table[s].v.inuse._domain);
}

/* Runs `variant` on `seed` in a child; 0, or the child's failure. */
static int in_child(const struct sequence *q, unsigned int variant)
{
    int status;
    pid_t pid = fork();

    if ( pid < 0 )
    {
        perror("xenheap-test: fork");
        exit(2);
    }
    if ( pid == 0 )
    {
        struct sequence copy;

        make_sequence(&copy, q->seed);
        make_frames(&copy);
        RUN[variant](&copy, variant);
        SNAPSHOT[variant](&copy, slot[variant], &slot_len[variant]);
        _exit(0);
    }
    if ( waitpid(pid, &status, 0) < 0 )
    {
        perror("xenheap-test: waitpid");
        exit(2);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The first record where `variant` differs from chunk, or -1. */
static long first_difference(unsigned int variant, bool sets)
{
    unsigned long i, n = min(slot_len[variant], slot_len[CHUNK]);

    if ( sets )
    {
        as_sets(slot[variant], slot_len[variant]);
        as_sets(slot[CHUNK], slot_len[CHUNK]);
    }
    for ( i = 0; i < n; i++ )
        if ( memcmp(&slot[variant][i], &slot[CHUNK][i], sizeof(struct record)) )
            return i;
    return slot_len[variant] == slot_len[CHUNK] ? -1 : (long)n;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1, sequences = 1000, i, page_differ = 0, failures = 0;
    bool with_page = false, all = false;
    long show_seed = -1;
    int a;

    for ( a = 1; a < argc; a++ )
    {
        char *end = NULL;

        if ( !strcmp(argv[a], "--seed") && a + 1 < argc )
            seed = strtoull(argv[++a], &end, 0);
        else if ( !strcmp(argv[a], "--sequences") && a + 1 < argc )
            sequences = strtoull(argv[++a], &end, 0);
        else if ( !strcmp(argv[a], "--show") && a + 1 < argc )
            show_seed = strtol(argv[++a], &end, 0);
        else if ( !strcmp(argv[a], "--calls") && a + 1 < argc )
            given_calls = argv[++a], sequences = 1;
        else if ( !strcmp(argv[a], "--page") )
            with_page = true;
        else if ( !strcmp(argv[a], "--all") )
            all = true;
        else
        {
            fprintf(stderr, "usage: %s [--seed S] [--sequences N] [--page] [--all] [--show SEED] [--calls S+N[@],...]\n", argv[0]);
            return 2;
        }
        if ( end && *end )
        {
            fprintf(stderr, "xenheap-test: %s is not a number\n", argv[a]);
            return 2;
        }
    }

    xh_frame_table = mmap(NULL, MAX_FRAMES * sizeof(*xh_frame_table), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    xh_ram = mmap(NULL, MAX_FRAMES * PAGE_SIZE, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    xh_m2p = calloc(MAX_FRAMES, sizeof(*xh_m2p));
    slot_len = mmap(NULL, NVARIANTS * sizeof(*slot_len), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    for ( a = 0; a < NVARIANTS; a++ )
        slot[a] = mmap(NULL, MAX_RECORDS * sizeof(struct record), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if ( xh_frame_table == MAP_FAILED || xh_ram == MAP_FAILED || !xh_m2p || slot_len == MAP_FAILED )
    {
        perror("xenheap-test: mmap");
        return 2;
    }

    if ( show_seed >= 0 )
    {
        struct sequence q;

        make_sequence(&q, show_seed);
        make_frames(&q);
        show(&q, stdout);
        return 0;
    }

    for ( i = 0; i < sequences; i++ )
    {
        struct sequence q;
        unsigned int k;
        int failed = 0;

        make_sequence(&q, seed + i);
        for ( k = 0; k < NVARIANTS; k++ )
        {
            unsigned int v = ORDER[k];
            int rc;
            long at;

            if ( IS_PAGE(v) && !with_page )
                continue;
            rc = in_child(&q, v);
            if ( rc )
            {
                printf(WHO "%s failed (exit %d) on seed %llu:\n", VARIANT[v], rc,
                       (unsigned long long)q.seed);
                failed = 1;
                break;
            }
            if ( v == CHUNK || (at = first_difference(v, IS_PAGE(v))) < 0 )
                continue;
            if ( IS_PAGE(v) && ++page_differ > 1 )
                continue;
            printf(WHO "%s differs from " REF "%s on seed %llu%s:\n  ", VARIANT[v],
                   IS_PAGE(v) ? " as sets" : "", (unsigned long long)q.seed, IS_PAGE(v) ? " (the first such)" : "");
            describe(&slot[v][at], stdout);
            printf("\n  where " REF " has ");
            describe(&slot[CHUNK][at], stdout);
            printf("\n");
            if ( !IS_PAGE(v) )
                failed = 1;
            else
                show(&q, stdout);
        }
        if ( failed )
        {
            failures++;
            make_frames(&q);
            show(&q, stdout);
            if ( !all )
                return 1;
        }
    }
    if ( failures )
    {
        printf("xenheap-test: MAX_ORDER %u: %llu of %llu sequences differ or fail\n", MAX_ORDER,
               (unsigned long long)failures, (unsigned long long)sequences);
        return 1;
    }
    printf("xenheap-test: MAX_ORDER %u: %llu sequences from seed %llu: %s in every page_info, free list "
           "(in order) and counter", MAX_ORDER,
           (unsigned long long)sequences, (unsigned long long)seed,
           NVARIANTS == 2 ? "the tree with the series equals the stock tree"
                          : "sweep and chunk-72b02bc equal chunk");
    if ( with_page )
        printf("; page differs from chunk as sets in %llu", (unsigned long long)page_differ);
    printf("\n");
    return 0;
}
