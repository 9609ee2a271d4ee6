// SPDX-License-Identifier: MIT
// The `audit` record: what heap_audit() found, and on request the free
// blocks themselves, so that the host can work the heap out from the
// memory record alone and name the first block where the kernel differs.
#include "kernel/cmdline.h"
#include "kernel/console/record.h"
#include "kernel/lib/libc.h"
#include "mm/heap.h"

/* 32 KiB of blocks: every block of a heap of 16 GiB, even after a cut map. */
#define AUDIT_BLOCKS_MAX 4096

static unsigned opt_audit_blocks;
CMDLINE_OPT(audit_blocks, .key = "audit_blocks", .type = OPT_UINT, .dst = &opt_audit_blocks,
            .min = 0, .max = AUDIT_BLOCKS_MAX,
            .help = "list the N free blocks of the lowest MFNs in every audit record "
                    "(0, the default: none)");

static struct heap_block listed[AUDIT_BLOCKS_MAX];

/* What every audit record says: the strategy, the run, the pages and blocks, both digests, the errors. */
static void audit_fields(struct record *r, const char *strategy, unsigned run, unsigned cpus,
                         const struct heap_audit *a)
{
    char hex[24];

    record_str(r, "strategy", strategy);
    record_u64(r, "run", run);
    record_u64(r, "cpus", cpus);
    record_bool(r, "ok", a->ok);
    record_u64(r, "free_pages", a->free_pages);
    record_u64(r, "expected_pages", a->expected_pages);
    record_arr_begin(r, "blocks");
    for (unsigned o = 0; o <= MAX_ORDER; o++)
        record_u64(r, NULL, a->blocks[o]);
    record_arr_end(r);
    snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)a->digest);
    record_str(r, "digest", hex);
    snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)a->page_digest);
    record_str(r, "page_digest", hex);
    record_arr_begin(r, "errors");
    for (unsigned i = 0; i < a->nerrors && i < AUDIT_MAX_ERRORS; i++)
        record_str(r, NULL, a->errors[i]);
    record_arr_end(r);
}

void heap_audit_record(const char *strategy, unsigned run, unsigned cpus, const struct heap_audit *a)
{
    struct record r;

    record_begin(&r, "audit");
    audit_fields(&r, strategy, run, cpus, a);
    if (opt_audit_blocks) {
        uint64_t total = heap_list_blocks(listed, opt_audit_blocks);
        unsigned n = (unsigned)MIN(total, (uint64_t)opt_audit_blocks);
        record_arr_begin(&r, "block_list");
        for (unsigned i = 0; i < n; i++) {
            record_arr_begin(&r, NULL);
            record_u64(&r, NULL, listed[i].mfn);
            record_u64(&r, NULL, listed[i].order);
            record_u64(&r, NULL, listed[i].node);
            record_u64(&r, NULL, listed[i].zone);
            record_arr_end(&r);
        }
        record_arr_end(&r);
        record_bool(&r, "block_list_truncated", total > n);
    }
    record_end(&r);
}

void peer_audit_record(const char *strategy, const char *kernel, unsigned run, unsigned cpus,
                       const struct heap_audit *a)
{
    struct record r;

    record_begin(&r, "audit");
    audit_fields(&r, strategy, run, cpus, a);
    record_str(&r, "kernel", kernel);
    record_end(&r);
}
