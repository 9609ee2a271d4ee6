/* SPDX-License-Identifier: MIT */
/*
 * The buddy heap, modelled on Xen's domain heap (xen/common/page_alloc.c):
 * free lists per (node, zone, order), zone = bit width of the MFN, blocks of
 * up to 2^MAX_ORDER pages, one heap lock. This is the contract; the
 * strategies (mm/strategies/) and the audit share mm/heap_priv.h.
 */
#ifndef MM_HEAP_H
#define MM_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "mm/frametable.h"

#define MAX_ORDER 18                /* 1 GiB blocks, as x86-64 Xen */

/* A heap: per-node lists, counters and locks (mm/heap_priv.h). */
struct heap;

/* The heap the kernel builds; the calls below without a heap work on it. */
extern struct heap heap_default;

/* What a strategy's prepare() chose, and what it timed to choose it: the benchmark records it. */
struct heap_choice {
    const char *option;             /* the option it stands for, e.g. "sweep_stores" */
    const char *chosen;
    const char *kinds[2];           /* what it timed... */
    uint64_t ticks[2];              /* ...and how long each took */
    uint64_t pages;                 /* the entries each filled */
};

/*
 * A way to hand boot memory to a heap: Xen's init_heap_pages(), in one of
 * its versions or beyond. init_pages() gives heap h the pages
 * [mfn, mfn + nr), which are free, on any nodes, and never given twice.
 * eager: it writes every page's entry (the strategies a parallel init runs).
 */
struct heap_strategy {
    const char *name;               /* what strategies= takes */
    const char *what;               /* one line for reports */
    void (*init_pages)(struct heap *h, uint64_t mfn, uint64_t nr);
    bool eager;
    bool heads_only;                /* it writes block heads alone: heap_rewind_heads() undoes it */
    /*
     * Optional, untimed, once before the benchmark's runs: a choice this CPU
     * decides, reported in c. Returns false when it made none (the option
     * was given). Leaves the heap reset.
     */
    bool (*prepare)(struct heap_choice *c);
};

/* The registry: every strategy, in report order, NULL-terminated (mm/strategies/registry.c). */
extern const struct heap_strategy *const heap_strategies[];

/* The strategy called name (len bytes), or NULL. */
const struct heap_strategy *heap_strategy_find(const char *name, size_t len);

/* strategies= as given on the command line: "" for all (mm/strategies/registry.c). */
const char *heap_strategies_option(void);

/*
 * Takes the boot allocator's current regions as the memory to hand over
 * (kept, so that every run hands over the same pages) and gives the audit
 * audit_bitmap, max_pfn bits of zeroed scratch memory, and expected_pages,
 * the pages the caller's own accounting says the heap receives: usable RAM
 * less every reservation and every page left out of the boot allocator.
 * The audit holds the free lists to that count, so no page goes missing
 * unnoticed. Call once, after the frame table exists and before the first
 * end_boot_allocator().
 */
void heap_setup(uint64_t *audit_bitmap, uint64_t expected_pages);

/*
 * Xen's end_boot_allocator(): hands every boot-allocator region to s, which
 * builds heap h, the first region on the boot CPU's node first, then the
 * others from the highest down. The boot allocator is empty afterwards.
 */
void end_boot_allocator(struct heap *h, const struct heap_strategy *s);

/*
 * Puts the frame table and the M2P entries of the handed-over pages, the
 * free lists, the counters and the boot allocator back as the boot
 * allocator left them, so that another strategy can run.
 */
void heap_reset(void);

/*
 * Writes every byte of the page_info entries of the handed-over pages once,
 * and their M2P entries unless Xen's boot-time M2P is modelled (then no
 * init stores them), with plain memsets of a non-zero byte: the least any
 * eager init must write, and the benchmark's floor. Leaves the heap to be
 * reset.
 */
void heap_floor_write(void);

/*
 * How every floor fills its bytes (heap_floor_write(), the parallel floors,
 * the peers' floors): n bytes at dst set to c, as memset() does. The
 * kernel's memset by default; the benchmark times each floor with every way
 * a platform offers and keeps the fastest (bench/measure.c).
 */
typedef void *heap_fill_fn(void *dst, int c, size_t n);
extern heap_fill_fn *heap_floor_fill;

/* The kernel's memset (kernel/lib/string.c: rep stosq), as a heap_fill_fn. */
void *heap_memset(void *dst, int c, size_t n);

/* What heap_rewind_heads() zeroed: n bytes at p, for a platform that settles the caches. */
typedef void heap_touched_fn(void *p, size_t n);

