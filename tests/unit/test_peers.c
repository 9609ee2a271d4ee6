// SPDX-License-Identifier: MIT
// Host tests of the peers (mm/peers/peer.h): Linux 6.1 and FreeBSD main on
// synthetic maps with holes, nodes and odd alignments, on one to three
// simulated CPUs. Each builds, audits green and holds exactly the pages
// Xen's heap holds; the block sets are the ones each kernel's rules give;
// the deferred and lazy parts do what their kernels do; and each audit
// catches a deliberately corrupted structure.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/peers/freebsd/freebsd.h"
#include "mm/peers/linux/linux.h"
#include "tests/unit/host_support.h"

static const char *const peers[] = { "linux", "linux_deferred", "linux612", "freebsd_lazy", "freebsd_lazy0" };
#define NPEERS (sizeof(peers) / sizeof(peers[0]))

static const struct peer_strategy *peer(const char *name)
{
    const struct peer_strategy *p = peer_strategy_find(name, strlen(name));
    assert_non_null(p);
    return p;
}

/* Frame tables for frames, regions r, nodes from ranges (NULL: one); cpus simulated CPUs. */
static void world(const struct bootmem_region *r, unsigned n, uint64_t frames,
                  const struct node_range *nodes, unsigned nnodes, unsigned ncpus, const unsigned *cpu_node)
{
    host_frames(frames);
    if (nodes)
        host_nodes(nodes, nnodes);
    host_heap_world(r, n);
    host_par_cpus = ncpus;
    for (unsigned c = 0; c < ncpus; c++)
        host_par_node[c] = cpu_node ? cpu_node[c] : 0;
}

/* Xen's heap of the same pages, by chunk: its page digest. */
static uint64_t xen_pages(void)
{
    struct heap_audit a;

    heap_reset();
    end_boot_allocator(&heap_default, heap_strategy_find("chunk", 5));
    assert_true(heap_audit(&a));
    return a.page_digest;
}

static void fail_audit(const char *name, const struct heap_audit *a)
{
    for (unsigned i = 0; i < a->nerrors && i < AUDIT_MAX_ERRORS; i++)
        fprintf(stderr, "audit (%s): %s\n", name, a->errors[i]);
    fail_msg("%s: audit failed", name);
}

/* Builds peer name completely (boot, one allocation given back, later part): its audit. */
static struct heap_audit build(const char *name)
{
    const struct peer_strategy *p = peer(name);
    struct peer_boot_stats b;
    struct peer_later_stats l;
    struct heap_audit a;
    struct err e;
    uint64_t w[2];

    assert_int_equal(p->reset(&e), 0);
    p->boot(&b);
    uint64_t pfn = p->alloc_page();
    assert_true(pfn != PEER_NO_PAGE);
    assert_true(heap_range_handed_over(pfn, 0));
    p->free_page(pfn);
    if (p->later)
        assert_int_equal(p->run_later(host_par_cpus, w, &l, &e), 0);
    if (!p->audit(&a))
        fail_audit(name, &a);
    assert_int_equal(a.free_pages, heap_handover_pages());
    return a;
}

/* Every peer holds Xen's pages. */
static void all_hold_xens_pages(void)
{
    uint64_t want = xen_pages();

    for (unsigned i = 0; i < NPEERS; i++) {
        struct heap_audit a = build(peers[i]);
        if (a.page_digest != want)
            fail_msg("%s holds other pages than Xen's heap", peers[i]);
    }
}

static void test_maps_with_holes_and_odd_edges(void **state)
{
    (void)state;
    const struct bootmem_region irregular[] = {
        { 1, 0x9f }, { 0x100, 0x1ff }, { 0x260, 0x3f400 }, { 0x3fe00, 0x3ffef },
        { 0x40000, 0x40001 }, { 0x40002, 0x7ffff }, { 0x80000, 0x80800 },
    };
    world(irregular, 7, 0x100000, NULL, 0, 1, NULL);
    all_hold_xens_pages();

    struct bootmem_region tiny[40];
    for (unsigned i = 0; i < 40; i++)
        tiny[i] = (struct bootmem_region){ 16 + 4 * i, 16 + 4 * i + 3 };
    world(tiny, 40, 1024, NULL, 0, 1, NULL);
    all_hold_xens_pages();

    /* Touching regions, across the 16 MiB and 4 GiB zone edges, ending one page short. */
    const struct bootmem_region edges[] = { { 0x800, 0x1000 }, { 0x1000, 0x1801 }, { 0xff000, 0x100000 },
                                            { 0x100000, 0x14ffff } };
    world(edges, 4, 0x150000, NULL, 0, 2, NULL);
    all_hold_xens_pages();
}

