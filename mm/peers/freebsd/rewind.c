// SPDX-License-Identifier: MIT
// The lazy boot part undone without fb_reset()'s memset of the whole
// vm_page array, so that the benchmark can time a boot part of a few
// microseconds again and again (bench/measure.c): it zeroes the entries
// that boot and one allocation after it wrote, and nothing else.
#include "mm/peers/freebsd/freebsd.h"

#include "kernel/lib/libc.h"

static void zero(struct fb_page *m, uint64_t n, heap_touched_fn *touched)
{
    memset(m, 0, n * sizeof(*m));
    if (touched)
        touched(m, n * sizeof(*m));
}

/*
 * The chunk heads enqueue_contig() lists for a segment of npages from m
 * (phys.c), in the same steps: under lazy init each chunk's first page and
 * the one after its last chunk within the segment are all it initialised.
 */
static void zero_chunk_heads(struct fb_page *m, uint64_t npages, heap_touched_fn *touched)
{
    struct fb_page *m_end = m + npages;
    uint64_t lo = fb_page_to_pfn(m), diff;

    if (m < m_end && (diff = lo ^ (lo + npages - 1)) != 0) {
        unsigned order = MIN(fls64(diff) - 1, FB_NFREEORDER - 1u);
        for (uint64_t n = ALIGN_UP(lo, 1ul << order) - lo; n > 0;) {
            unsigned o = ffs64(n) - 1;
            zero(m, 1, touched);
            m += 1ul << o;
            n -= 1ul << o;
        }
    }
    for (; m + (1ul << (FB_NFREEORDER - 1)) <= m_end; m += 1ul << (FB_NFREEORDER - 1))
        zero(m, 1, touched);
    for (uint64_t n = (uint64_t)(m_end - m); n > 0;) {
        unsigned o = fls64(n) - 1;
        zero(m, 1, touched);
        m += 1ul << o;
        n -= 1ul << o;
    }
}

int fb_lazy_rewind(uint64_t alloc_pfn, heap_touched_fn *touched, struct err *e)
{
    for (unsigned i = 0; i < fb_nsegs; i++) {
        const struct fb_seg *seg = &fb_segs[i];
        zero_chunk_heads(seg->first_page, seg->end - seg->start, touched);
        /*
         * The first allocation took a lazy chunk, initialised every page of
         * it and split it: all within the naturally aligned block of the
         * largest order around the page it gave, cut to its segment.
         */
        if (alloc_pfn >= seg->start && alloc_pfn < seg->end) {
            uint64_t s = MAX(ALIGN_DOWN(alloc_pfn, 1ul << (FB_NFREEORDER - 1)), seg->start);
            uint64_t end = MIN(ALIGN_DOWN(alloc_pfn, 1ul << (FB_NFREEORDER - 1)) + (1ul << (FB_NFREEORDER - 1)),
                               seg->end);
            zero(fb_pfn_to_page(s), end - s, touched);
        }
    }
    return fb_reset_lists(true, e);
}
