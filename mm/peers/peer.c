// SPDX-License-Identifier: MIT
// What every peer shares: its layout, the runs it is handed, its floor, and
// the bookkeeping of its audit.
#include "mm/peers/peer_priv.h"

#include "kernel/lib/libc.h"
#include "kernel/panic.h"

const struct peer_layout_info peer_layouts[PEER_LAYOUTS] = {
    [PEER_LINUX] = { "linux", "Linux struct page array", 64 },
    [PEER_FREEBSD] = { "freebsd", "FreeBSD vm_page array", 88 },
};

struct peer_run peer_runs[PEER_MAX_RUNS];
unsigned peer_nruns;
unsigned peer_ready;

bool peer_layout_ready(enum peer_layout l)
{
    return (peer_ready >> l) & 1;
}

void peer_runs_build(void)
{
    struct node_range nr[MAX_NUMNODES * 2];

    peer_nruns = 0;
    for (unsigned i = 0; i < heap_regions.nr;) {
        uint64_t s = heap_regions.r[i].s, e = heap_regions.r[i].e;
        /* Join the regions that continue this one without a gap. */
        for (i++; i < heap_regions.nr && heap_regions.r[i].s == e; i++)
            e = heap_regions.r[i].e;
        s = s ? s : 1;
        while (s < e) {
            unsigned n = numa_ranges(s, e, nr, ARRAY_SIZE(nr));
            for (unsigned k = 0; k < n; k++) {
                if (peer_nruns == PEER_MAX_RUNS)
                    panic("the handed-over memory falls into more than %u runs of one node",
                          PEER_MAX_RUNS);
                peer_runs[peer_nruns++] = (struct peer_run){ nr[k].s, nr[k].e, nr[k].node };
            }
            s = nr[n - 1].e;
        }
    }
}

uint64_t peer_runs_pages(void)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < peer_nruns; i++)
        n += peer_runs[i].e - peer_runs[i].s;
    return n;
}

uint64_t peer_floor_bytes(enum peer_layout l)
{
    return heap_handover_pages() * peer_layouts[l].entry_bytes;
}

/* Memsets region i's entries in layout l's array with a non-zero byte. */
static void floor_region(enum peer_layout l, unsigned i)
{
    const struct bootmem_region *r = &heap_regions.r[i];
    unsigned b = peer_layouts[l].entry_bytes;

    heap_floor_fill(peer_array(l) + r->s * b, 0xff, (r->e - r->s) * b);
}

bool peer_array_zero(enum peer_layout l)
{
    unsigned b = peer_layouts[l].entry_bytes;

    for (unsigned i = 0; i < heap_regions.nr; i++) {
        const struct bootmem_region *r = &heap_regions.r[i];
        const uint8_t *p = peer_array(l) + r->s * b;
        for (uint64_t k = 0; k < (r->e - r->s) * b; k++)
            if (p[k])
                return false;
    }
    return true;
}

int peer_floor(enum peer_layout l, unsigned cpus, uint64_t window[2], struct err *e)
{
    unsigned first = heap_regions.nr;

    if (cpus > 1) {
        struct heap_par_stats st;
        return heap_par_floor_array(cpus, peer_array(l), peer_layouts[l].entry_bytes, window, &st, e);
    }
    /* In end_boot_allocator()'s order, as the Xen floor (mm/heap.c says why). */
    for (unsigned i = 0; i < heap_regions.nr && first == heap_regions.nr; i++)
        if (mfn_to_nid(heap_regions.r[i].s) == 0)
            first = i;
    window[0] = heap_par_platform_now();
    if (first < heap_regions.nr)
        floor_region(l, first);
    for (unsigned i = heap_regions.nr; i-- > 0;)
        if (i != first)
            floor_region(l, i);
    window[1] = heap_par_platform_now();
    return 0;
}

bool peer_mark(struct heap_audit *a, uint64_t s, uint64_t e)
{
    for (uint64_t p = s; p < e; p++) {
        uint64_t *w = &heap_audit_bitmap[p / 64], bit = 1ull << (p % 64);
        if (*w & bit) {
            audit_complain(a, "page 0x%llx is in two free blocks", (unsigned long long)p);
            return false;
        }
        *w |= bit;
    }
    return true;
}

void peer_audit_begin(struct heap_audit *a)
{
    memset(a, 0, sizeof(*a));
    a->expected_pages = heap_expected_pages;
    memset(heap_audit_bitmap, 0, ALIGN_UP(max_pfn, 64) / 8);
}

bool peer_audit_end(struct heap_audit *a)
{
    if (a->free_pages != a->expected_pages)
        audit_complain(a, "the lists hold %llu pages, %llu were accounted to the heap",
                       (unsigned long long)a->free_pages, (unsigned long long)a->expected_pages);
    a->page_digest = pageset_digest(heap_audit_bitmap, max_pfn);
    a->ok = a->nerrors == 0;
    return a->ok;
}

uint64_t peer_block_hash(unsigned node, unsigned zone, unsigned order, uint64_t pfn)
{
    uint64_t x = pfn ^ ((uint64_t)node << 56 | (uint64_t)zone << 48 | (uint64_t)order << 40);

    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}
