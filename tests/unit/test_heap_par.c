// SPDX-License-Identifier: MIT
// Host tests of the parallel heap init: the cut at 2^MAX_ORDER-page and node
// edges, the assignment of whole units to CPUs of their node, the splice,
// and the heap itself: on simulated CPUs (run one after another, last
// first), every eager strategy builds the serial heap's digest at 1 to 4
// CPUs, on one node, on two nodes split inside a gigabyte, and with a node
// that has no CPU; the audit is green and a first touch works on it.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/heap_par.h"
#include "mm/heap_priv.h"
#include "tests/unit/host_support.h"

#define UNIT (1ull << MAX_ORDER)

static void *storage;

/* Frame table, M2P and the given regions; nodes from ranges (NULL: one node). */
static void world(const struct bootmem_region *r, unsigned n, uint64_t frames,
                  const struct node_range *nodes, unsigned nnodes)
{
    host_frames(frames);
    if (nodes)
        host_nodes(nodes, nnodes);
    host_heap_world(r, n);
}

/* n simulated CPUs on the given nodes, with their private heaps. */
static void cpus(unsigned n, const unsigned *node)
{
    free(storage);
    storage = calloc(1, heap_par_bytes(HEAP_PAR_MAX_CPUS));
    assert_non_null(storage);
    heap_par_give_storage(storage, HEAP_PAR_MAX_CPUS);
    host_par_cpus = n;
    for (unsigned c = 0; c < n; c++)
        host_par_node[c] = node ? node[c] : 0;
}

static uint64_t audited_digest(const char *what)
{
    struct heap_audit a;

    if (!heap_audit(&a)) {
        for (unsigned i = 0; i < a.nerrors && i < AUDIT_MAX_ERRORS; i++)
            fprintf(stderr, "audit (%s): %s\n", what, a.errors[i]);
        fail_msg("audit failed after %s", what);
    }
    assert_int_equal(a.free_pages, heap_handover_pages());
    return a.digest;
}

static uint64_t serial(const struct heap_strategy *s)
{
    heap_reset();
    end_boot_allocator(&heap_default, s);
    return audited_digest(s->name);
}

static uint64_t parallel(const struct heap_strategy *s, struct heap_par_stats *st)
{
    uint64_t w[2];
    struct err e;

    heap_reset();
    assert_int_equal(heap_par_build(&heap_default, s, host_par_cpus, w, st, &e), 0);
    assert_int_equal(bootmem.nr, 0);
    return audited_digest(s->name);
}

/* Every page allocated one by one and freed again: the same heap after. */
static void first_touch(uint64_t digest)
{
    uint64_t n = 0;
    struct page_info *pg, *head = NULL;

    while ((pg = heap_alloc_pages(0, NUMA_NO_NODE))) {
        pg->list.next = head ? (uint32_t)page_to_mfn(head) : PAGE_LIST_NULL;
        head = pg;
        n++;
    }
    assert_int_equal(n, heap_handover_pages());
    while (head) {
        uint32_t next = head->list.next;
        assert_int_equal(heap_free(head, 0, true, NULL), 0);
        head = next == PAGE_LIST_NULL ? NULL : mfn_to_page(next);
    }
    assert_int_equal(audited_digest("first touch"), digest);
}

/* Regions over 3 GiB and a bit, with MFN 0, ragged edges and a region touching the next. */
static const struct bootmem_region regions[] = {
    { 0, 0x9f }, { 0x100, 0x3ff00 }, { 0x3ff00, 0x40010 }, { 0x40100, 0xb0000 },
    { 0xb0001, 3 * UNIT + 0x1235 },
};

static void check_pieces(const struct bootmem_region *r, unsigned nr, const struct heap_piece *p,
                         unsigned n)
{
    unsigned k = 0;

    for (unsigned i = 0; i < nr; i++) {
        uint64_t at = r[i].s;
        while (at < r[i].e) {
            assert_true(k < n);
            /* Contiguous, inside one unit, one node, ending only at an edge. */
            assert_int_equal(p[k].s, at);
            assert_true(p[k].e > p[k].s && p[k].e <= r[i].e);
            assert_int_equal(p[k].s / UNIT, (p[k].e - 1) / UNIT);
            for (uint64_t m = p[k].s; m < p[k].e; m += 0x1000)
                assert_int_equal(mfn_to_nid(m), p[k].node);
            assert_true(p[k].e == r[i].e || p[k].e % UNIT == 0 ||
                        mfn_to_nid(p[k].e) != p[k].node);
            at = p[k++].e;
        }
    }
    assert_int_equal(k, n);
}

