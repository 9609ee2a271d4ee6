/* SPDX-License-Identifier: MIT */
/*
 * The hosted runner's platform layer: what the kernel's boot path provides
 * (a memory map, consoles, clocks, memory for the tables, the end of a run),
 * supplied from Linux user space so that mm/ and bench/ run unchanged.
 */
#ifndef HOSTED_RUNNER_H
#define HOSTED_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/bootinfo/bootinfo.h"
#include "kernel/lib/errno.h"

/* Exit statuses of build/bootheap-host. */
enum {
    HOSTED_EXIT_OK = 0,
    HOSTED_EXIT_FAIL = 1,       /* the run failed: a panic, an audit, a bad kernel option */
    HOSTED_EXIT_USAGE = 2,      /* bad runner arguments or a bad memory map source */
    HOSTED_EXIT_NOMEM = 3,      /* this host has too little memory for the size asked */
};

/* ---- memory maps (maps.c, mapfile.c) -------------------------------------- */

/*
 * Parses a size: a whole number of bytes, or with a binary suffix K, M, G or
 * T (optionally followed by "iB" or "B"). Returns 0, or -EINVAL with e set.
 */
int host_parse_size(const char *text, uint64_t *bytes, struct err *e);

/* Appends an entry to bi's map; returns 0, or -E2BIG when the map is full. */
int host_map_add(struct bootinfo *bi, uint64_t addr, uint64_t len, uint32_t type, struct err *e);

/*
 * The map QEMU 7.2's q35 machine gives a PVH guest of ram bytes (qboot's
 * low entries, the MMCONFIG hole, RAM above 4 GiB, the AMD HyperTransport
 * hole). Fills bi's map; returns 0, or -EINVAL for a size under 2 MiB.
 */
int host_map_q35(struct bootinfo *bi, uint64_t ram, struct err *e);

/*
 * Parses len bytes of a map file (docs/usage-hosted.md, "Map files": "start end type" a
 * line, hexadecimal, the end exclusive; '#' starts a comment) named name in
 * messages. Any bytes may come; no NUL is needed. Fills out[0..*n), room for
 * E820_MAX entries, in the file's order. Returns 0, or with e naming the
 * file and line: -EINVAL for a line that is not three fields, an address
 * that is not hexadecimal or exceeds 64 bits, an unknown type, a range that
 * is empty or ends before it starts, or a file without ranges; -E2BIG for
 * more than E820_MAX ranges, or overlaps the kernel's e820 sanitiser cannot
 * resolve within E820_MAX entries.
 */
int host_map_parse(const char *name, const char *text, size_t len, struct mmap_entry *out,
                   unsigned *n, struct err *e);

/* The map file at path into bi's map; as host_map_parse(), or -ENOENT when unreadable. */
int host_map_file(struct bootinfo *bi, const char *path, struct err *e);

/* ---- memory for the tables (platform.c) ----------------------------------- */

/*
 * At most this many bytes of host memory for the frame table, M2P and audit
 * bitmap; 0 means MemAvailable less a margin. Set before mm_init().
 */
extern uint64_t host_mem_limit;

struct host_mem {
    uint64_t need;              /* bytes the tables may take, an upper bound */
    uint64_t avail;             /* what the host offered */
    uint64_t mapped;            /* bytes of anonymous memory mapped for the tables */
    uint64_t huge;              /* of which the host backs with huge pages */
    uint64_t phys_known;        /* bytes whose physical frames pagemap gave (root only) */
    uint64_t phys_runs;         /* physically contiguous runs they form */
    uint64_t longest_run;       /* bytes in the longest of them */
    uint64_t run_bytes;         /* (the run being measured) */
    uint64_t nodes;             /* NUMA nodes the host put them on, a bit each */
    uint64_t reach_pages;       /* 2 MiB pages of the frame table host_reach_probe() wrote */
    uint64_t reach_p50_ns;      /* ... the median and 90th percentile of one write each */
    uint64_t reach_p90_ns;
    uint64_t settles, settle_ns;    /* the preludes' settling (settle.c): how often, how long in all */
};

extern struct host_mem host_mem;

/* The tables' anonymous maps (paging_map()), adjacent ones joined: what settling flushes. */
struct host_range {
    uint64_t start, len;
};

#define HOST_MAX_TABLES 64          /* separate maps: a few per table once joined */
extern struct host_range host_tables[HOST_MAX_TABLES];
extern unsigned host_ntables;

/* Adds a map of the tables to host_tables (platform.c); one past the cap panics. */
void host_tables_add(uint64_t start, uint64_t len);

/* The peers' page arrays (mm/peers/peer.h) the run will back: a bit per layout. Set before mm_init(). */
extern unsigned host_peer_layouts;

/*
 * Reads where the host put the tables into host_mem: AnonHugePages from
 * /proc/self/smaps, physical contiguity from /proc/self/pagemap, NUMA nodes
 * from /proc/self/numa_maps. What cannot be read stays 0.
 */
void host_mem_measure(void);

/*
 * Times one write to each 2 MiB page of the frame table (at most 4096,
 * spread) right after heap_setup()'s reset, into host_mem.reach_*; the
 * entries keep their bytes. After host_time_init() and heap_setup(). (settle.c)
 */
void host_reach_probe(void);

/* ---- clocks (clock.c) ------------------------------------------------------ */

/*
 * Chooses the TSC fence as the kernel does, calibrates the TSC against
 * CLOCK_MONOTONIC_RAW (five windows of 20 ms) for kernel/time/tsc.h, and
 * prints the `calibration` record. Never fails: an implausible rate leaves
 * the TSC uncalibrated, as the kernel does.
 */
void host_time_init(void);

/* CLOCK_MONOTONIC_RAW in ns. */
uint64_t host_clock_ns(void);

/*
 * Compares the TSC with CLOCK_MONOTONIC_RAW over the span since time_init()
 * and prints the result: a check that the rate held through the run.
 * Returns the TSC's rate over that span against the calibrated one, in ppm.
 */
int64_t host_clock_recheck(void);

/* ---- the core's probes (probe.c) ------------------------------------------ */

/* Tests: the clock chain reads as if the renamer folded this many of its instructions into one. */
extern unsigned host_probe_fold;

/*
 * Probes the core once, after host_time_init(): the clock against the TSC's
 * rate and a second chain, and the issue; prints the `clock_probe` record
 * and a line that says whether the windows will carry either figure.
 */
void host_probe_init(void);

/* The core's clock in MHz now (about 0.2 ms), or 0 when the probe is not believed. */
uint64_t host_probe_mhz(void);

/* Independent adds a microsecond now (about 0.1 ms), or 0 when that probe is not believed. */
uint64_t host_probe_issue(void);

/* ---- timed windows (window.c) ---------------------------------------------- */

/*
 * Prints the table of the thread's CPU time per strategy and phase (median
 * over runs, ns a page, x floor, cv), from the windows bench/ opened.
 */
void host_window_report(void);

/* ---- the end of a run (platform.c) ---------------------------------------- */

/* Ends the process with status after flushing the records. */
__attribute__((noreturn)) void host_exit(int status);

/* Worker threads for the parallel init (par.c): --cpus, 1 unless asked. */
extern unsigned host_cpus;

#endif