static void test_nodes_and_cpus(void **state)
{
    (void)state;
    /* A node boundary inside a MAX_ORDER window and inside a 16 MiB chunk; CPUs on both nodes. */
    const struct bootmem_region r[] = { { 0x100, 0x3ff00 }, { 0x40000, 0x130000 } };
    const struct node_range nodes[] = { { 0, 0x88100, 0 }, { 0x88100, 0x130000, 1 } };
    const unsigned on[] = { 0, 1, 1 };
    world(r, 2, 0x130000, nodes, 2, 3, on);
    all_hold_xens_pages();
    /* No block crosses the node boundary. */
    struct heap_audit a = build("linux_deferred");
    (void)a;
    for (uint64_t pfn = 0x88000; pfn < 0x88100; pfn++)
        assert_false(lx_page_buddy(lx_pfn_to_page(pfn)) &&
                     pfn + (1ul << lx_pfn_to_page(pfn)->private) > 0x88100);
    /* A CPU-less node: its deferred init runs on some other CPU. */
    const unsigned none_on_1[] = { 0, 0 };
    world(r, 2, 0x130000, nodes, 2, 2, none_on_1);
    all_hold_xens_pages();
}

/* The blocks Linux's rules give: greedy blocks of at most order 10 per run, merged where runs touch. */
static void test_linux_blocks(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 0x123, 0x2000 }, { 0x2000, 0x2345 } };
    world(r, 2, 0x4000, NULL, 0, 1, NULL);
    struct heap_audit a = build("linux");
    /* 0x123..0x2345 as one run: rising to 0x400, 7 order-10 blocks to 0x2000, falling to 0x2345. */
    assert_int_equal(a.blocks[10], 7);
    assert_int_equal(a.blocks[9], 2);             /* 0x200 and 0x2000 */
    uint64_t sum = 0;
    for (unsigned o = 0; o <= 10; o++)
        sum += a.blocks[o] << o;
    assert_int_equal(sum, 0x2345 - 0x123);
    for (unsigned o = 11; o <= MAX_ORDER; o++)
        assert_int_equal(a.blocks[o], 0);
    /* The deferred one merges its pageblocks to the same blocks. */
    struct heap_audit d = build("linux_deferred");
    assert_int_equal(d.digest, a.digest);
}

static void test_linux_defers_past_the_first_section(void **state)
{
    (void)state;
    /* One node: DMA32 below 4 GiB whole, NORMAL above deferred after its first section. */
    const struct bootmem_region r[] = { { 0x100, 0x80000 }, { 0x100000, 0x180000 } };
    struct err e;
    world(r, 2, 0x180000, NULL, 0, 2, NULL);
    const struct peer_strategy *p = peer("linux_deferred");
    struct peer_boot_stats b;
    assert_int_equal(p->reset(&e), 0);
    p->boot(&b);
    assert_int_equal(lx_nodes[0].first_deferred_pfn, 0x100000 + LX_SECTION_PAGES);
    /* The struct pages past it are untouched until the deferred part. */
    assert_int_equal(lx_pfn_to_page(0x100000 + LX_SECTION_PAGES)->flags, 0);
    assert_true(lx_pfn_to_page(0x100000 + LX_SECTION_PAGES - 1)->refcount == 0);
    uint64_t boot_pages = (uint64_t)lx_nodes[0].zones[LX_ZONE_NORMAL].managed_pages;
    assert_int_equal(boot_pages, LX_SECTION_PAGES);
    assert_int_equal(lx_nodes[0].zones[LX_ZONE_DMA32].managed_pages, 0x80000 - 0x1000);
    struct peer_later_stats l;
    uint64_t w[2];
    assert_int_equal(p->run_later(2, w, &l, &e), 0);
    assert_int_equal(l.node_pages[0], 0x80000 - LX_SECTION_PAGES);
    assert_int_equal(l.node_threads[0], 2);
    assert_int_equal(l.cpu_pages[0] + l.cpu_pages[1], 0x80000 - LX_SECTION_PAGES);
    struct heap_audit a;
    if (!p->audit(&a))
        fail_audit("linux_deferred", &a);
}

