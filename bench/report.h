/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's results once every run is done: the summary and comparison
 * records, the human report (at most 99 columns a line, for an 800x600
 * screen and for serial alike), and the compact payload of the QR code.
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPORT_COLS 99          /* an 800x600 screen has 100 columns of 8x16 glyphs */

/* One strategy's runs, or a floor's: ns each (ticks when uncalibrated). */
struct report_series {
    const char *name;
    const uint64_t *init;
    const uint64_t *touch;          /* Xen's heap: the first touch; else NULL */
    const uint64_t *later;          /* a peer's later part (later_phase); else NULL */
    const char *later_phase;        /* "deferred", "drain", or NULL */
    const uint64_t *first_alloc;    /* init and one allocation; NULL for a floor */
    uint64_t digest, page_digest;
    int floor;                      /* a strategy's own floor, an index in floors; -1 for a floor */
    unsigned cpus, later_cpus;
    bool peer;
    uint64_t bytes;                 /* a floor's: what it writes */
};

struct report_input {
    uint64_t mem_bytes;             /* RAM in the map below MAX_PHYS_ADDR: what was tested */
    uint64_t ignored_bytes;         /* RAM in the map above it, left out */
    uint64_t pages;                 /* pages handed over each run */
    uint64_t left_out_pages;        /* usable pages the boot allocator had no room for */
    unsigned left_out_regions;      /* the regions they are in */
    unsigned runs;
    unsigned touch_runs;            /* runs [0, touch_runs) timed the first touch too */
    bool calibrated;                /* false: every figure is TSC ticks */
    unsigned nstrat;                /* strategies in s[], Xen's and the peers', in run order */
    const struct report_series *s;
    unsigned nfloors;               /* floors[0] is Xen's, then one per peer layout that ran */
    const struct report_series *floors;
    const char *xen_costs;          /* the cost model, as xen_costs= takes it */
    bool xen_costs_tested;          /* it ran the copy of the heap code that tests each cost */
    bool floor_m2p;                 /* Xen's floor wrote M2P entries too */
    bool icount;                    /* under -icount shift=0: ns are guest instructions */
};

/* Prints the summary and comparison records, then the human report, keeping its text. */
void report_print(const struct report_input *in);

/* The human report's text as report_print() printed it; "" before. */
const char *report_text(void);

/*
 * The QR code's payload (docs/records.md, "The QR code's payload"): the
 * version, the machine, each strategy's median, ns/page, speedup and
 * multiple of the floor, and whether the digests agree. "" before
 * report_print().
 */
const char *report_payload(void);

#endif
