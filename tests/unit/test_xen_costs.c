// SPDX-License-Identifier: MIT
// Host tests of the Xen cost model (mm/xen_costs.h), built with
// -DXEN_COSTS_COUNT so that each modelled cost is counted where it is paid:
// xen_costs= parsing, every strategy's heap the same under every switch,
// each switch removing exactly its own work, and the M2P left alone when
// Xen's boot-time M2P is modelled.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "mm/heap_priv.h"
#include "tests/unit/host_support.h"

#ifndef XEN_COSTS_COUNT
#error "test_xen_costs needs -DXEN_COSTS_COUNT"
#endif


static const char *const all_strategies[] = { "page", "chunk", "chunk-72b02bc", "sweep", "lazy" };
#define NR_STRATEGIES (sizeof(all_strategies) / sizeof(all_strategies[0]))

/*
 * Two fake nodes split at 1 GiB, regions with odd edges on both, one
 * region across the node boundary, MFN 0 handed over: every path runs.
 */
static const struct bootmem_region map[] = {
    { 0, 0x9f }, { 0x100, 0x7ff3 }, { 0x8001, 0x8400 }, { 0x3fe11, 0x40345 }, { 0x40400, 0x48000 },
};
#define MAP_FRAMES 0x50000ull

static void world(void)
{
    host_frames(MAP_FRAMES);
    numa_set_range(0x40000, 0x80000, 1);
    host_heap_world(map, sizeof(map) / sizeof(map[0]));
}

struct run {
    uint64_t counts[XC_NR];
    uint64_t digest;
    uint64_t blocks;            /* free blocks after init */
    uint64_t m2p_invalid;       /* handed-over pages whose M2P entry is invalid */
    uint64_t m2p_zero;          /* ... still zero, as the reset left them */
};

/* Builds the heap with strategy name under costs; audits and counts. */
static struct run build(const char *name, unsigned costs)
{
    const struct heap_strategy *s = heap_strategy_find(name, strlen(name));
    struct heap_audit a;
    struct run r = { 0 };

    assert_non_null(s);
    xen_costs = costs;
    heap_reset();
    memset(xc_counts, 0, sizeof(xc_counts));
    end_boot_allocator(&heap_default, s);
    memcpy(r.counts, xc_counts, sizeof(r.counts));
    if (!heap_audit(&a)) {
        for (unsigned i = 0; i < a.nerrors && i < AUDIT_MAX_ERRORS; i++)
            fprintf(stderr, "audit (%s, costs 0x%x): %s\n", name, costs, a.errors[i]);
        fail_msg("audit failed after %s with costs 0x%x", name, costs);
    }
    assert_int_equal(a.free_pages, heap_handover_pages());
    r.digest = a.digest;
    for (unsigned o = 0; o <= MAX_ORDER; o++)
        r.blocks += a.blocks[o];
    for (unsigned i = 0; i < heap_regions.nr; i++)
        for (uint64_t mfn = heap_regions.r[i].s; mfn < heap_regions.r[i].e; mfn++) {
            r.m2p_invalid += m2p[mfn] == INVALID_M2P_ENTRY;
            r.m2p_zero += m2p[mfn] == 0;
        }
    return r;
}

