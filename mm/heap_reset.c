// SPDX-License-Identifier: MIT
// What the benchmark does to the heap before and between runs, on top of
// Xen's code in mm/heap.c: the setup, the reset, the floor's stores, and the
// cheap undo of a heads-only init that lets a short window be repeated.
#include "mm/heap_priv.h"

#include "kernel/lib/libc.h"

void *heap_memset(void *dst, int c, size_t n)
{
    return memset(dst, c, n);
}

heap_fill_fn *heap_floor_fill = heap_memset;

/* Fills the page_info entries of handed-over region i, and their M2P entries when with_m2p. */
static void fill_region(unsigned i, uint8_t page_byte, uint8_t m2p_byte, bool with_m2p, heap_fill_fn *fill)
{
    const struct bootmem_region *r = &heap_regions.r[i];

    fill(mfn_to_page(r->s), page_byte, (r->e - r->s) * sizeof(struct page_info));
    if (with_m2p)
        fill(&m2p[r->s], m2p_byte, (r->e - r->s) * sizeof(uint64_t));
}

/* Memsets the page_info and M2P entries of every handed-over page. */
static void fill_metadata(uint8_t page_byte, uint8_t m2p_byte)
{
    for (unsigned i = 0; i < heap_regions.nr; i++)
        fill_region(i, page_byte, m2p_byte, true, heap_memset);
}

void heap_reset(void)
{
    fill_metadata(0, 0);
    heap_clear(&heap_default);
    bootmem = heap_regions;
}

void heap_setup(uint64_t *audit_bitmap, uint64_t expected_pages)
{
    heap_regions = bootmem;
    heap_audit_bitmap = audit_bitmap;
    heap_expected_pages = expected_pages;
    heap_reset();
}

/* Zeroes the page_info and M2P entries of mfn, and says so. */
static void zero_entry(uint64_t mfn, heap_touched_fn *touched)
{
    struct page_info *pg = mfn_to_page(mfn);

    memset(pg, 0, sizeof(*pg));
    m2p[mfn] = 0;
    if (touched) {
        touched(pg, sizeof(*pg));
        touched(&m2p[mfn], sizeof(m2p[mfn]));
    }
}

void heap_rewind_heads(uint64_t alloc_mfn, heap_touched_fn *touched)
{
    struct node_range ranges[MAX_NUMNODES * 2];

    /*
     * The heads heap_init_blocks() writes: the greedy blocks of every
     * same-node range of every region, MFN 0 left out as its prologue
     * does. Merges where regions touch only rewrite heads among them.
     */
    for (unsigned i = 0; i < heap_regions.nr; i++) {
        uint64_t s = heap_regions.r[i].s ? heap_regions.r[i].s : 1, e = heap_regions.r[i].e;
        while (s < e) {
            unsigned n = numa_ranges(s, e, ranges, ARRAY_SIZE(ranges));
            for (unsigned k = 0; k < n; k++)
                for (uint64_t b = ranges[k].s; b < ranges[k].e; b += 1ull << chunk_order(b, ranges[k].e))
                    zero_entry(b, touched);
            s = ranges[n - 1].e;
        }
    }
    /*
     * An allocation halves its block down to the page it gives, the last of
     * the block (heap_alloc_pages()): at each order it lists the lower half
     * and writes the upper half's head, the page's buddy and the page's own
     * block of that order, each rounded down to that order.
     */
    for (unsigned o = 0; alloc_mfn != UINT64_MAX && o <= MAX_ORDER; o++) {
        uint64_t mask = ~((1ull << o) - 1), own = alloc_mfn & mask, buddy = (alloc_mfn ^ (1ull << o)) & mask;
        zero_entry(own, touched);
        if (o < MAX_ORDER && buddy < max_pfn)
            zero_entry(buddy, touched);
    }
    heap_clear(&heap_default);
    bootmem = heap_regions;
}

/* The first handed-over region on the boot CPU's node (node 0), or heap_regions.nr. */
static __attribute__((noinline)) unsigned first_region_on_boot_node(void)
{
    for (unsigned i = 0; i < heap_regions.nr; i++)
        if (mfn_to_nid(heap_regions.r[i].s) == 0)
            return i;
    return heap_regions.nr;
}

void heap_floor_write(void)
{
    unsigned first = first_region_on_boot_node();
    bool with_m2p = !xc_on(xen_costs, XC_M2P);

    /*
     * Non-zero bytes: an init must write a non-zero page state, and some
     * CPUs fill zeros faster than anything else (hosted/stores.c measured
     * 1.1-1.5x on this project's machines), which would set the floor below
     * what any init can reach.
     *
     * In the order end_boot_allocator() hands the regions over: heap_reset()
     * leaves the last metadata it zeroed in the cache, and a floor that
     * walked the regions in another order than the strategies would start
     * colder than they do (callgrind: twice their last-level misses at 4 GiB).
     * The M2P entries only when the strategies store them (xen_costs=-m2p).
     */
    if (first < heap_regions.nr)
        fill_region(first, 0xff, 0xff, with_m2p, heap_floor_fill);
    for (unsigned i = heap_regions.nr; i-- > 0;)
        if (i != first)
            fill_region(i, 0xff, 0xff, with_m2p, heap_floor_fill);
}

uint64_t heap_floor_bytes(void)
{
    return heap_handover_pages() * xc_metadata_bytes(xen_costs);
}

bool heap_tables_zero(void)
{
    for (unsigned i = 0; i < heap_regions.nr; i++) {
        const struct bootmem_region *r = &heap_regions.r[i];
        const uint8_t *p = (const uint8_t *)mfn_to_page(r->s);
        for (uint64_t k = 0; k < (r->e - r->s) * sizeof(struct page_info); k++)
            if (p[k])
                return false;
        for (uint64_t mfn = r->s; mfn < r->e; mfn++)
            if (m2p[mfn])
                return false;
    }
    return true;
}
