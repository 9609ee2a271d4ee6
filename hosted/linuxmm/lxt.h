/* SPDX-License-Identifier: MIT */
/*
 * The host tester of Linux's memory init: what its two halves say to each
 * other. The kernel half (k_*.c) is compiled with the kernel's own flags
 * and headers, beside the real objects of mm/; the user half (u_*.c) is an
 * ordinary program with the C library. This header is all they share, so
 * it uses C's basic types only and includes nothing.
 */
#ifndef LXT_H
#define LXT_H

#define LXT_MAX_NODES 8
#define LXT_MAX_CPUS 16
#define LXT_MAX_RANGES 32

/* A range of frames [start, end): memory of a node, or reserved memory. */
struct lxt_range {
	unsigned long start, end;
	int nid;
};

/* An allocation memblock makes after memmap init, before the hand-over. */
struct lxt_alloc {
	unsigned long bytes, align;
	int nid;			/* -1: any node */
	int raw;			/* memblock_alloc_try_nid_raw() */
};

/* The machine a sequence boots, and how. */
struct lxt_layout {
	int nmem, nres, nalloc, nremove;
	struct lxt_range mem[LXT_MAX_RANGES];	/* RAM, by node, in the SRAT's order */
	struct lxt_range res[LXT_MAX_RANGES];	/* reserved before memmap init */
	struct lxt_alloc alloc[LXT_MAX_RANGES];
	struct lxt_range remove[4];		/* RAM that leaves memblock after memmap init */
	int nodes;				/* node ids used: 0..nodes-1 */
	int cpus_of_node[LXT_MAX_NODES];	/* deferred init's threads a node */
	unsigned long max_dma_pfn, max_dma32_pfn;
	const char *cmdline[8];			/* early parameters, "name=value" */
	int ncmdline;
	int mobility_off;		/* page_group_by_mobility_disabled */
	int bottom_up;			/* memblock allocates bottom-up */
	unsigned long fill_seed;	/* struct pages start as this garbage */
	int fill_kind;			/* 0: random bytes, 1: a fixed pattern */
	int fill_ram;			/* RAM starts as garbage too, its bytes compared */
	int prefilled;			/* struct pages filled before the boot (timing) */
	int sets;			/* free lists compared as sets (threads) */
	int yield_every;		/* cond_resched() yields 1 in N calls (0: never) */
	int nunaccepted;		/* memory the firmware left unaccepted (TDX, SEV-SNP) */
	struct lxt_range unaccepted[4];	/* in whole units of LXT_UNIT_PAGES */
};

/* The unit of the firmware's table of unaccepted memory: 2 MiB, as EFI's stub makes it. */
#define LXT_UNIT_PAGES 512UL

/* One compared value: what it is (at names + what), where, and its value. */
struct lxt_field {
	unsigned long what;
	unsigned long k1, k2, value;
};

/*
 * A snapshot: fields (among them each present section), and, when the
 * user half gives a buffer for them, a copy of the struct pages of each
 * present section in turn; without one they are compared where they lie.
 * The user half gives the buffers (shared memory, which another tester
 * binary may fill: so names travel as text, not as pointers); the kernel
 * half fills them.
 */
struct lxt_snap {
	unsigned long cap_fields, nfields;
	struct lxt_field *fields;
	unsigned long cap_names, nnames;
	char *names;			/* the fields' names, each once */
	unsigned long cap_bytes, nbytes;
	unsigned char *bytes;
	unsigned long page_bytes;	/* sizeof(struct page) */
	int overflow;
};

/* Timing of one boot, thread CPU time in ns of the boot's own thread. */
struct lxt_times {
	unsigned long memmap_ns, free_all_ns, deferred_ns, deferred_wall_ns;
	unsigned long pages_freed;	/* totalram_pages() at the end */
	unsigned long zone_locks;	/* zone->lock taken, all CPUs: which path ran */
};

/* The kernel half. */
int lxt_boot(const struct lxt_layout *l, struct lxt_snap *early, struct lxt_snap *late,
	     struct lxt_times *t);
unsigned long lxt_page_bytes(void);
unsigned long lxt_section_pages(void);
unsigned long lxt_max_order(void);
unsigned long lxt_pageblock_order(void);
const char *lxt_page_word_name(unsigned long word);
/* Called on a CPU's thread, its %gs loaded: the CPU's per-CPU state. */
void lxt_cpu_init(int cpu, unsigned long offset);

/* The user half, for the kernel half. */
void lxt_host_fail(const char *what) __attribute__((noreturn));
void lxt_host_log(const char *text);
void lxt_host_vlog(const char *fmt, __builtin_va_list ap);
int lxt_host_vformat(char *buf, unsigned long size, const char *fmt, __builtin_va_list ap);
void lxt_host_fill(void *at, unsigned long bytes, unsigned long seed, int kind);
void lxt_host_prepare(void *at, unsigned long bytes);
void *lxt_host_thread(int cpu, int (*fn)(void *), void *arg);
int lxt_host_join(void *thread);		/* -> the thread's CPU */
void lxt_host_yield(void);
void lxt_host_sleep(unsigned int *word, unsigned int while_is);
void lxt_host_wake(unsigned int *word);
unsigned long lxt_host_rand(void);
unsigned long lxt_host_thread_ns(void);
unsigned long lxt_host_wall_ns(void);
/* Where the kernel half's memory lives: the direct map and the vmemmap. */
extern unsigned long lxt_phys_base, lxt_phys_bytes, lxt_vmemmap_base, lxt_vmemmap_bytes;

#endif
