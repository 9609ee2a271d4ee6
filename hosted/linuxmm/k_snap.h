/* SPDX-License-Identifier: MIT */
/* Kernel half: the snapshot of what the hand-over leaves (k_snap.c). */
#ifndef LXT_K_SNAP_H
#define LXT_K_SNAP_H

struct lxt_snap;

/*
 * Everything the hand-over leaves, into s: the counters, every zone's
 * lists in order (sorted when sets: threads may list in any order), the
 * pageblocks' flags, every struct page of every present section and, with
 * ram, the bytes of every page of RAM.
 */
void lxt_snapshot(struct lxt_snap *s, int sets, int ram);

/* The units of memory still unaccepted, a bit each, over the first 64 GiB (k_mm.c). */
#define LXT_UNITS ((64UL << (30 - PAGE_SHIFT)) / LXT_UNIT_PAGES)
extern unsigned long lxt_unaccepted[BITS_TO_LONGS(LXT_UNITS)];

#endif
