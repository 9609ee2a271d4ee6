/* SPDX-License-Identifier: MIT */
/*
 * What the tester's files share: its driver (tester.c), the sequences
 * (sequence.c), the frames and nodes they run on (layout.c), the
 * comparison (compare.c), the stand-ins' state (stand.c) and its sides
 * (side.c: the calls into one tree's page_alloc.c, its threads and the
 * snapshot of its state). A side is built once a tree; the
 * stock-against-series mode (XH_PAIR) links two, the stock tree's as side
 * 0 and the series' as side 1, each page_alloc.c's statics in a
 * translation unit of their own.
 */
#ifndef XH_TESTER_H
#define XH_TESTER_H

#define MAX_FRAMES (1UL << 14)
/* memnodemap[] entries: pdx up to 2^21, the frame table's top at memnode_shift 0. */
#define XH_MEMNODEMAP (1UL << 21)

/*
 * When a call runs: at boot before paging_init() (the M2P not set up), at
 * boot with the M2P live (init_domheap_pages() of the boot modules), or
 * after boot (SYS_STATE_active: hot-add); `threaded`, after boot on a
 * thread of its own beside others that allocate and free.
 */
enum { PHASE_BOOT, PHASE_M2P, PHASE_ACTIVE };
#define MAX_CALLS 24
struct call { unsigned long s, n; uint8_t phase; bool threaded; };
enum { BOOTSCRUB_MODE_OFF, BOOTSCRUB_MODE_IDLE, BOOTSCRUB_MODE_ON };
struct sequence {
    uint64_t seed;
    unsigned long frames;                   /* the frame table's entries */
    unsigned long base_pdx;                 /* the table's first pdx */
    unsigned int bottom_bits, hole_bits;    /* PDX compression: hole_bits 0 for none */
    unsigned long pdx_offset;               /* or offset compression: pfn - pdx, 0 for none */
    unsigned int shift, nodes, calls, specials, stops, bootscrub;
    bool garbage, concurrent, runs, holes;  /* runs: nodes of several runs; holes: groups on no node */
    /*
     * The hand-over at boot on several CPUs (--threads): `parallel` on both
     * sides (lists compared as sets, one TLB clock for every boot call);
     * `boot_threads` on the side that hands over in parallel, 0 on the
     * reference, which hands over as Xen does today, one call after another.
     */
    bool parallel;
    unsigned int boot_threads;
    unsigned int dma_bits;                  /* dma_bitsize on both sides (parallel only; 0: none) */
    struct call call[MAX_CALLS];
};

/* The state, as records compared in order. */
enum { R_COUNT, R_U, R_V, R_TLB, R_M2P, R_LIST, R_LIST_LEN, R_AVAIL, R_TOTAL, R_SCRUB,
       R_OFFLINED, R_BROKEN, R_META, R_FIRST_VALID, R_PRINTK, R_XENHEAP, R_NODE_AVAIL, R_POISON,
       R_STOP, R_END };
struct record { uint32_t kind, a, b, c; uint64_t value; };
#define MAX_RECORDS (MAX_FRAMES * 7 + 4096)

/* The stand-ins' state that a side reads, kept by stand.c. */
extern char *xh_ram;                        /* what the direct map shows of the frames */
extern unsigned long xh_printks, xh_heap_printks, xh_xenheap_allocs;
extern unsigned char xh_listed[MAX_FRAMES]; /* heads of free blocks, for as_sets() */
extern __thread unsigned int xh_cpu;        /* the thread's CPU: 0, or 1 to 3 in the concurrent phase, 1 to
                                               XH_MAX_BOOT_THREADS in a parallel hand-over */
#define XH_MAX_BOOT_THREADS 8
extern void (*xh_on_fail)(const char *what);/* a side's snapshot at a hard failure */
extern bool (*xh_heap_lock_held)(void);     /* whether this thread holds the side's heap_lock */
extern char *xh_stop_text;                  /* where a child writes what it stopped on */
extern unsigned long *xh_handed_on_threads; /* where a child adds the boot calls its other CPUs ran */
extern unsigned long *xh_handed_back;    /* where a child adds the blocks handed back for early allocations */

/* Side N's calls: run the sequence (heap-init= variant `variant` where the tree has the option). */
void xh_run_0(const struct sequence *q, unsigned int variant, struct record *r, unsigned long *n);
void xh_run_1(const struct sequence *q, unsigned int variant, struct record *r, unsigned long *n);

/* The sequences (sequence.c): `seed`'s, or the user's `calls` (--calls' text) when given. */
void xh_make_sequence(struct sequence *q, uint64_t seed, const char *calls);
void xh_show(const struct sequence *q);
unsigned int xh_dma_bits(const struct sequence *q);
uint64_t xh_next(void);
unsigned long xh_below(unsigned long n);

/* The layout (layout.c): the pdx, the node map and the frames as the boot allocator leaves them. */
void xh_make_layout(struct sequence *q);
void xh_make_frames(const struct sequence *q);
void xh_show_layout(const struct sequence *q);
unsigned long xh_index_mfn(unsigned long index);
bool xh_on_node(unsigned long index);

/* The concurrent phase's churn on one thread: allocate and free through the side's `alloc` and `free`. */
struct xh_ops {
    struct page_info *(*alloc)(unsigned int order, unsigned int memflags);
    void (*free)(struct page_info *pg, unsigned int order);
};
void xh_churn(const struct xh_ops *ops, uint64_t seed, unsigned int rounds);

/* The comparison (compare.c): the first record where r differs from ref, or -1. */
long xh_first_difference(struct record *r, unsigned long n, struct record *ref, unsigned long nref, bool sets);
void xh_describe(const struct record *r);
uint64_t xh_text_hash(const char *s);

#endif
