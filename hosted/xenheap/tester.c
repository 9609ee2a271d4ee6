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
 *                [--calls S+N[@],...] [--threads K]
 *
 * --threads K: every variant but the reference hands the boot's memory
 * over on K CPUs at once (side.c's boot_in_parallel()), the reference one
 * call after another, and the lists are compared as sets; K = 1 keeps the
 * parallel way's order (each node's first memory first) on one CPU, to
 * tell what the order changes from what the threads do.
 *
 * Exit 0: no difference; 1: a difference or a hard failure (the seed, the
 * calls and the first difference printed); 2: bad arguments.
 *
 * This file is the driver: the variants, a child a run, the loop over the
 * sequences. The sequences are sequence.c's, the comparison compare.c's,
 * the stand-ins' state stand.c's, and the calls into a tree side.c's.
 */

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xen_stand.h"
#include "tester.h"

/*
 * The variants, each run by a side: every heap-init= variant of one tree
 * against chunk, or (XH_PAIR) the series against the same tree stock.
 */
#ifdef XH_PAIR
static const char *const VARIANT[] = { "stock", "series" };
static void (*const RUN[])(const struct sequence *, unsigned int, struct record *, unsigned long *) = {
    xh_run_0, xh_run_1,
};
#define NVARIANTS 2
#define CHUNK 0                               /* the reference every other variant is held to */
#define IS_PAGE(v) ((void)(v), false)        /* no variant compared as sets */
static const unsigned int ORDER[] = { CHUNK, 1 };
#define WHO "the tree with the "             /* before VARIANT[v] in what is printed */
#define PAIRED true
#define REF "the stock tree"
#else
static const char *const VARIANT[] = { "page", "chunk-72b02bc", "chunk", "sweep" };
static void (*const RUN[])(const struct sequence *, unsigned int, struct record *, unsigned long *) = {
    xh_run_0, xh_run_0, xh_run_0, xh_run_0,
};
#define NVARIANTS 4
#define CHUNK 2
#define IS_PAGE(v) ((v) == 0)
/* chunk first; page last, as its comparison sorts chunk's lists. */
static const unsigned int ORDER[] = { CHUNK, 1, 3, 0 };
#define WHO "heap-init="
#define PAIRED false
#define REF "chunk"
#endif

