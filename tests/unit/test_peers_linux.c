// SPDX-License-Identifier: MIT
// Host tests of the rules the Linux models take from Linux's source:
// padata's chunks rounded by roundup() (3 and 5 sections, which a
// power-of-two rounding gets wrong), its single-thread path (one call, no
// chunks, no lock), 6.1's pfn_valid() at every pageblock of the deferred
// init, and 6.12's deferred init, which frees whole MAX_ORDER windows.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "mm/peers/linux/linux.h"
#include "tests/unit/host_support.h"

#define SEC LX_SECTION_PAGES

/* What a job's thread function was called with. */
static struct {
    unsigned calls;
    uint64_t start[64], end[64];
} seen;

static void record(uint64_t start, uint64_t end, void *arg, unsigned cpu)
{
    (void)arg;
    (void)cpu;
    if (seen.calls < 64) {
        seen.start[seen.calls] = start;
        seen.end[seen.calls] = end;
    }
    seen.calls++;
}

/* Runs a job the way the deferred init does: every worker of the node in turn, rank 1 first. */
static unsigned run_job(uint64_t start, uint64_t size, unsigned threads)
{
    struct lx_padata_job job = { .thread_fn = record, .start = start, .size = size, .align = SEC,
                                 .min_chunk = SEC, .max_threads = threads };
    struct lx_padata_state ps = { .job = &job };
    unsigned nworks = lx_padata_plan(&job, &ps);

    memset(&seen, 0, sizeof(seen));
    for (unsigned rank = 1; rank <= threads; rank++)
        lx_padata_run(&job, &ps, rank, rank - 1);
    return nworks;
}

/* The chunks of a job of `sections` sections on 2 threads, which padata sizes at sections / 8. */
static void chunks_of(unsigned sections, uint64_t chunk_sections)
{
    uint64_t start = 0x100000 + 7 * SEC, size = sections * SEC, chunk = chunk_sections * SEC;
    struct lx_padata_job job = { .start = start, .size = size, .align = SEC, .min_chunk = SEC, .max_threads = 2 };
    struct lx_padata_state ps = { .job = &job };

    assert_int_equal(lx_padata_plan(&job, &ps), 2);
    assert_int_equal(ps.chunk_size, chunk);
    assert_int_equal(run_job(start, size, 2), 2);
    /* Chunks tile the job; each ends at a multiple of the chunk size (from PFN 0) or at the job's end. */
    uint64_t at = start;
    for (unsigned i = 0; i < seen.calls; i++) {
        assert_int_equal(seen.start[i], at);
        assert_true(seen.end[i] % chunk == 0 || seen.end[i] == start + size);
        assert_true(seen.end[i] - seen.start[i] <= chunk);
        at = seen.end[i];
    }
    assert_int_equal(at, start + size);
    /* The first chunk runs to the first multiple of the chunk size past the start, as roundup() says. */
    assert_int_equal(seen.end[0], (start + 1 + chunk - 1) / chunk * chunk);
}

static void test_padata_rounds_by_division(void **state)
{
    (void)state;
    chunks_of(24, 3);       /* 24 sections over 2 threads x 4: chunks of 3 sections */
    chunks_of(40, 5);       /* and of 5 */
    chunks_of(64, 8);       /* a power of two rounds alike either way */
    /* A chunk below min_chunk is raised to it, and rounded to the alignment. */
    struct lx_padata_job job = { .start = 0, .size = 5 * SEC, .align = SEC, .min_chunk = SEC, .max_threads = 2 };
    struct lx_padata_state ps = { .job = &job };
    assert_int_equal(lx_padata_plan(&job, &ps), 2);
    assert_int_equal(ps.chunk_size, SEC);
}

static void test_padata_single_thread_is_one_call(void **state)
{
    (void)state;
    /* One thread on the node: the whole job in one call, whatever its size, no chunks planned. */
    assert_int_equal(run_job(0x100000, 24 * SEC + 123, 1), 1);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.start[0], 0x100000);
    assert_int_equal(seen.end[0], 0x100000 + 24 * SEC + 123);
    /* Less than one min_chunk: one thread however many the node has. */
    assert_int_equal(run_job(0x100000, SEC - 1, 4), 1);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.end[0] - seen.start[0], SEC - 1);
    /*
     * Two threads and enough work: chunks of 3 sections from a start at
     * section 32, cut at multiples of 3: 32-33, seven of 3 to 54, 54-56.
     */
    assert_int_equal(run_job(0x100000, 24 * SEC, 2), 2);
    assert_int_equal(seen.calls, 9);
    assert_int_equal(seen.end[0], 33 * SEC);
    assert_int_equal(seen.start[8], 54 * SEC);
    /* Nothing to do: no call at all. */
    assert_int_equal(run_job(0x100000, 0, 2), 0);
    assert_int_equal(seen.calls, 0);
}