static void test_option_parses(void **state)
{
    unsigned v;
    struct err err;
    const struct cmdline_opt opt = {
        .key = "xen_costs", .type = OPT_SET, .dst = &v, .choices = xen_cost_names, .nchoices = XC_NR,
    };
    const struct { const char *line; unsigned want; } ok[] = {
        { "xen_costs=all", XC_ALL },
        { "xen_costs=none", 0 },
        { "xen_costs=-lfence,-m2p", XC_ALL & ~XC(XC_LFENCE) & ~XC(XC_M2P) },
        { "xen_costs=lfence,m2p", XC(XC_LFENCE) | XC(XC_M2P) },
        { "xen_costs=none,+pdx,zone", XC(XC_PDX) | XC(XC_ZONE) },
        { "xen_costs=+scrub_check", XC_ALL },
        { "xen_costs=-pdx,pdx", XC_ALL },
        { "xen_costs=all,-heap_ptrs,-node_heap,-memnode", XC_ALL & ~XC(XC_HEAP_PTRS) & ~XC(XC_NODE_HEAP) & ~XC(XC_MEMNODE) },
        { "xen_costs=lock runs=3", XC(XC_LOCK) },
    };
    (void)state;
    for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        v = XC_ALL;
        if (cmdline_parse(ok[i].line, &opt, 1, &err, NULL))
            fail_msg("%s: %s", ok[i].line, err.msg);
        if (v != ok[i].want)
            fail_msg("%s gave 0x%x, expected 0x%x", ok[i].line, v, ok[i].want);
    }
    const char *const bad[] = { "xen_costs=-lfnce", "xen_costs=", "xen_costs", "xen_costs=lock,",
                                "xen_costs=,lock", "xen_costs=--lock", "xen_costs=all,nothing" };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 0x5a;
        if (!cmdline_parse(bad[i], &opt, 1, &err, NULL))
            fail_msg("%s was accepted", bad[i]);
        assert_int_equal(v, 0x5a);
        assert_non_null(strstr(err.msg, "is not all, none or [+-] one of lfence mfn_valid lock m2p"));
    }
    assert_int_equal(cmdline_parse("xen_costs=-lfnce", &opt, 1, &err, NULL), -EINVAL);
    assert_string_equal(err.msg, "xen_costs=-lfnce: '-lfnce' is not all, none or [+-] one of lfence mfn_valid "
                             "lock m2p node_heap heap_ptrs pdx memnode zone scrub_check");
}

/* Every set, written by xc_describe() and read back by the option, is itself. */
static void test_describe_round_trips(void **state)
{
    unsigned v;
    char line[160], desc[96];
    struct err err;
    const struct cmdline_opt opt = {
        .key = "xen_costs", .type = OPT_SET, .dst = &v, .choices = xen_cost_names, .nchoices = XC_NR,
    };
    (void)state;
    assert_string_equal(xc_describe(XC_ALL, desc, sizeof(desc)), "all");
    assert_string_equal(xc_describe(0, desc, sizeof(desc)), "none");
    assert_string_equal(xc_describe(XC_ALL & ~XC(XC_LFENCE) & ~XC(XC_M2P), desc, sizeof(desc)),
                        "-lfence,-m2p");
    assert_string_equal(xc_describe(XC(XC_PDX), desc, sizeof(desc)), "pdx");
    for (unsigned set = 0; set <= XC_ALL; set++) {
        snprintf(line, sizeof(line), "xen_costs=%s", xc_describe(set, desc, sizeof(desc)));
        v = XC_ALL;
        assert_int_equal(cmdline_parse(line, &opt, 1, &err, NULL), 0);
        if (v != set)
            fail_msg("%s read back as 0x%x, not 0x%x", line, v, set);
    }
}

/* The sets the ablation uses: all, none, all but one, and one alone. */
static unsigned ablation_set(unsigned i)
{
    if (i == 0)
        return XC_ALL;
    if (i == 1)
        return 0;
    if (i < 2 + XC_NR)
        return XC_ALL & ~XC(i - 2);
    return XC(i - 2 - XC_NR);
}
#define NR_ABLATION_SETS (2 + 2 * XC_NR)

static void test_digest_unchanged_by_any_switch(void **state)
{
    (void)state;
    world();
    uint64_t d = build("page", 0).digest;
    for (unsigned s = 0; s < NR_STRATEGIES; s++)
        for (unsigned i = 0; i < NR_ABLATION_SETS; i++) {
            uint64_t di = build(all_strategies[s], ablation_set(i)).digest;
            if (di != d)
                fail_msg("%s with costs 0x%x: digest %llx, page with none %llx", all_strategies[s],
                         ablation_set(i), (unsigned long long)di, (unsigned long long)d);
        }
    /* The boot-time scrub flag changes which list end a block joins, not the blocks. */
    heap_boot_scrub = false;
    assert_int_equal(build("page", XC_ALL).digest, d);
    assert_int_equal(build("sweep", XC_ALL).digest, d);
}

/*
 * Removing one cost removes its work and nothing else: its count drops to
 * zero and every other count stays. The exception is node_heap, whose
 * per-page node lookups also go, and with them their pdx and memnode work.
 */