static void test_freebsd_lazy_inits_heads_only(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 0x1005, 0x9000 } };
    struct err e;
    world(r, 1, 0x10000, NULL, 0, 2, NULL);
    const struct peer_strategy *p = peer("freebsd_lazy");
    struct peer_boot_stats b;
    assert_int_equal(p->reset(&e), 0);
    p->boot(&b);
    unsigned inited = 0, heads = 0;
    for (uint64_t pfn = 0x1005; pfn < 0x9000; pfn++) {
        inited += fb_pfn_to_page(pfn)->phys_addr != 0;
        heads += fb_pfn_to_page(pfn)->order != FB_NFREEORDER && fb_pfn_to_page(pfn)->phys_addr;
    }
    /* Chunks of the orders of 0xffb's bits up to 0x2000 (11), then seven of 16 MiB: only their heads. */
    assert_int_equal(heads, inited);
    assert_int_equal(heads, 18);
    /* The first allocation initialises one whole chunk, the largest (order 12). */
    uint64_t pfn = p->alloc_page();
    unsigned after = 0;
    for (uint64_t q = 0x1005; q < 0x9000; q++)
        after += fb_pfn_to_page(q)->phys_addr != 0;
    assert_int_equal(after, inited + 4095);
    assert_true(IS_ALIGNED(pfn, 4096));
    p->free_page(pfn);
    struct peer_later_stats l;
    uint64_t w[2];
    assert_int_equal(p->run_later(2, w, &l, &e), 0);
    struct heap_audit a;
    if (!p->audit(&a))
        fail_audit("freebsd_lazy", &a);
    /* The drain merged the chunks: 0x1005.. is one run, so the rising part merged upwards. */
    struct heap_audit eager = build("freebsd_lazy0");
    assert_int_equal(a.page_digest, eager.page_digest);
}

static void test_freebsd_refuses_too_many_segments(void **state)
{
    (void)state;
    struct bootmem_region r[70];
    struct err e;
    for (unsigned i = 0; i < 70; i++)
        r[i] = (struct bootmem_region){ 16 + 4 * i, 16 + 4 * i + 3 };
    world(r, 70, 1024, NULL, 0, 1, NULL);
    assert_int_equal(peer("freebsd_lazy0")->reset(&e), -E2BIG);
    assert_string_equal(e.msg, "FreeBSD keeps at most 63 physical segments (VM_PHYSSEG_MAX) and this "
                               "memory map needs 70");
}

static void expect_error(bool (*audit)(struct heap_audit *), const char *part)
{
    struct heap_audit a;

    assert_false(audit(&a));
    for (unsigned i = 0; i < a.nerrors && i < AUDIT_MAX_ERRORS; i++)
        if (strstr(a.errors[i], part))
            return;
    fail_msg("no audit error says '%s' (first: %s)", part, a.errors[0]);
}

static void test_linux_audit_catches_corruption(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x1000 } };
    world(r, 1, 0x2000, NULL, 0, 1, NULL);
    build("linux");
    struct heap_audit a;
    assert_true(lx_audit(&a));

    /* A tail that holds a reference. */
    lx_pfn_to_page(0x456)->refcount = 1;
    expect_error(lx_audit, "is not a free page");
    lx_pfn_to_page(0x456)->refcount = 0;
    assert_true(lx_audit(&a));

    /* nr_free that lies. */
    lx_nodes[0].zones[LX_ZONE_DMA].free_area[10].nr_free++;
    expect_error(lx_audit, "nr_free is");
    lx_nodes[0].zones[LX_ZONE_DMA].free_area[10].nr_free--;

    /* An order-10 block split into two free order-9 halves: buddies left unmerged. */
    struct lx_page *head = lx_pfn_to_page(0x800), *upper = lx_pfn_to_page(0xa00);
    struct lx_free_area *fa = lx_nodes[0].zones[LX_ZONE_DMA].free_area;
    head->private = 9;
    upper->private = 9;
    upper->mapcount = LX_PAGE_TYPE_BASE | ~(LX_PAGE_TYPE_BASE | LX_PG_buddy);
    upper->mapcount &= ~LX_PG_buddy;
    /* Move head to the order-9 list and put upper beside it. */
    head->lru.prev->next = head->lru.next;
    head->lru.next->prev = head->lru.prev;
    fa[10].nr_free--;
    struct lx_list *l9 = &fa[9].free_list[LX_MIGRATE_MOVABLE];
    for (struct lx_page *pg = head; pg; pg = pg == head ? upper : NULL) {
        pg->lru.next = l9;
        pg->lru.prev = l9->prev;
        l9->prev->next = &pg->lru;
        l9->prev = &pg->lru;
        fa[9].nr_free++;
    }
    expect_error(lx_audit, "unmerged");
}

