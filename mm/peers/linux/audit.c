// SPDX-License-Identifier: MIT
// The audit of the Linux model, on its own structures, once the deferred
// part (if any) is done:
//  - free_list links are consistent and no list loops;
//  - each block is naturally aligned, of order at most 10, wholly inside the
//    handed-over memory and its zone, its head a buddy of its order
//    (PageBuddy, page->private) on the node and zone its flags name, below
//    pageblock order on the list of its pageblock's migrate type, at or
//    above it on the list of one of its pageblocks' types;
//  - every page of a free block has no references and none of the flags a
//    free page must not have, tails are not buddies, no page is in two blocks;
//  - no two free buddies of one order are left unmerged (what
//    __free_one_page() guarantees: same zone and node, mergeable types);
//  - nr_free, NR_FREE_PAGES (with the CPUs' pending deltas) and the managed
//    pages match the lists, and the lists hold every handed-over page.
#include "mm/peers/linux/linux.h"

static void check_block(struct heap_audit *a, const struct lx_zone *zone, unsigned nid, unsigned zid,
                        unsigned order, unsigned mt, struct lx_page *pg)
{
    uint64_t pfn = lx_page_to_pfn(pg), n = 1ul << order;

    if (order >= LX_MAX_ORDER || !IS_ALIGNED(pfn, n) || !heap_range_handed_over(pfn, order)) {
        audit_complain(a, "block 0x%llx order %u is not an aligned block of handed-over pages of "
                       "order 10 or less", (unsigned long long)pfn, order);
        return;
    }
    if (!lx_page_buddy(pg) || pg->private != order)
        audit_complain(a, "block 0x%llx on the order-%u list is not a buddy of that order "
                       "(page_type 0x%x, private %llu)", (unsigned long long)pfn, order, pg->mapcount,
                       (unsigned long long)pg->private);
    if (lx_page_to_nid(pg) != nid || lx_page_zonenum(pg) != zid || pfn < zone->zone_start_pfn ||
        pfn + n > zone->zone_end_pfn)
        audit_complain(a, "block 0x%llx on node %u zone %u's list belongs to node %u zone %u",
                       (unsigned long long)pfn, nid, zid, lx_page_to_nid(pg), lx_page_zonenum(pg));
    bool type_ok = false;
    for (uint64_t p = pfn; p < pfn + n; p += LX_PAGEBLOCK_PAGES)
        type_ok |= lx_pageblock_migratetype(p) == mt;
    if (!type_ok)
        audit_complain(a, "block 0x%llx order %u is on the migrate type %u list, its pageblock is "
                       "of type %u", (unsigned long long)pfn, order, mt, lx_pageblock_migratetype(pfn));
    for (uint64_t i = 0; i < n; i++) {
        const struct lx_page *t = pg + i;
        if (t->refcount || (t->flags & LX_FLAGS_CHECK_AT_FREE) || lx_page_zone_id(t) != lx_page_zone_id(pg) ||
            (i && t->mapcount != UINT32_MAX)) {
            audit_complain(a, "page 0x%llx of free block 0x%llx is not a free page (refcount %d, "
                           "page_type 0x%x, flags 0x%llx)", (unsigned long long)(pfn + i),
                           (unsigned long long)pfn, t->refcount, t->mapcount,
                           (unsigned long long)t->flags);
            break;
        }
    }
    peer_mark(a, pfn, pfn + n);
    if (order < LX_MAX_ORDER - 1 && heap_range_handed_over(pfn ^ n, order)) {
        const struct lx_page *b = lx_pfn_to_page(pfn ^ n);
        unsigned bmt = lx_pageblock_migratetype(pfn ^ n);
        bool mergeable = order < LX_PAGEBLOCK_ORDER || bmt == mt ||
                         (lx_migratetype_mergeable(mt) && lx_migratetype_mergeable(bmt));
        if (pfn < (pfn ^ n) && lx_page_buddy(b) && b->private == order &&
            lx_page_zone_id(b) == lx_page_zone_id(pg) && mergeable)
            audit_complain(a, "buddies 0x%llx and 0x%llx of order %u are both free, unmerged",
                           (unsigned long long)pfn, (unsigned long long)(pfn ^ n), order);
    }
    a->free_pages += n;
    a->blocks[order]++;
    a->digest += peer_block_hash(nid, zid, order, pfn);
}

/* Walks one free list; returns the blocks on it. */
static uint64_t walk(struct heap_audit *a, const struct lx_zone *zone, unsigned nid, unsigned zid,
                     unsigned order, unsigned mt)
{
    const struct lx_list *head = &zone->free_area[order].free_list[mt], *prev = head;
    uint64_t blocks = 0;

    for (const struct lx_list *l = head->next; l != head; prev = l, l = l->next) {
        struct lx_page *pg = (struct lx_page *)((char *)l - offsetof(struct lx_page, lru));
        uint64_t pfn = lx_page_to_pfn(pg);
        if (pfn >= max_pfn || !mfn_valid(pfn) || l->prev != prev || blocks > a->expected_pages) {
            audit_complain(a, "node %u zone %u order %u type %u: the list is broken at 0x%llx", nid,
                           zid, order, mt, (unsigned long long)pfn);
            break;
        }
        check_block(a, zone, nid, zid, order, mt, pg);
        blocks++;
    }
    return blocks;
}

bool lx_audit(struct heap_audit *a)
{
    peer_audit_begin(a);
    for (unsigned nid = 0; nid < MAX_NUMNODES; nid++)
        for (unsigned zid = 0; zid < LX_NR_ZONES; zid++) {
            const struct lx_zone *zone = &lx_nodes[nid].zones[zid];
            uint64_t before = a->free_pages;
            int64_t pending = 0;
            for (unsigned order = 0; order < LX_MAX_ORDER; order++) {
                uint64_t blocks = 0;
                for (unsigned mt = 0; mt < LX_MIGRATE_TYPES; mt++)
                    blocks += walk(a, zone, nid, zid, order, mt);
                if (blocks != zone->free_area[order].nr_free)
                    audit_complain(a, "node %u zone %u order %u: nr_free is %llu, the lists hold %llu",
                                   nid, zid, order, (unsigned long long)zone->free_area[order].nr_free,
                                   (unsigned long long)blocks);
            }
            for (unsigned c = 0; c < HEAP_PAR_MAX_CPUS; c++)
                pending += lx_percpu[c].stat_diff[nid][zid];
            uint64_t pages = a->free_pages - before;
            if ((uint64_t)(zone->vm_stat_free + pending) != pages || (uint64_t)zone->managed_pages != pages)
                audit_complain(a, "node %u zone %u: NR_FREE_PAGES %lld, managed %lld, the lists hold %llu",
                               nid, zid, (long long)(zone->vm_stat_free + pending),
                               (long long)zone->managed_pages, (unsigned long long)pages);
        }
    return peer_audit_end(a);
}
