// SPDX-License-Identifier: MIT
// Strategy "lazy": only the head page of each free block is initialised at
// init time; every other page keeps the uninitialised state (count_info 0,
// as the zeroed frame table left it) until a heap path needs it.
//
// Invariants, checked by mm/audit.c:
//  - the head of every free block is initialised: state free, its order,
//    first_dirty, list links, M2P entry invalid;
//  - a tail page of a free block is either free (initialised) or
//    uninitialised, never in use;
//  - a buddy the merge path reads is always a block head (a page inside a
//    larger free block cannot be a buddy of a page outside it), so merging
//    never reads an uninitialised entry as if it were valid;
//  - heap_alloc_pages() initialises a lazy tail when it becomes the head of
//    a split half, and every page it hands out (mm/heap.c, lazy_make_free);
//  - an uninitialised page counts as dirty exactly when boot scrubbing was
//    pending at init (the heap's lazy_dirty), as all boot pages share that flag.
//
// FreeBSD (since 2023) enqueues each chunk and initialises only its first
// page, deferring the rest to allocation or to an idle thread; this follows
// that design for the tails, but keeps Xen's buddy heap, zones and counters
// exactly, and never initialises in the background. Linux's deferred struct
// page init instead initialises whole sections later on per-node threads.
#include "mm/heap_priv.h"

static void lazy_init_pages(struct heap *h, uint64_t mfn, uint64_t nr)
{
    /* No tail marking: heads only. */
    heap_init_blocks(h, mfn, nr, NULL);
}

const struct heap_strategy strategy_lazy = {
    .name = "lazy",
    .what = "block heads only; tails initialised when first needed",
    .init_pages = lazy_init_pages,
    .heads_only = true,
};
