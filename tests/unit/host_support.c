// SPDX-License-Identifier: MIT
// What the kernel provides and the host tests must supply instead: storage
// for the frame table and M2P, a fresh heap world, and panic().
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/panic.h"
#include "mm/frametable.h"
#include "mm/heap_par.h"
#include "mm/heap_priv.h"
#include "mm/numa.h"
#include "mm/peers/peer_priv.h"
#include "tests/unit/host_support.h"

struct page_info *frame_table;
uint64_t *m2p;
uint8_t *peer_array_base[PEER_LAYOUTS];
uint64_t *lx_pageblock_flags;

static uint64_t *audit_bitmap;

uint64_t *host_frames(uint64_t frames)
{
    free(frame_table);
    free(m2p);
    free(audit_bitmap);
    free(lx_pageblock_flags);
    /* The peers' arrays reach every buddy of a MAX_ORDER block, as the kernel's 2 MiB backing does. */
    uint64_t peer_frames = ALIGN_UP(frames, 1ull << 12);
    for (unsigned l = 0; l < PEER_LAYOUTS; l++) {
        free(peer_array_base[l]);
        peer_array_base[l] = calloc(peer_frames, peer_layouts[l].entry_bytes);
        assert_non_null(peer_array_base[l]);
    }
    lx_pageblock_flags = calloc(peer_frames / 1024 + 1, 8);
    peer_ready = (1u << PEER_LAYOUTS) - 1;
    frame_table = calloc(frames, sizeof(struct page_info));
    m2p = calloc(frames, sizeof(uint64_t));
    audit_bitmap = calloc((frames + 63) / 64, sizeof(uint64_t));
    assert_non_null(frame_table);
    assert_non_null(m2p);
    assert_non_null(audit_bitmap);
    max_pfn = frames;
    memset(section_valid, 0, sizeof(section_valid));
    numa_reset();
    return audit_bitmap;
}

void host_heap_world(const struct bootmem_region *r, unsigned n)
{
    uint64_t pages = 0;

    bootmem_reset(&bootmem);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(bootmem_add(&bootmem, r[i].s, r[i].e), 0);
        frametable_mark_valid(r[i].s, r[i].e);
        /* The heap never takes MFN 0. */
        pages += r[i].e - r[i].s - (r[i].s == 0);
    }
    heap_boot_scrub = true;
    xen_costs = XC_ALL;
    heap_setup(audit_bitmap, pages);
}

void host_nodes(const struct node_range *nodes, unsigned n)
{
    static uint8_t map[1 << 16];
    uint64_t entries;
    struct err e;
    unsigned shift = numa_hash_shift(nodes, n, &entries);

    assert_true(entries <= sizeof(map));
    assert_int_equal(numa_populate(map, entries, nodes, n, shift, &e), 0);
    numa_install(map, entries, shift);
}

jmp_buf *panic_jump;
char panic_message[256];

void panic(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(panic_message, sizeof(panic_message), fmt, ap);
    va_end(ap);
    if (panic_jump)
        longjmp(*panic_jump, 1);
    fprintf(stderr, "panic: %s\n", panic_message);
    abort();
}

/*
 * Simulated CPUs for the parallel heap init: host_par_cpus workers, worker
 * c on node host_par_node[c], run one after another from the last to the
 * first, so that a splice never finds the lists in address order.
 */
unsigned host_par_cpus = 1;
unsigned host_par_node[HEAP_PAR_MAX_CPUS];

unsigned heap_par_platform_cpus(void)
{
    return host_par_cpus;
}

unsigned heap_par_platform_node(unsigned cpu)
{
    return host_par_node[cpu];
}

void heap_par_platform_run(unsigned n, heap_par_fn fn, void *arg, uint64_t window[2])
{
    window[0] = 0;
    for (unsigned c = n; c-- > 0;)
        fn(c, arg);
    window[1] = 0;
}

uint64_t heap_par_platform_now(void)
{
    return 0;
}
