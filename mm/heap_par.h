/* SPDX-License-Identifier: MIT */
/*
 * Parallel init of the eager strategies: the handed-over memory cut into
 * pieces at 2^MAX_ORDER-page boundaries, each CPU given the pieces on its
 * own node, building private lists that are spliced into the heap's node
 * lists under that node's lock. The platform (kernel/smp/smp_par.c, the hosted
 * runner's threads, the host tests' simulated CPUs) runs the workers.
 */
#ifndef MM_HEAP_PAR_H
#define MM_HEAP_PAR_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "mm/bootmem.h"
#include "mm/heap.h"
#include "mm/numa.h"

#define HEAP_PAR_MAX_CPUS   64
/* Pieces: one per 1 GiB of 16 TiB, plus a region edge or node change each side. */
#define HEAP_PAR_MAX_PIECES (16384 + 2 * BOOTMEM_MAX_REGIONS + 64)

/*
 * A piece: pages [s, e) on one node, inside one naturally aligned block of
 * 2^MAX_ORDER pages (its unit, s >> MAX_ORDER), and inside one handed-over
 * region. cpu is the worker that builds it.
 */
struct heap_piece {
    uint64_t s, e;
    uint16_t node;
    uint16_t cpu;
};

/*
 * Cuts regions r[0..nr) (sorted, disjoint) into pieces: at every multiple
 * of 2^MAX_ORDER pages and wherever the node map changes node. Fills out
 * in address order; returns how many, or -E2BIG when more than max.
 */
int heap_par_cut(const struct bootmem_region *r, unsigned nr, struct heap_piece *out, unsigned max);

/*
 * Gives every piece a worker of ncpus: all pieces of one unit to one
 * worker (so no two workers touch one aligned block), the unit to the least
 * loaded worker on the node of its first piece, or of all workers when
 * that node has none. cpu_node[w] is worker w's node. Returns the pages
 * given to each worker in pages_out[w].
 */
void heap_par_assign(struct heap_piece *p, unsigned n, const unsigned *cpu_node, unsigned ncpus,
                     uint64_t *pages_out);

/*
 * Splices every list of src into dst's lists of the same node, zone and
 * order (src's blocks after dst's), and adds src's counters to dst's; each
 * node under dst's node lock, the heap-wide counters under dst's heap lock.
 * src must be private to the caller and is left as it was.
 */
void heap_par_splice(struct heap *dst, struct heap *src);

/* ---- the parallel init itself ---- */

/* What one parallel run did, per worker and per node (ticks on each worker's own TSC). */
struct heap_par_stats {
    unsigned cpus;
    uint64_t cpu_pages[HEAP_PAR_MAX_CPUS];
    uint64_t cpu_ticks[HEAP_PAR_MAX_CPUS];      /* build and splice */
    uint64_t cpu_splice_ticks[HEAP_PAR_MAX_CPUS];
    uint64_t node_pages[MAX_NUMNODES];
};

/* CPUs a parallel init uses: cpus= (0: all the platform has), at most what it has. */
unsigned heap_par_cpus(void);

/* cpus= as given: 0 when not. */
unsigned heap_par_cpus_asked(void);

/* CPUs a parallel init can use: the platform's, with a private heap each. */
unsigned heap_par_cpus_max(void);

/*
 * Builds heap h (already reset) with eager strategy s on n workers (at most
 * heap_par_cpus_max()): the pieces of the handed-over regions, cut and assigned as
 * above; each worker builds its pieces into its private heap, then splices
 * it into h. window[0] and window[1] are the boot CPU's TSC reads once every
 * worker has passed the start barrier and once every worker has passed the
 * end barrier. Returns 0, or a negative errno with e saying why (too many
 * pieces, more workers than available, no private heaps).
 */
int heap_par_build(struct heap *h, const struct heap_strategy *s, unsigned n, uint64_t window[2],
                   struct heap_par_stats *st, struct err *e);

/* The floor on n workers and the same pieces: each memsets its pieces' entries. */
int heap_par_floor(unsigned n, uint64_t window[2], struct heap_par_stats *st, struct err *e);

/*
 * The same for another page array (a peer's, mm/peers/peer.h): array +
 * PFN * entry_bytes holds each page's entry.
 */
int heap_par_floor_array(unsigned n, void *array, unsigned entry_bytes, uint64_t window[2],
                         struct heap_par_stats *st, struct err *e);

/*
 * Storage for the private heaps: ncpus heaps' worth of bytes, from the
 * platform before the boot allocator is sealed. heap_par_bytes() says how
 * much. Without it (or with one CPU) every init is serial.
 */
uint64_t heap_par_bytes(unsigned ncpus);
void heap_par_give_storage(void *mem, unsigned ncpus);

/* ---- what the platform provides ---- */

typedef void (*heap_par_fn)(unsigned cpu, void *arg);

/* Workers the platform can run (CPUs up, threads asked for). */
unsigned heap_par_platform_cpus(void);

/* The NUMA node of worker cpu. */
unsigned heap_par_platform_node(unsigned cpu);

/*
 * Runs fn(cpu, arg) on workers 0 .. n - 1 (0 is the caller) and returns when
 * all have returned; window as heap_par_build() says. n >= 1.
 */
void heap_par_platform_run(unsigned n, heap_par_fn fn, void *arg, uint64_t window[2]);

/* The TSC, read on the calling worker. */
uint64_t heap_par_platform_now(void);

#endif
