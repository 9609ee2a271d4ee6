/* SPDX-License-Identifier: MIT */
/*
 * The frame table: one 32-byte struct page_info per page frame, as on x86-64
 * Xen, and the machine-to-phys (M2P) table beside it, one u64 per frame.
 *
 * Large holes: both tables are backed in sections of 2^18 frames (1 GiB of
 * physical memory, 8 MiB of page_info). A section is backed only when it
 * holds usable RAM; mfn_valid() says whether a frame's section is. A buddy
 * block of order <= MAX_ORDER (18) never leaves its section, so a valid
 * block's buddy is always valid too.
 */
#ifndef MM_FRAMETABLE_H
#define MM_FRAMETABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/compiler.h"
#include "mm/layout.h"

#define SECTION_SHIFT   18                      /* frames per section, log2 */
#define SECTION_PAGES   (1ull << SECTION_SHIFT)
#define NR_SECTIONS_MAX (MAX_PFN_LIMIT >> SECTION_SHIFT)

#define PAGE_LIST_NULL  UINT32_MAX

/* Free-list links: MFNs, 32 bits each, like Xen's pdx-compressed lists. */
struct page_list_entry {
    uint32_t next, prev;
};

struct page_info {
    struct page_list_entry list;    /* a free block's head: its free list */
    uint64_t count_info;            /* PGC_* state and flags, reference count */
    union {
        uint64_t type_info;         /* in use: what the page holds */
        struct {
            uint32_t first_dirty;   /* free head: first page needing scrub, or INVALID_DIRTY_IDX */
            uint8_t need_tlbflush;  /* the last owner may still have TLB entries */
            uint8_t scrub_state;
            uint16_t pad;
        } free;
    } u;
    union {
        uint32_t owner;             /* in use: owning domain id + 1; 0 = none */
        uint32_t order;             /* free head: order of the block (Xen's PFN_ORDER) */
    } v;
    uint32_t tlbflush_timestamp;
};
_Static_assert(sizeof(struct page_info) == 32, "struct page_info is 32 bytes, as on x86-64 Xen");

/*
 * Page state, in the top two bits of count_info. Unlike Xen, where a zeroed
 * entry means "in use", zero here means "uninitialised": the frame table
 * starts zeroed, and the lazy strategy leaves the tails of free blocks that
 * way until they are needed.
 */
#define PGC_state           (3ull << 62)
#define PGC_state_uninit    (0ull << 62)
#define PGC_state_inuse     (1ull << 62)
#define PGC_state_free      (2ull << 62)
/* Xen's page offlining (a page with memory errors taken out of use): never
 * started here, but the free path tests for it on every page, as Xen's does. */
#define PGC_state_offlining (3ull << 62)
#define PGC_need_scrub      (1ull << 61)
#define PGC_broken          (1ull << 60)    /* Xen's: the page has a hardware error */
#define PGC_count_mask      ((1ull << 48) - 1)

#define page_state_is(pg, st) (((pg)->count_info & PGC_state) == PGC_state_##st)

#define INVALID_DIRTY_IDX   UINT32_MAX
#define INVALID_M2P_ENTRY   (~0ull)

#ifdef BOOTHEAP_HOST
/* Host tests provide the storage. */
extern struct page_info *frame_table;
extern uint64_t *m2p;
#else
#define frame_table ((struct page_info *)FRAMETABLE_BASE)
#define m2p ((uint64_t *)M2P_BASE)
#endif

/* One past the highest MFN the tables cover. */
extern uint64_t max_pfn;
extern uint64_t section_valid[NR_SECTIONS_MAX / 64];

static inline struct page_info *mfn_to_page(uint64_t mfn) { return frame_table + mfn; }
static inline uint64_t page_to_mfn(const struct page_info *pg) { return (uint64_t)(pg - frame_table); }

/* True when mfn has a frame-table entry (Xen's mfn_valid). */
static inline bool mfn_valid(uint64_t mfn)
{
    uint64_t s = mfn >> SECTION_SHIFT;

    return mfn < max_pfn && (section_valid[s / 64] >> (s % 64)) & 1;
}

struct frametable_info {
    uint64_t sections;          /* backed sections */
    uint64_t bytes;             /* page_info bytes backed */
    uint64_t m2p_bytes;
    uint64_t setup_ticks;       /* TSC ticks of frametable_init() */
};

extern struct frametable_info frametable;

/*
 * Backs, maps and zeroes the frame table and the M2P table for every section
 * that holds a free boot-allocator page, up to max_pfn, with memory from the
 * boot allocator (2 MiB pages, as Xen's init_frametable). Panics when memory
 * runs out.
 */
void frametable_init(uint64_t max_pfn);

/* Marks the section of every page in [s, e) valid: host tests and setup. */
void frametable_mark_valid(uint64_t s, uint64_t e);

#endif
