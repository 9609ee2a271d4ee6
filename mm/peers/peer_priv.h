/* SPDX-License-Identifier: MIT */
/*
 * What the peer models (mm/peers/linux/, mm/peers/freebsd/) share: the
 * handed-over pages as a peer kernel's own map would give them (runs), and
 * the audit's bookkeeping. Only mm/peers/ (and the host tests) include
 * this.
 */
#ifndef MM_PEERS_PEER_PRIV_H
#define MM_PEERS_PEER_PRIV_H

#include "mm/heap_priv.h"
#include "mm/peers/peer.h"

/*
 * A run: handed-over pages [s, e) on one node. Regions that touch are
 * joined (memblock and phys_avail merge adjacent ranges), MFN 0 is left out
 * (as Xen's heap leaves it), and a run ends where the node changes (memblock
 * keeps a node per region; FreeBSD cuts its segments there).
 */
struct peer_run {
    uint64_t s, e;
    unsigned node;
};

#define PEER_MAX_RUNS 4096

extern struct peer_run peer_runs[PEER_MAX_RUNS];
extern unsigned peer_nruns;

/* Rebuilds peer_runs from the handed-over regions; untimed, before every boot part. */
void peer_runs_build(void);

/* Pages in all runs: what every peer must hold once its later part is done. */
uint64_t peer_runs_pages(void);

/* Where layout l's page array starts: entry of PFN p at + p * entry_bytes. */
#ifdef BOOTHEAP_HOST
extern uint8_t *peer_array_base[PEER_LAYOUTS];     /* host tests bring their own storage */
#define peer_array(l) (peer_array_base[l])
#else
#define peer_array(l) ((uint8_t *)(uintptr_t)((l) == PEER_LINUX ? LINUX_MEMMAP_BASE : FREEBSD_PAGES_BASE))
#endif

/* The layouts whose arrays are backed, a bit per enum peer_layout (set by the platform). */
extern unsigned peer_ready;


/* Marks pages [s, e) in the audit bitmap; false (and a complaint) when one was marked already. */
bool peer_mark(struct heap_audit *a, uint64_t s, uint64_t e);

/* Starts an audit: a zeroed, the bitmap cleared, the pages expected set. */
void peer_audit_begin(struct heap_audit *a);

/* Ends it: the totals checked, the page digest taken, ok set. Returns a->ok. */
bool peer_audit_end(struct heap_audit *a);

/* A block's share of a block digest, like mm/audit.c's, for the peers' own blocks. */
uint64_t peer_block_hash(unsigned node, unsigned zone, unsigned order, uint64_t pfn);

/* The lock of a peer's zone or domain: a test-and-set spin lock taken with one locked exchange. */
typedef struct {
    volatile uint32_t v;
} peer_lock_t;

static inline void peer_lock(peer_lock_t *l)
{
    while (__atomic_exchange_n(&l->v, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&l->v, __ATOMIC_RELAXED))
            __asm__ volatile("pause" ::: "memory");
}

static inline void peer_unlock(peer_lock_t *l)
{
    __atomic_store_n(&l->v, 0, __ATOMIC_RELEASE);
}

#endif
