// SPDX-License-Identifier: MIT
// The audit of the FreeBSD model, on its own structures, once the lazy
// pool (if any) is drained:
//  - the TAILQ links of every free queue are consistent, lcnt matches;
//  - each chunk is naturally aligned, of order 12 or less, inside one
//    segment of the queue's domain and free list, inside the handed-over
//    memory; its first page says its order and pool and is initialised
//    (physical address, segment); its other pages are initialised and
//    are not chunk heads; no page is in two chunks; no lazy chunk is left;
//  - after a drain, which frees every chunk through vm_phys_free_pages(),
//    no two free buddies of one order in one segment are left unmerged
//    (vm_phys_enqueue_contig() at boot promises none of that);
//  - each domain's free count matches, and the queues hold every
//    handed-over page.
#include "mm/peers/freebsd/freebsd.h"

static const struct fb_seg *seg_of(uint64_t pfn)
{
    unsigned lo = 0, hi = fb_nsegs;

    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (fb_segs[mid].start <= pfn)
            lo = mid;
        else
            hi = mid;
    }
    return fb_nsegs && fb_segs[lo].start <= pfn && pfn < fb_segs[lo].end ? &fb_segs[lo] : NULL;
}

static void check_chunk(struct heap_audit *a, unsigned d, unsigned f, unsigned pool, unsigned order,
                        struct fb_page *m)
{
    uint64_t pfn = fb_page_to_pfn(m), n = 1ul << order;
    const struct fb_seg *seg = seg_of(pfn);

    if (order >= FB_NFREEORDER || !IS_ALIGNED(pfn, n) || !seg || pfn + n > seg->end ||
        !heap_range_handed_over(pfn, order)) {
        audit_complain(a, "chunk 0x%llx order %u is not an aligned chunk of handed-over pages of "
                       "one segment, of order 12 or less", (unsigned long long)pfn, order);
        return;
    }
    if (seg->domain != d || seg->freelist != f || m->segind != seg - fb_segs)
        audit_complain(a, "chunk 0x%llx on domain %u list %u belongs to segment %d of domain %u "
                       "list %u", (unsigned long long)pfn, d, f, m->segind, seg->domain, seg->freelist);
    if (m->order != order || m->pool != pool)
        audit_complain(a, "chunk 0x%llx on the order-%u pool-%u queue says order %u pool %u",
                       (unsigned long long)pfn, order, pool, m->order, m->pool);
    if (pool == FB_FREEPOOL_LAZYINIT)
        audit_complain(a, "chunk 0x%llx is still in the lazy init pool", (unsigned long long)pfn);
    for (uint64_t i = 0; i < n; i++) {
        const struct fb_page *t = m + i;
        if (t->phys_addr != (pfn + i) << PAGE_SHIFT || t->segind != m->segind ||
            t->busy_lock != FB_VPB_FREED || t->ref_count || (i && t->order != FB_NFREEORDER)) {
            audit_complain(a, "page 0x%llx of free chunk 0x%llx is not an initialised free page "
                           "(phys_addr 0x%llx, order %u)", (unsigned long long)(pfn + i),
                           (unsigned long long)pfn, (unsigned long long)t->phys_addr, t->order);
            break;
        }
    }
    peer_mark(a, pfn, pfn + n);
    if (fb_merged && order < FB_NFREEORDER - 1) {
        uint64_t b = pfn ^ n;
        if (pfn < b && b >= seg->start && b + n <= seg->end && fb_pfn_to_page(b)->order == order)
            audit_complain(a, "buddies 0x%llx and 0x%llx of order %u are both free, unmerged",
                           (unsigned long long)pfn, (unsigned long long)b, order);
    }
    a->free_pages += n;
    a->blocks[order]++;
    a->digest += peer_block_hash(d, f, order, pfn);
}

bool fb_audit(struct heap_audit *a)
{
    peer_audit_begin(a);
    for (unsigned d = 0; d < MAX_NUMNODES; d++) {
        uint64_t before = a->free_pages;
        for (unsigned f = 0; f < FB_NFREELIST; f++)
            for (unsigned p = 0; p < FB_NFREEPOOL; p++)
                for (unsigned o = 0; o < FB_NFREEORDER; o++) {
                    const struct fb_freelist *fl = &fb_free_queues[d][f][p][o];
                    struct fb_page *const *prevnext = &fl->pl.tqh_first;
                    int count = 0;
                    for (struct fb_page *m = fl->pl.tqh_first; m; m = m->q.tqe_next) {
                        uint64_t pfn = fb_page_to_pfn(m);
                        if (pfn >= max_pfn || !mfn_valid(pfn) || m->q.tqe_prev != prevnext ||
                            (uint64_t)count > a->expected_pages) {
                            audit_complain(a, "domain %u list %u pool %u order %u: the queue is broken "
                                           "at 0x%llx", d, f, p, o, (unsigned long long)pfn);
                            break;
                        }
                        check_chunk(a, d, f, p, o, m);
                        prevnext = &m->q.tqe_next;
                        count++;
                    }
                    if (fl->pl.tqh_last != prevnext || count != fl->lcnt)
                        audit_complain(a, "domain %u list %u pool %u order %u: lcnt %d, tail %s, the "
                                       "queue holds %d", d, f, p, o, fl->lcnt,
                                       fl->pl.tqh_last == prevnext ? "right" : "stale", count);
                }
        if ((uint64_t)fb_domains[d].free_count != a->free_pages - before)
            audit_complain(a, "domain %u counts %lld free pages, its queues hold %llu", d,
                           (long long)fb_domains[d].free_count,
                           (unsigned long long)(a->free_pages - before));
    }
    return peer_audit_end(a);
}
