/* SPDX-License-Identifier: MIT */
/*
 * The peers: how Linux 6.1 and FreeBSD main hand their boot memory to their
 * own page allocators, each on a page array of its own layout, handed the
 * very pages Xen's heap gets (mm/heap.h). This is the contract the
 * benchmark uses; each model lives in a folder of its own, mm/peers/linux/
 * and mm/peers/freebsd/, with one file per strategy beside it (init_*.c),
 * and every strategy is a row in mm/peers/registry.c.
 */
#ifndef MM_PEERS_PEER_H
#define MM_PEERS_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "mm/heap.h"
#include "mm/heap_par.h"
#include "mm/numa.h"

/* A peer's page array: one entry of entry_bytes per PFN, at its own base. */
enum peer_layout { PEER_LINUX, PEER_FREEBSD, PEER_LAYOUTS };

struct peer_layout_info {
    const char *name;           /* "linux", "freebsd" */
    const char *what;           /* the memory summary's line for its array */
    unsigned entry_bytes;       /* 64 (struct page), 88 (struct vm_page) */
};

extern const struct peer_layout_info peer_layouts[PEER_LAYOUTS];

/* Whether layout's array is backed (peer_meta_reserve()). */
bool peer_layout_ready(enum peer_layout l);

/* What one later part (deferred init, drain) did, on each worker's own TSC. */
struct peer_later_stats {
    unsigned cpus;                              /* workers that ran */
    uint64_t cpu_pages[HEAP_PAR_MAX_CPUS];
    uint64_t cpu_ticks[HEAP_PAR_MAX_CPUS];      /* the worker's work, start to end */
    uint64_t node_pages[MAX_NUMNODES];
    uint64_t node_ticks[MAX_NUMNODES];          /* window start to the node's last worker's end */
    unsigned node_threads[MAX_NUMNODES];
};

/* The boot part's own phases, in TSC ticks. */
struct peer_boot_stats {
    uint64_t init_ticks;        /* page array init (Linux's memmap_init) */
    uint64_t free_ticks;        /* hand-over to the allocator (memblock_free_all) */
};

#define PEER_NO_PAGE UINT64_MAX

struct peer_strategy {
    const char *name;           /* what strategies= takes */
    const char *what;           /* one line for reports */
    enum peer_layout layout;
    const char *later;          /* the part after boot: "deferred", "drain", or NULL */
    /*
     * Empties the allocator and zeroes the handed-over pages' entries
     * (untimed). Returns 0, or a negative errno with e saying why that
     * kernel could not take this memory map.
     */
    int (*reset)(struct err *e);
    /* The boot part: the handed-over pages' entries and allocator, as far as that kernel goes at boot. */
    void (*boot)(struct peer_boot_stats *st);
    /*
     * Optional: undoes the boot part, and the one alloc_page() after it that
     * gave alloc_pfn (PEER_NO_PAGE: none), as reset() would, without zeroing
     * every entry, so that a short boot part can be timed again at once.
     * Calls touched (when not NULL) for each stretch of the array it zeroed.
     * NULL when only reset() can.
     */
    int (*rewind)(uint64_t alloc_pfn, heap_touched_fn *touched, struct err *e);
    /* One order-0 allocation right after the boot part: its PFN, or PEER_NO_PAGE. */
    uint64_t (*alloc_page)(void);
    /* Gives back the page alloc_page() returned. */
    void (*free_page)(uint64_t pfn);
    /*
     * The later part on workers 0 .. cpus - 1 (heap_par_platform_run()),
     * window as heap_par_build() says. Returns 0, or a negative errno with
     * e set. NULL when later is.
     */
    int (*run_later)(unsigned cpus, uint64_t window[2], struct peer_later_stats *st, struct err *e);
    /*
     * Checks the allocator on its own structures once the later part is
     * done (mm/peers/linux/audit.c, mm/peers/freebsd/audit.c): fills a as
     * heap_audit() does, with its own block digest and the page digest
     * every strategy shares. Returns true when sound.
     */
    bool (*audit)(struct heap_audit *a);
};

/* The registry: every peer, in report order, NULL-terminated (mm/peers/registry.c). */
extern const struct peer_strategy *const peer_strategies[];

/* The peer called name (len bytes), or NULL. */
const struct peer_strategy *peer_strategy_find(const char *name, size_t len);

/*
 * The layouts (a bit per enum peer_layout) that the strategies= option asks
 * for: all of them without the option, none when it names no peer or
 * cannot be read (the benchmark reports that).
 */
unsigned peer_layouts_wanted(void);

/*
 * Bytes of boot memory the arrays of layouts take for the boot allocator's
 * regions: per 1 GiB section holding usable RAM, in 2 MiB steps, as the
 * frame table; Linux's pageblock bitmap besides.
 */
uint64_t peer_meta_bytes(unsigned layouts);

/*
 * Backs, maps and zeroes the arrays of layouts with boot memory, counted in
 * the memory summary. A layout that does not fit is left out with a message
 * saying what it needed and what was free; its strategies then refuse to run.
 * Before heap_setup(), so that every strategy hands over the same pages.
 */
void peer_meta_reserve(unsigned layouts);

/*
 * Memsets the entries of the handed-over pages in layout's array with a
 * non-zero byte, in hand-over order: the least that kernel's boot init must
 * write, the layout's floor. On cpus workers through the parallel init's
 * pieces when cpus > 1. Returns 0 or -errno with e set.
 */
int peer_floor(enum peer_layout l, unsigned cpus, uint64_t window[2], struct err *e);

/* True when every entry of the handed-over pages in layout's array is zero, as a reset leaves them. */
bool peer_array_zero(enum peer_layout l);

/* Bytes peer_floor() writes: the handed-over pages times the entry size. */
uint64_t peer_floor_bytes(enum peer_layout l);

#endif