/* One node: DMA32 up to 0x80000, deferred past its first section, on one CPU. */
static void deferred_world(void)
{
    const struct bootmem_region r[] = { { 0x100, 0x80000 } };

    host_frames(0x80000);
    host_heap_world(r, 1);
    host_par_cpus = 1;
    host_par_node[0] = 0;
}

static const struct peer_strategy *boot(const char *name)
{
    const struct peer_strategy *p = peer_strategy_find(name, strlen(name));
    struct peer_boot_stats b;
    struct err e;

    assert_non_null(p);
    assert_int_equal(p->reset(&e), 0);
    p->boot(&b);
    return p;
}

static void later(const struct peer_strategy *p)
{
    struct peer_later_stats l;
    uint64_t w[2];
    struct err e;

    assert_int_equal(p->run_later(1, w, &l, &e), 0);
}

static void test_61_checks_pfn_valid_at_every_pageblock(void **state)
{
    (void)state;
    deferred_world();
    const struct peer_strategy *p = boot("linux_deferred");
    uint64_t first = lx_nodes[0].first_deferred_pfn;
    assert_int_equal(first, 0x8000 + SEC);          /* the first section counted from 0x100, rounded */
    /* A section in the deferred range loses its memory map, as a hole would. */
    uint64_t sec = 0x40000;
    assert_true(lx_pfn_valid(sec + 0x200, 0));
    lx_section_flags[sec / SEC] = 0;
    assert_false(lx_pfn_valid(sec + 0x200, 0));
    assert_false(lx_pfn_valid(sec + 0x201, 0));         /* pfn_valid() itself asks the section */
    later(p);
    /*
     * deferred_pfn_valid() asks at each pageblock's head only: every head of
     * that section is skipped, the pages after each are initialised and,
     * their pageblock being cut, freed one by one at order 0.
     */
    for (uint64_t pb = sec; pb < sec + SEC; pb += LX_PAGEBLOCK_PAGES) {
        assert_int_equal(lx_pfn_to_page(pb)->flags, 0);
        const struct lx_page *next = lx_pfn_to_page(pb + 1);
        assert_true(next->flags != 0 && next->refcount == 0);
        assert_true(lx_page_buddy(next) && next->private == 0);
    }
    /* A pageblock of a valid section is freed whole and merged (order 9 and up). */
    const struct lx_page *whole = lx_pfn_to_page(sec - LX_MAX_ORDER_PAGES);
    assert_true(lx_page_buddy(whole) && whole->private == LX_MAX_ORDER - 1);
}

static void test_612_frees_whole_windows_without_pfn_valid(void **state)
{
    (void)state;
    deferred_world();
    const struct peer_strategy *p = boot("linux612");
    uint64_t sec = 0x40000;
    lx_section_flags[sec / SEC] = 0;
    later(p);
    /* 6.12 asks no pfn_valid(): the free range is all valid, each window one order-10 block. */
    for (uint64_t w = sec; w < sec + SEC; w += LX_MAX_ORDER_PAGES) {
        const struct lx_page *head = lx_pfn_to_page(w);
        assert_true(head->flags != 0);
        assert_true(lx_page_buddy(head) && head->private == LX_MAX_ORDER - 1);
    }
    struct heap_audit a;
    assert_true(p->audit(&a));
    assert_int_equal(a.free_pages, heap_handover_pages());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_padata_rounds_by_division),
        cmocka_unit_test(test_padata_single_thread_is_one_call),
        cmocka_unit_test(test_61_checks_pfn_valid_at_every_pageblock),
        cmocka_unit_test(test_612_frees_whole_windows_without_pfn_valid),
    };
    return cmocka_run_group_tests_name("peers_linux", tests, NULL, NULL);
}