static void test_each_switch_removes_its_own_work(void **state)
{
    (void)state;
    world();
    for (unsigned s = 0; s < NR_STRATEGIES; s++) {
        struct run all = build(all_strategies[s], XC_ALL);
        for (unsigned c = 0; c < XC_NR; c++) {
            struct run minus = build(all_strategies[s], XC_ALL & ~XC(c));
            if (minus.counts[c])
                fail_msg("%s without %s still pays it %llu times", all_strategies[s], xen_cost_names[c],
                         (unsigned long long)minus.counts[c]);
            for (unsigned k = 0; k < XC_NR; k++) {
                bool ok = k == c || (c == XC_NODE_HEAP ? minus.counts[k] <= all.counts[k]
                                                        : minus.counts[k] == all.counts[k]);
                if (!ok)
                    fail_msg("%s without %s: %s counted %llu, with all %llu", all_strategies[s],
                             xen_cost_names[c], xen_cost_names[k], (unsigned long long)minus.counts[k],
                             (unsigned long long)all.counts[k]);
            }
        }
        /* With nothing modelled, nothing is counted. */
        struct run none = build(all_strategies[s], 0);
        for (unsigned k = 0; k < XC_NR; k++)
            assert_int_equal(none.counts[k], 0);
    }
}

/* Where page and chunk pay each cost, counted against the pages and blocks handed over. */
static void test_page_and_chunk_pay_per_page_and_per_block(void **state)
{
    (void)state;
    world();
    uint64_t pages = heap_handover_pages(), regions = heap_regions.nr;
    struct run page = build("page", XC_ALL), chunk = build("chunk", XC_ALL);
    const uint64_t *p = page.counts, *c = chunk.counts;
    uint64_t chunk_blocks = 0;

    /* chunk hands over its greedy blocks; count them as _init_heap_pages() cuts them. */
    for (unsigned i = 0; i < heap_regions.nr; i++) {
        uint64_t s = MAX(heap_regions.r[i].s, 1), e = heap_regions.r[i].e;
        while (s < e) {
            uint64_t cut = mfn_to_nid(s) == 0 && e > 0x40000 && s < 0x40000 ? 0x40000 : e;
            s += 1ull << chunk_order(s, cut);
            chunk_blocks++;
        }
    }
    /* One set_gpfn_from_mfn() call per page, whichever strategy frees it. */
    assert_int_equal(p[XC_M2P], pages);
    assert_int_equal(c[XC_M2P], pages);
    /* A lock round trip per free_heap_pages() call, and one per region in the prologue. */
    assert_int_equal(p[XC_LOCK], 2 * (pages + regions));
    assert_int_equal(c[XC_LOCK], 2 * (chunk_blocks + regions));
    /* page_to_zone() once per free_heap_pages() call. */
    assert_int_equal(p[XC_ZONE], pages);
    assert_int_equal(c[XC_ZONE], chunk_blocks);
    /* 4.16 checks avail[nid] per page; 4.17 per same-node range: one per region, plus the cut. */
    assert_int_equal(p[XC_NODE_HEAP], pages);
    assert_int_equal(c[XC_NODE_HEAP], regions + 1);
    /* Every merge of page's order-0 frees checks the buddy's scrub state: one fewer block each. */
    assert_int_equal(p[XC_SCRUB_CHECK], pages - page.blocks);
    /* The fence is in every mfn_valid(), inline or out of line; each merge attempt calls it. */
    assert_int_equal(p[XC_LFENCE], p[XC_MFN_VALID]);
    assert_int_equal(c[XC_LFENCE], c[XC_MFN_VALID]);
    assert_true(p[XC_MFN_VALID] >= pages);
    assert_true(c[XC_MFN_VALID] >= chunk_blocks);
    /*
     * Paid per page by page and per block by chunk, these dwarf chunk's.
     * pdx and memnode are paid per page by both: 4.17 still looks up every
     * page's node to find where the node changes.
     */
    const enum xen_cost per_call[] = { XC_LFENCE, XC_MFN_VALID, XC_LOCK, XC_NODE_HEAP, XC_HEAP_PTRS, XC_ZONE };
    for (unsigned i = 0; i < sizeof(per_call) / sizeof(per_call[0]); i++)
        if (p[per_call[i]] <= 10 * c[per_call[i]])
            fail_msg("%s: page %llu, chunk %llu", xen_cost_names[per_call[i]],
                     (unsigned long long)p[per_call[i]], (unsigned long long)c[per_call[i]]);
    assert_true(c[XC_MEMNODE] >= pages && p[XC_MEMNODE] > c[XC_MEMNODE]);
    assert_true(c[XC_PDX] >= pages && p[XC_PDX] > c[XC_PDX]);
}

