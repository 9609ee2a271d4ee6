/* SPDX-License-Identifier: MIT */
/*
 * What the tester's files share: its driver (tester.c), the sequences
 * (sequence.c), the comparison (compare.c), the stand-ins' state
 * (stand.c) and its sides (side.c: the calls into one tree's page_alloc.c
 * and the snapshot of its state). A side is built once a tree; the
 * stock-against-series mode (XH_PAIR) links two, the stock tree's as
 * side 0 and the series' as side 1, each page_alloc.c's statics in a
 * translation unit of their own.
 */
#ifndef XH_TESTER_H
#define XH_TESTER_H

#define MAX_FRAMES (1UL << 14)

#define MAX_CALLS 24
struct call { unsigned long s, n; bool after_boot; };
struct sequence {
    uint64_t seed;
    unsigned long frames;
    unsigned int shift, nodes, calls, specials;
    bool bootscrub, garbage;
    struct call call[MAX_CALLS];
};

/* The state, as records compared in order. */
enum { R_COUNT, R_U, R_V, R_TLB, R_M2P, R_LIST, R_LIST_LEN, R_AVAIL, R_TOTAL, R_SCRUB,
       R_OFFLINED, R_BROKEN, R_META, R_FIRST_VALID, R_PRINTK, R_XENHEAP, R_NODE_AVAIL, R_END };
struct record { uint32_t kind, a, b, c; uint64_t value; };
#define MAX_RECORDS (MAX_FRAMES * 6 + 4096)

/* The stand-ins' state that a side reads, kept by stand.c. */
extern char *xh_ram;                        /* what the direct map shows of the frames */
extern unsigned long xh_printks, xh_xenheap_allocs;
extern unsigned char xh_listed[MAX_FRAMES]; /* heads of free blocks, for as_sets() */

/* Side N's calls: run the sequence (heap-init= variant `variant` where the tree has the option). */
void xh_run_0(const struct sequence *q, unsigned int variant);
void xh_snapshot_0(const struct sequence *q, struct record *r, unsigned long *n);
void xh_run_1(const struct sequence *q, unsigned int variant);
void xh_snapshot_1(const struct sequence *q, struct record *r, unsigned long *n);

/* The sequences (sequence.c): `seed`'s, or the user's `calls` (--calls' text) when given. */
void xh_make_sequence(struct sequence *q, uint64_t seed, const char *calls);
void xh_make_frames(const struct sequence *q);
void xh_show(const struct sequence *q);

/* The comparison (compare.c): the first record where r differs from ref, or -1. */
long xh_first_difference(struct record *r, unsigned long n, struct record *ref, unsigned long nref, bool sets);
void xh_describe(const struct record *r);

#endif