/*
 * Undoes what end_boot_allocator() with a heads_only strategy wrote, and
 * what one heap_alloc_pages(0) then wrote when alloc_mfn is not
 * UINT64_MAX (the page it gave, and its buddy at every order), without
 * heap_reset()'s memset of every entry: zeroes the page_info and M2P
 * entries of every block head the greedy split of the handed-over memory
 * gives, and of those pages, then clears the heap as heap_reset() does.
 * Calls touched (when not NULL) for each entry zeroed. Valid only when
 * nothing else was written since the last heap_reset().
 */
void heap_rewind_heads(uint64_t alloc_mfn, heap_touched_fn *touched);

/* True when every page_info and M2P entry of the handed-over pages is zero, as heap_reset() leaves them. */
bool heap_tables_zero(void);

/* Bytes heap_floor_write() writes per handed-over page times the pages: 32 or 40 a page. */
uint64_t heap_floor_bytes(void);

/* Pages end_boot_allocator() hands over (MFN 0 excluded, as Xen does). */
uint64_t heap_handover_pages(void);

/*
 * Takes a block of 2^order pages from node (NUMA_NO_NODE: any), splitting a
 * larger one as needed, and marks its pages in use. Returns the first page,
 * or NULL when no block that large is free. (Xen's alloc_heap_pages.)
 */
struct page_info *heap_alloc_pages(unsigned order, unsigned node);

/*
 * Gives back a block of 2^order pages that heap_alloc_pages() handed out,
 * merging it with free buddies; need_scrub marks its pages as needing
 * scrubbing (they go to the list tail). Returns 0, or -EINVAL with e naming
 * the page when order is over MAX_ORDER, pg is not a naturally aligned
 * block of the handed-over memory, or a page of it is not in use (a double
 * free); the heap is unchanged then. Xen's free_heap_pages() BUG()s there.
 */
int heap_free(struct page_info *pg, unsigned order, bool need_scrub, struct err *e);

/* Free pages in the heap (Xen's total_avail_pages). */
uint64_t heap_free_count(void);

#define AUDIT_MAX_ERRORS 8

struct heap_audit {
    bool ok;
    uint64_t free_pages;            /* pages found on the lists */
    uint64_t expected_pages;        /* heap_setup()'s expected_pages less pages in use */
    uint64_t blocks[MAX_ORDER + 1];
    uint64_t digest;                /* over the set of (node, zone, order, mfn) */
    uint64_t page_digest;           /* over the set of free pages alone (pageset_digest()) */
    unsigned nerrors;               /* all errors found; the first few are kept */
    char errors[AUDIT_MAX_ERRORS][128];
};

/*
 * Walks every free list and checks the heap (see mm/audit.c for the list).
 * Fills a; returns true when the heap is sound.
 */
bool heap_audit(struct heap_audit *a);

/* Records an error in a: every one is counted, the first AUDIT_MAX_ERRORS kept. */
__printf(2, 3) void audit_complain(struct heap_audit *a, const char *fmt, ...);

/*
 * The digest of a set of pages given as a bitmap of nbits bits, one per
 * PFN: the same for the same pages whatever blocks hold them, so that every
 * strategy's free set, Xen's and the peers' (mm/peers/peer.h), compares.
 */
uint64_t pageset_digest(const uint64_t *bitmap, uint64_t nbits);

/*
 * The digest alone, from the free lists, without checking pages: cheap
 * enough to compare heaps between phases.
 */
uint64_t heap_digest(void);

/* A free block as the lists hold it: its head's MFN, its order, its list's node and zone. */
struct heap_block {
    uint32_t mfn;
    uint8_t order, node, zone;
};

/*
 * Fills out[0..max) with the free blocks of the lowest MFNs, in ascending
 * MFN order, and returns how many blocks the lists hold in all: more than
 * max means the list was cut. A list that links outside the frame table is
 * read up to that link, and at most max_pfn blocks are read in all, so a
 * corrupt heap is listed as far as it can be, never followed for ever.
 */
uint64_t heap_list_blocks(struct heap_block *out, unsigned max);

/*
 * Prints a's `audit` record: the heap strategy built on cpus CPUs in run.
 * With audit_blocks=N (default 0) the record also lists the heap's N free
 * blocks of the lowest MFNs, for a check of the heap from outside the
 * kernel; printing takes no timed window's time, but it is off unless asked.
 */
void heap_audit_record(const char *strategy, unsigned run, unsigned cpus, const struct heap_audit *a);

/*
 * The `audit` record of a peer (mm/peers/peer.h), on its own structures:
 * the same fields, its blocks and block digest its kernel's own, and
 * `kernel` naming that kernel ("linux", "freebsd"); never a block list of
 * Xen's heap.
 */
void peer_audit_record(const char *strategy, const char *kernel, unsigned run, unsigned cpus,
                       const struct heap_audit *a);

#endif