/*
 * The cover letter's code (72b02bc) pays what 4.17.0 pays per block and per
 * page, but for the node scan: one lookup per range where 4.17.0 makes one
 * per page. The same heap either way.
 */
static void test_chunk_72b02bc_drops_only_the_node_scan(void **state)
{
    (void)state;
    world();
    uint64_t pages = heap_handover_pages(), regions = heap_regions.nr;
    struct run chunk = build("chunk", XC_ALL), old = build("chunk-72b02bc", XC_ALL);
    const uint64_t *c = chunk.counts, *o = old.counts;

    assert_int_equal(old.digest, chunk.digest);
    const enum xen_cost same[] = { XC_M2P, XC_LOCK, XC_ZONE, XC_NODE_HEAP, XC_LFENCE, XC_MFN_VALID,
                                   XC_HEAP_PTRS, XC_SCRUB_CHECK };
    for (unsigned i = 0; i < sizeof(same) / sizeof(same[0]); i++)
        if (o[same[i]] != c[same[i]])
            fail_msg("%s: 72b02bc %llu, 4.17.0 %llu", xen_cost_names[same[i]],
                     (unsigned long long)o[same[i]], (unsigned long long)c[same[i]]);
    /* The scan's lookups: one a page in 4.17.0, one a range (and the cut) at 72b02bc. */
    assert_true(c[XC_MEMNODE] - o[XC_MEMNODE] >= pages - 2 * (regions + 1));
    assert_true(o[XC_MEMNODE] < pages / 10);
    assert_true(c[XC_PDX] - o[XC_PDX] >= pages - 2 * (regions + 1));
}

/* The M2P is written exactly when the store is modelled, by every strategy. */
static void test_m2p_untouched_without_stores(void **state)
{
    (void)state;
    world();
    uint64_t pages = heap_handover_pages();
    for (unsigned s = 0; s < NR_STRATEGIES; s++) {
        struct run xen = build(all_strategies[s], XC_ALL);
        struct run store = build(all_strategies[s], XC_ALL & ~XC(XC_M2P));
        assert_int_equal(xen.m2p_invalid, 0);
        assert_int_equal(xen.m2p_zero, bootmem_pages(&heap_regions));
        /* lazy writes heads only, the others every page (MFN 0 never). */
        if (strcmp(all_strategies[s], "lazy"))
            assert_int_equal(store.m2p_invalid, pages);
        else
            assert_int_equal(store.m2p_invalid, store.blocks);
    }
    /* Allocating a lazy heap's pages writes their deferred entries only with stores. */
    build("lazy", XC_ALL);
    while (heap_alloc_pages(0, NUMA_NO_NODE))
        ;
    for (uint64_t mfn = 0x100; mfn < 0x7ff3; mfn++)
        assert_int_equal(m2p[mfn], 0);
}

static void test_floor_follows_the_m2p_model(void **state)
{
    (void)state;
    world();
    uint64_t pages = heap_handover_pages();
    xen_costs = XC_ALL;
    assert_int_equal(heap_floor_bytes(), pages * 32);
    heap_reset();
    heap_floor_write();
    assert_int_equal(m2p[0x200], 0);
    assert_int_equal(frame_table[0x200].count_info, ~0ull);
    xen_costs = XC_ALL & ~XC(XC_M2P);
    assert_int_equal(heap_floor_bytes(), pages * 40);
    heap_reset();
    heap_floor_write();
    assert_int_equal(m2p[0x200], ~0ull);
    xen_costs = XC_ALL;
    heap_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_option_parses),
        cmocka_unit_test(test_describe_round_trips),
        cmocka_unit_test(test_digest_unchanged_by_any_switch),
        cmocka_unit_test(test_each_switch_removes_its_own_work),
        cmocka_unit_test(test_page_and_chunk_pay_per_page_and_per_block),
        cmocka_unit_test(test_chunk_72b02bc_drops_only_the_node_scan),
        cmocka_unit_test(test_m2p_untouched_without_stores),
        cmocka_unit_test(test_floor_follows_the_m2p_model),
    };
    return cmocka_run_group_tests_name("xen_costs", tests, NULL, NULL);
}