/* Each variant's snapshot and what it stopped on, written by its child into memory shared with this process. */
static struct record *slot[NVARIANTS];
static unsigned long *slot_len;
static char *stop_text[NVARIANTS];
static const char *given_calls;     /* --calls: one sequence of the user's */
static unsigned int boot_threads;   /* --threads */

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

        xh_make_sequence(&copy, q->seed, given_calls);
        xh_make_frames(&copy);
        /* A planted stop is a BUG() on one CPU: those sequences hand over on one. */
        copy.parallel = boot_threads > 0;
        copy.dma_bits = q->dma_bits;
        copy.boot_threads = variant != CHUNK && !copy.stops ? boot_threads : 0;
        xh_stop_text = stop_text[variant];
        *stop_text[variant] = 0;
        slot_len[variant] = 0;
        RUN[variant](&copy, variant, slot[variant], &slot_len[variant]);
        _exit(0);
    }
    if ( waitpid(pid, &status, 0) < 0 )
    {
        perror("xenheap-test: waitpid");
        exit(2);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What the sequences reached, for the tester's own check that they reach it. */
static struct {
    unsigned long offset, compressed, many_nodes, runs, holes, m2p_boot, concurrent, stops, poison, parallel, handed_back;
} reached;

/* Whether variant v's run ended on a stop its snapshot records. */
static bool stopped(unsigned int v)
{
    return slot_len[v] >= 2 && slot[v][slot_len[v] - 2].kind == R_STOP;
}

static void print_difference(const struct sequence *q, unsigned int v, const struct record *mine,
                             const struct record *ref)
{
    printf(WHO "%s differs from " REF "%s on seed %llu%s:\n  ", VARIANT[v],
           IS_PAGE(v) ? " as sets" : "", (unsigned long long)q->seed, IS_PAGE(v) ? " (the first such)" : "");
    xh_stop_text = stop_text[v];
    xh_describe(mine);
    printf("\n  where " REF " has ");
    xh_stop_text = stop_text[CHUNK];
    xh_describe(ref);
    printf("\n");
}

/* Every variant on `q`, each held to the reference: 1 when one differs or failed. */
static int one_sequence(const struct sequence *q, bool with_page, uint64_t *page_differ)
{
    unsigned int k, c;
    bool ref_stop = false, active = false;

    *xh_handed_on_threads = *xh_handed_back = 0;
    for ( k = 0; k < NVARIANTS; k++ )
    {
        unsigned int v = ORDER[k];
        int rc;
        long at;

        if ( IS_PAGE(v) && !with_page )
            continue;
        rc = in_child(q, v);
        if ( rc && !(rc == 3 && stopped(v) && q->stops) )
        {
            printf(WHO "%s failed (exit %d%s%s) on seed %llu%s:\n", VARIANT[v], rc, *stop_text[v] ? ": " : "",
                   stop_text[v], (unsigned long long)q->seed,
                   rc == 3 && stopped(v) ? ", a stop where the sequence planted none" : "");
            return 1;
        }
        if ( v == CHUNK )
        {
            ref_stop = rc != 0;
            continue;
        }
        /*
         * A measuring variant that stops where chunk stops is held to the
         * stop alone (the records from it on): what a span-wide marking
         * left behind before Xen's BUG() is not held. The proposal (XH_PAIR)
         * is held to all of it.
         */
        if ( !PAIRED && rc && ref_stop )
        {
            struct record *mine = &slot[v][slot_len[v] - 2], *ref = &slot[CHUNK][slot_len[CHUNK] - 2];

            if ( (at = xh_first_difference(mine, 2, ref, 2, false)) < 0 )
                continue;
            print_difference(q, v, mine + at, ref + at);
            return 1;
        }
        if ( (at = xh_first_difference(slot[v], slot_len[v], slot[CHUNK], slot_len[CHUNK],
                                       IS_PAGE(v) || boot_threads)) < 0 )
            continue;
        if ( IS_PAGE(v) && ++*page_differ > 1 )
            continue;
        print_difference(q, v, &slot[v][at], &slot[CHUNK][at]);
        if ( !IS_PAGE(v) )
            return 1;
        xh_show(q);
    }
    for ( c = 0; c < q->calls; c++ )
    {
        reached.m2p_boot += q->call[c].phase == PHASE_M2P && (!c || q->call[c - 1].phase != PHASE_M2P);
        active |= q->call[c].phase == PHASE_ACTIVE;
    }
    reached.offset += q->base_pdx != 0;
    reached.compressed += q->hole_bits != 0 || q->pdx_offset != 0;
    reached.many_nodes += q->nodes > 3;
    reached.runs += q->runs && q->nodes > 1;
    reached.holes += q->holes;
    reached.concurrent += q->concurrent;
    reached.stops += ref_stop;
    reached.parallel += *xh_handed_on_threads != 0;
    reached.handed_back += *xh_handed_back != 0;
#ifdef XH_SCRUB_DEBUG
    reached.poison += active && q->bootscrub == BOOTSCRUB_MODE_ON;
#else
    (void)active;
#endif
    return 0;
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
        else if ( !strcmp(argv[a], "--threads") && a + 1 < argc )
        {
            boot_threads = strtoul(argv[++a], &end, 0);
            if ( !*end && (boot_threads < 1 || boot_threads > XH_MAX_BOOT_THREADS) )
            {
                fprintf(stderr, "xenheap-test: --threads %u: from 1 to %u CPUs\n", boot_threads,
                        XH_MAX_BOOT_THREADS);
                return 2;
            }
        }
        else if ( !strcmp(argv[a], "--page") )
            with_page = true;
        else if ( !strcmp(argv[a], "--all") )
            all = true;
        else
        {
            fprintf(stderr, "usage: %s [--seed S] [--sequences N] [--page] [--all] [--show SEED] [--calls S+N[@],...] "
                    "[--threads K]\n", argv[0]);
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
    slot_len = mmap(NULL, (NVARIANTS + 2) * sizeof(*slot_len), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    xh_handed_on_threads = &slot_len[NVARIANTS];
    xh_handed_back = &slot_len[NVARIANTS + 1];
    for ( a = 0; a < NVARIANTS; a++ )
    {
        slot[a] = mmap(NULL, MAX_RECORDS * sizeof(struct record), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        stop_text[a] = mmap(NULL, 256, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if ( slot[a] == MAP_FAILED || stop_text[a] == MAP_FAILED )
        {
            perror("xenheap-test: mmap");
            return 2;
        }
    }
    if ( xh_frame_table == MAP_FAILED || xh_ram == MAP_FAILED || !xh_m2p || slot_len == MAP_FAILED )
    {
        perror("xenheap-test: mmap");
        return 2;
    }

    if ( show_seed >= 0 )
    {
        struct sequence q;

        xh_make_sequence(&q, show_seed, given_calls);
        q.dma_bits = boot_threads ? xh_dma_bits(&q) : 0;
        xh_make_frames(&q);
        xh_show(&q);
        return 0;
    }

    for ( i = 0; i < sequences; i++ )
    {
        struct sequence q;
        int failed;

        xh_make_sequence(&q, seed + i, given_calls);
        q.dma_bits = boot_threads ? xh_dma_bits(&q) : 0;
        failed = one_sequence(&q, with_page, &page_differ);
        if ( failed )
        {
            failures++;
            xh_make_frames(&q);
            xh_show(&q);
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
           "(%s) and counter", MAX_ORDER,
           (unsigned long long)sequences, (unsigned long long)seed,
           NVARIANTS == 2 ? "the tree with the series equals the stock tree"
                          : "sweep and chunk-72b02bc equal chunk",
           boot_threads ? "as sets" : "in order");
    if ( boot_threads )
#ifdef XH_HEAP_INIT_SMP
        printf(", handing over after SMP bring-up on %u CPUs against one", boot_threads);
#else
        printf(", handing over at boot on %u CPUs against one", boot_threads);
#endif
    if ( with_page )
        printf("; page differs from chunk as sets in %llu", (unsigned long long)page_differ);
    printf("\nxenheap-test: reached: %lu from a pdx past 0, %lu PDX-compressed, %lu on 4 to %u nodes, "
           "%lu with nodes of several runs, %lu with memory on no node, %lu with the M2P live at boot, "
           "%lu concurrent, %lu stopped alike, %lu poisoned (%s), %lu handed over in parallel, "
           "%lu handing a block back for early allocations\n", reached.offset,
           reached.compressed, reached.many_nodes, MAX_NUMNODES, reached.runs, reached.holes, reached.m2p_boot,
           reached.concurrent, reached.stops, reached.poison,
#ifdef XH_SCRUB_DEBUG
           "CONFIG_SCRUB_DEBUG"
#else
           "no CONFIG_SCRUB_DEBUG"
#endif
           , reached.parallel, reached.handed_back);
    return 0;
}
