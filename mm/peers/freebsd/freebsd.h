/* SPDX-License-Identifier: MIT */
/*
 * The FreeBSD main (amd64) model: struct vm_page, the physical segments and
 * the buddy free queues of sys/vm/vm_phys.c, and the steps of
 * vm_page_startup(). Shared by the files of this folder only: the model and
 * its two strategies (init_*.c). Names follow FreeBSD's; the code is
 * bootheap's.
 */
#ifndef MM_PEERS_FREEBSD_FREEBSD_H
#define MM_PEERS_FREEBSD_FREEBSD_H

#include "mm/peers/peer_priv.h"

#define FB_NFREEORDER       13          /* VM_NFREEORDER on amd64: orders 0 .. 12, 16 MiB chunks */
/* amd64's free pools; LAZYINIT first, so that allocations fall back to it first. */
enum { FB_FREEPOOL_LAZYINIT, FB_FREEPOOL_DEFAULT, FB_FREEPOOL_DIRECT, FB_NFREEPOOL };
/* amd64's free lists: below 16 MiB (ISA DMA), below 4 GiB when there is plenty above, the rest. */
enum { FB_FREELIST_DEFAULT, FB_FREELIST_DMA32, FB_FREELIST_LOWMEM, FB_NFREELIST };
#define FB_LOWMEM_END_PFN   0x1000ul            /* VM_LOWMEM_BOUNDARY, 16 MiB */
#define FB_DMA32_END_PFN    0x100000ul          /* 4 GiB */
#define FB_DMA32_NPAGES_THRESHOLD 16777216ul    /* pages above 4 GiB for a DMA32 list */

#define FB_PQ_NONE          255
#define FB_VPB_FREED        0xfffffffeu         /* VPB_FREED: VPB_SHARERS_WORD(0) less the shared bit */
#define FB_PAT_WRITE_BACK   6

/*
 * struct vm_page on amd64 (sys/vm/vm_page.h, with amd64's struct md_page:
 * a pv_list TAILQ_HEAD, pv_gen and pat_mode): 84 bytes of fields, 88 with
 * the alignment of its pointers.
 */
struct fb_page {
    struct {
        struct fb_page *tqe_next;
        struct fb_page **tqe_prev;
    } q;                            /* plinks.q: a free chunk's links */
    void *object;
    uint64_t pindex;
    uint64_t phys_addr;
    struct {
        struct {
            void *tqh_first;
            void **tqh_last;
        } pv_list;
        int32_t pv_gen;
        int32_t pat_mode;
    } md;
    uint32_t ref_count;
    uint32_t busy_lock;
    struct {
        uint16_t flags;
        uint8_t queue;
        uint8_t act_count;
    } a;                            /* union vm_page_astate */
    uint8_t order;                  /* a free chunk's order, else FB_NFREEORDER */
    uint8_t pool;
    uint8_t flags;
    uint8_t oflags;
    int8_t psind;
    int8_t segind;
    uint8_t valid;
    uint8_t dirty;
};
_Static_assert(sizeof(struct fb_page) == 88, "struct vm_page is 88 bytes on amd64");

#define fb_page_array ((struct fb_page *)peer_array(PEER_FREEBSD))

struct fb_freelist {
    struct {
        struct fb_page *tqh_first;
        struct fb_page **tqh_last;
    } pl;
    int lcnt;
};

/* A vm_phys_seg: pages [start, end) of one domain and one free list. */
struct fb_seg {
    uint64_t start, end;            /* PFNs */
    unsigned domain, freelist;
    struct fb_page *first_page;
};

#define FB_MAX_SEGS 63                  /* VM_PHYSSEG_MAX on amd64 */

struct fb_domain {
    peer_lock_t free_lock;          /* vm_domain_free_lock() */
    int64_t free_count;             /* vmd_free_count */
    uint64_t page_count;
};

extern struct fb_seg fb_segs[FB_MAX_SEGS];
extern unsigned fb_nsegs;
extern struct fb_domain fb_domains[MAX_NUMNODES];
extern struct fb_freelist fb_free_queues[MAX_NUMNODES][FB_NFREELIST][FB_NFREEPOOL][FB_NFREEORDER];
/* After the lazy pool is drained, the free lists' buddies are merged (vm_phys_free_pages()). */
extern bool fb_merged;

static inline struct fb_page *fb_pfn_to_page(uint64_t pfn)
{
    return fb_page_array + pfn;
}

static inline uint64_t fb_page_to_pfn(const struct fb_page *m)
{
    return (uint64_t)(m - fb_page_array);
}

/* ---- mm/peers/freebsd/phys.c ---- */

/*
 * Segments from the runs, every queue empty, the handed-over entries
 * zeroed. Untimed. Returns 0, or -E2BIG with e set when the map needs more
 * segments than FreeBSD keeps (it panics there).
 */
int fb_reset(bool lazy, struct err *e);

/* fb_reset() less its zeroing of the array: the queues, domains and segments afresh. */
int fb_reset_lists(bool lazy, struct err *e);

/* vm_page_startup()'s loop over the segments: init (all pages, or heads only) and enqueue. */
void fb_startup(bool lazy);

/* The boot part: fb_startup(), timed into st (all of it as init_ticks). */
void fb_boot(bool lazy, struct peer_boot_stats *st);

/* vm_phys_alloc_pages(domain, VM_FREEPOOL_DEFAULT, 0): one page, or PEER_NO_PAGE. */
uint64_t fb_alloc_page(void);

/* vm_phys_free_pages(m, VM_FREEPOOL_DEFAULT, 0) for that page. */
void fb_free_page(uint64_t pfn);

/* vm_phys_lazy_init(): the lazy init pool drained, on one thread, worker cpus - 1. */
int fb_lazy_drain(unsigned cpus, uint64_t window[2], struct peer_later_stats *st, struct err *e);

/* ---- mm/peers/freebsd/audit.c ---- */

bool fb_audit(struct heap_audit *a);

/* ---- mm/peers/freebsd/rewind.c ---- */

/* The lazy strategy's rewind (mm/peers/peer.h): its boot part and first allocation undone. */
int fb_lazy_rewind(uint64_t alloc_pfn, heap_touched_fn *touched, struct err *e);

#endif