static void test_cut_at_unit_edges(void **state)
{
    static struct heap_piece p[64];
    (void)state;
    world(regions, 5, 4 * UNIT, NULL, 0);
    int n = heap_par_cut(regions, 5, p, 64);
    /* Five regions, the last crossing three unit edges. */
    assert_int_equal(n, 8);
    check_pieces(regions, 5, p, (unsigned)n);
    assert_int_equal(heap_par_cut(regions, 5, p, 7), -E2BIG);
}

/* Node 1 from 0x60000 (inside the second unit) to 0xa0000 (inside the third), node 0 around it. */
static const struct node_range split[] = {
    { 0, 0x60000, 0 }, { 0x60000, 0xa0000, 1 }, { 0xa0000, 4 * UNIT, 0 },
};

static void test_cut_at_node_edges(void **state)
{
    static struct heap_piece p[64];
    (void)state;
    world(regions, 5, 4 * UNIT, split, 3);
    assert_int_equal(memnode_shift, 17);
    int n = heap_par_cut(regions, 5, p, 64);
    /* The eight of one node, and the fourth region cut twice more where node 1 starts and ends. */
    assert_int_equal(n, 10);
    check_pieces(regions, 5, p, (unsigned)n);
}

static void test_assign_keeps_units_whole(void **state)
{
    static struct heap_piece p[64];
    const unsigned node[3] = { 1, 0, 0 };
    uint64_t pages[3];
    (void)state;
    world(regions, 5, 4 * UNIT, split, 3);
    unsigned n = (unsigned)heap_par_cut(regions, 5, p, 64);
    heap_par_assign(p, n, node, 3, pages);
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        total += p[i].e - p[i].s;
        /* One worker per unit... */
        if (i && p[i].s / UNIT == p[i - 1].s / UNIT)
            assert_int_equal(p[i].cpu, p[i - 1].cpu);
        /* ...a worker of the node of the unit's first piece. */
        unsigned first = i;
        while (first && p[first - 1].s / UNIT == p[i].s / UNIT)
            first--;
        assert_int_equal(node[p[i].cpu], p[first].node);
    }
    assert_int_equal(pages[0] + pages[1] + pages[2], total);
    /* Node 0's units shared by its two workers. */
    assert_true(pages[1] && pages[2]);
}

static void test_assign_cpuless_node(void **state)
{
    static struct heap_piece p[64];
    const unsigned node[2] = { 0, 0 };
    uint64_t pages[2];
    (void)state;
    world(regions, 5, 4 * UNIT, split, 3);
    unsigned n = (unsigned)heap_par_cut(regions, 5, p, 64);
    heap_par_assign(p, n, node, 2, pages);
    /* No worker on node 1: its unit still gets one. */
    for (unsigned i = 0; i < n; i++)
        assert_true(p[i].cpu < 2);
    assert_true(pages[0] && pages[1]);
}

/*
 * No block of the heap crosses a piece's edge between two CPUs: every free
 * block lies in one unit, and every piece of that unit went to one CPU.
 */
static void blocks_stay_with_one_cpu(unsigned ncpus, const unsigned *cpu_node)
{
    static struct heap_piece p[64];
    unsigned node[HEAP_PAR_MAX_CPUS] = { 0 };
    uint64_t pages[HEAP_PAR_MAX_CPUS];
    unsigned n = (unsigned)heap_par_cut(heap_regions.r, heap_regions.nr, p, 64), blocks = 0;

    for (unsigned c = 0; c < ncpus; c++)
        node[c] = cpu_node ? cpu_node[c] : 0;
    heap_par_assign(p, n, node, ncpus, pages);
    for (unsigned nd = 0; nd < MAX_NUMNODES; nd++)
        for (unsigned z = 0; z < NR_ZONES; z++)
            for (unsigned o = 0; o <= MAX_ORDER; o++)
                for (struct page_info *pg = heap(&heap_default, nd, z, o).next; pg;
                     pg = pl_page(pg->list.next)) {
                    uint64_t s = page_to_mfn(pg), e = s + (1ull << o);
                    int cpu = -1;
                    assert_int_equal(s / UNIT, (e - 1) / UNIT);
                    for (unsigned i = 0; i < n; i++) {
                        if (p[i].e <= s || p[i].s >= e)
                            continue;
                        assert_true(cpu < 0 || cpu == p[i].cpu);
                        cpu = p[i].cpu;
                    }
                    assert_true(cpu >= 0);
                    blocks++;
                }
    assert_true(blocks > 0);
}