static void test_freebsd_audit_catches_corruption(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 0x1000, 0x3000 } };
    world(r, 1, 0x4000, NULL, 0, 2, NULL);
    build("freebsd_lazy0");
    struct heap_audit a;
    assert_true(fb_audit(&a));

    /* A page left uninitialised. */
    uint64_t pa = fb_pfn_to_page(0x1234)->phys_addr;
    fb_pfn_to_page(0x1234)->phys_addr = 0;
    expect_error(fb_audit, "not an initialised free page");
    fb_pfn_to_page(0x1234)->phys_addr = pa;

    /* A chunk head that names another order. */
    fb_pfn_to_page(0x1000)->order = 11;
    expect_error(fb_audit, "says order 11");
    fb_pfn_to_page(0x1000)->order = 12;

    /* lcnt off by one. */
    fb_free_queues[0][FB_FREELIST_DEFAULT][FB_FREEPOOL_DEFAULT][12].lcnt++;
    expect_error(fb_audit, "lcnt");
    fb_free_queues[0][FB_FREELIST_DEFAULT][FB_FREEPOOL_DEFAULT][12].lcnt--;
    assert_true(fb_audit(&a));

    /*
     * The 16 MiB chunk at 0x2000 (first on its queue since the first
     * allocation split and merged 0x1000) split into two free halves:
     * allowed at boot, an error after a drain.
     */
    struct fb_freelist *fl = fb_free_queues[0][FB_FREELIST_DEFAULT][FB_FREEPOOL_DEFAULT];
    struct fb_page *m = fb_pfn_to_page(0x2000), *h = fb_pfn_to_page(0x2800);
    assert_ptr_equal(fl[12].pl.tqh_first, m);
    fl[12].pl.tqh_first = m->q.tqe_next;
    if (m->q.tqe_next)
        m->q.tqe_next->q.tqe_prev = &fl[12].pl.tqh_first;
    else
        fl[12].pl.tqh_last = &fl[12].pl.tqh_first;
    fl[12].lcnt--;
    for (struct fb_page *x = m; x; x = x == m ? h : NULL) {
        x->order = 11;
        x->q.tqe_next = NULL;
        x->q.tqe_prev = fl[11].pl.tqh_last;
        *fl[11].pl.tqh_last = x;
        fl[11].pl.tqh_last = &x->q.tqe_next;
        fl[11].lcnt++;
    }
    assert_true(fb_audit(&a));
    fb_merged = true;
    expect_error(fb_audit, "unmerged");
    fb_merged = false;
}

static void test_every_audit_sees_a_missing_page(void **state)
{
    (void)state;
    const struct bootmem_region r[] = { { 0x400, 0x1000 } };
    world(r, 1, 0x2000, NULL, 0, 1, NULL);
    for (unsigned i = 0; i < NPEERS; i++) {
        build(peers[i]);
        /* As if a page had gone from the accounting's count without the lists knowing. */
        heap_expected_pages++;
        expect_error(peer(peers[i])->audit, "were accounted to the heap");
        heap_expected_pages--;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maps_with_holes_and_odd_edges),
        cmocka_unit_test(test_nodes_and_cpus),
        cmocka_unit_test(test_linux_blocks),
        cmocka_unit_test(test_linux_defers_past_the_first_section),
        cmocka_unit_test(test_freebsd_lazy_inits_heads_only),
        cmocka_unit_test(test_freebsd_refuses_too_many_segments),
        cmocka_unit_test(test_linux_audit_catches_corruption),
        cmocka_unit_test(test_freebsd_audit_catches_corruption),
        cmocka_unit_test(test_every_audit_sees_a_missing_page),
    };
    return cmocka_run_group_tests_name("peers", tests, NULL, NULL);
}