static void same_heap(const struct node_range *nodes, unsigned nnodes, const unsigned *cpu_node)
{
    static const char *const eager[] = { "page", "chunk", "sweep" };
    struct heap_par_stats st;

    world(regions, 5, 4 * UNIT, nodes, nnodes);
    for (unsigned i = 0; i < 3; i++) {
        const struct heap_strategy *s = heap_strategy_find(eager[i], strlen(eager[i]));
        uint64_t want = serial(s);
        for (unsigned n = 1; n <= 4; n++) {
            cpus(n, cpu_node);
            uint64_t got = parallel(s, &st);
            if (got != want)
                fail_msg("%s on %u CPUs: digest %llx, serial %llx", s->name, n,
                         (unsigned long long)got, (unsigned long long)want);
            uint64_t sum = 0;
            for (unsigned c = 0; c < n; c++)
                sum += st.cpu_pages[c];
            assert_int_equal(sum, bootmem_pages(&heap_regions));
            blocks_stay_with_one_cpu(n, cpu_node);
        }
        first_touch(want);
    }
}

static void test_same_heap_one_node(void **state)
{
    (void)state;
    same_heap(NULL, 0, NULL);
}

static void test_same_heap_split_gigabyte(void **state)
{
    const unsigned node[4] = { 0, 1, 0, 1 };
    (void)state;
    same_heap(split, 3, node);
}

static void test_same_heap_cpuless_node(void **state)
{
    const unsigned node[4] = { 0, 0, 0, 0 };
    (void)state;
    same_heap(split, 3, node);
}

/* Without the heap's Xen costs, and without boot scrubbing: still the same heap. */
static void test_same_heap_other_costs(void **state)
{
    const struct heap_strategy *s = heap_strategy_find("page", 4);
    struct heap_par_stats st;
    (void)state;
    world(regions, 5, 4 * UNIT, NULL, 0);
    heap_boot_scrub = false;
    xen_costs = 0;
    uint64_t want = serial(s);
    cpus(3, NULL);
    assert_int_equal(parallel(s, &st), want);
    /* More CPUs than there are: refused, with the reason. */
    struct err e;
    uint64_t w[2];
    assert_int_equal(heap_par_build(&heap_default, s, 4, w, &st, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "4 CPUs asked for, 3 available"));
}

/* Two private heaps with blocks on one list, spliced: both lists whole, in order. */
static void test_splice(void **state)
{
    const struct heap_strategy *s = heap_strategy_find("chunk", 5);
    const struct bootmem_region two[] = { { 2 * UNIT, 4 * UNIT } };
    struct heap *p;
    (void)state;
    world(two, 1, 4 * UNIT, NULL, 0);
    cpus(2, NULL);
    p = storage;
    heap_reset();
    heap_clear(&p[0]);
    heap_clear(&p[1]);
    s->init_pages(&p[0], 2 * UNIT, UNIT);
    s->init_pages(&p[1], 3 * UNIT, UNIT);
    heap_par_splice(&heap_default, &p[1]);
    heap_par_splice(&heap_default, &p[0]);
    /* Both blocks in one zone (MFNs of the same bit width): one list, p[1]'s block first. */
    unsigned zone = mfn_to_zone(2 * UNIT);
    assert_int_equal(zone, mfn_to_zone(3 * UNIT));
    struct page_list_head *l = &heap(&heap_default, 0, zone, MAX_ORDER);
    assert_int_equal(page_to_mfn(l->next), 3 * UNIT);
    assert_int_equal(page_to_mfn(l->tail), 2 * UNIT);
    assert_int_equal(l->tail->list.prev, 3 * UNIT);
    assert_int_equal(l->next->list.next, 2 * UNIT);
    assert_int_equal(heap_default.total_avail_pages, 2 * UNIT);
    assert_int_equal(heap_default.nodes[0].avail[zone], 2 * UNIT);
    /* The source heaps are left as they were, and the result is the heap. */
    assert_int_equal(p[0].total_avail_pages, UNIT);
    audited_digest("splice");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_at_unit_edges),
        cmocka_unit_test(test_cut_at_node_edges),
        cmocka_unit_test(test_assign_keeps_units_whole),
        cmocka_unit_test(test_assign_cpuless_node),
        cmocka_unit_test(test_same_heap_one_node),
        cmocka_unit_test(test_same_heap_split_gigabyte),
        cmocka_unit_test(test_same_heap_cpuless_node),
        cmocka_unit_test(test_same_heap_other_costs),
        cmocka_unit_test(test_splice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
