// SPDX-License-Identifier: MIT
// The kernel's node map: SRAT ranges (or fake nodes) to memnodemap, and the
// report of each node's memory, handed-over pages and CPUs.
#include "mm/numa_boot.h"

#include "kernel/acpi/topo.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/lib/string.h"
#include "mm/bootmem.h"
#include "mm/heap_priv.h"
#include "mm/numa.h"
#include "mm/reserve.h"

_Static_assert(TOPO_MAX_NODES == MAX_NUMNODES, "a node the SRAT names must have a heap");

extern struct topo topo;

static const char *source = "none";
static const char *map_error;
static struct err map_err;
static char fake_warning[160];          /* numa_fake asked for more nodes than fit */
static unsigned nblks, nnodes;
static struct node_range blks[TOPO_MAX_MEMBLKS];

/* SRAT ranges in frames: a partly covered page counts for the range. */
static unsigned srat_blocks(void)
{
    for (unsigned i = 0; i < topo.nmemblks; i++)
        blks[i] = (struct node_range){ PFN_DOWN(topo.mem[i].start), PFN_UP(topo.mem[i].end),
                                       topo.mem[i].node };
    return topo.nmemblks;
}

/* numa_fake=N: equal runs of whole 1 GiB granules, as many nodes as fit. */
static unsigned fake_blocks(uint64_t max_pfn, unsigned fake)
{
    uint64_t granules = ALIGN_UP(max_pfn, 1ull << 18) >> 18;
    unsigned n = (unsigned)MIN((uint64_t)fake, granules);
    uint64_t per = (granules + n - 1) / n;     /* every granule on some node */
    unsigned out = 0;

    for (unsigned k = 0; k < n && k * per < granules; k++)
        blks[out++] = (struct node_range){ (k * per) << 18, MIN((k + 1) * per, granules) << 18, k };
    return out;
}

/* Every free boot-allocator page is on a node the heap has: nothing maps to NUMA_NO_NODE. */
static int check_free_pages(void)
{
    struct node_range r[MAX_NUMNODES * 2];

    for (unsigned i = 0; i < bootmem.nr; i++) {
        uint64_t s = bootmem.r[i].s, e = bootmem.r[i].e;
        while (s < e) {
            unsigned n = numa_ranges(s, e, r, ARRAY_SIZE(r));
            for (unsigned k = 0; k < n; k++)
                if (r[k].node >= nnodes)
                    return err_set(&map_err, -EINVAL, "node map: frames [0x%llx, 0x%llx) are on "
                                   "no node", (unsigned long long)r[k].s,
                                   (unsigned long long)r[k].e);
            s = r[n - 1].e;
        }
    }
    return 0;
}

static int build(uint64_t max_pfn)
{
    uint64_t entries;
    unsigned shift = numa_hash_shift(blks, nblks, &entries);
    uint8_t *map = numa_static_map();

    /* Every frame the frame table covers must index inside the map. */
    if (max_pfn)
        entries = MAX(entries, ((max_pfn - 1) >> shift) + 1);
    if (entries > MEMNODEMAP_STATIC)
        map = mm_alloc_boot("node map", PFN_UP(entries), UINT64_MAX);
    int rc = numa_populate(map, entries, blks, nblks, shift, &map_err);
    if (rc)
        return rc;
    numa_install(map, entries, shift);
    return check_free_pages();
}

unsigned numa_boot_init(uint64_t max_pfn, unsigned fake)
{
    if (topo.srat && !topo.fallback) {
        source = "srat";
        nblks = srat_blocks();
        nnodes = topo.nnodes;
        if (fake > 1)
            printk("warning: numa_fake=%u ignored: the SRAT describes the nodes\n", fake);
    } else if (fake > 1) {
        source = "fake";
        nblks = fake_blocks(max_pfn, fake);
        nnodes = nblks;
        if (nnodes < fake) {
            char sz[24];
            snprintf(fake_warning, sizeof(fake_warning), "numa_fake=%u: only %u node%s: a fake node "
                     "takes whole 1 GiB granules, and RAM ends at %s", fake, nnodes,
                     nnodes == 1 ? "" : "s", fmt_size(sz, sizeof(sz), max_pfn << PAGE_SHIFT));
            printk("warning: %s\n", fake_warning);
        }
    } else {
        source = "none";
        blks[0] = (struct node_range){ 0, max_pfn, 0 };
        nblks = 1;
        nnodes = 1;
    }
    if (build(max_pfn)) {
        map_error = map_err.msg;
        printk("warning: %s; falling back to one node\n", map_error);
        source = "none";
        blks[0] = (struct node_range){ 0, max_pfn, 0 };
        nblks = 1;
        nnodes = 1;
        build(max_pfn);
    }
    return nnodes;
}

/* Pages handed to the heap that lie on node. */
static uint64_t node_heap_pages(unsigned node)
{
    struct node_range r[MAX_NUMNODES * 2];
    uint64_t pages = 0;

    for (unsigned i = 0; i < heap_regions.nr; i++) {
        uint64_t s = heap_regions.r[i].s, e = heap_regions.r[i].e;
        while (s < e) {
            unsigned n = numa_ranges(s, e, r, ARRAY_SIZE(r));
            for (unsigned k = 0; k < n; k++)
                if (r[k].node == node)
                    pages += r[k].e - r[k].s;
            s = r[n - 1].e;
        }
    }
    return pages;
}

static bool cpu_on(unsigned c, unsigned node)
{
    return strcmp(source, "srat") ? node == 0 : topo.cpu[c].node == node;
}

static uint64_t node_span(unsigned node)
{
    uint64_t pages = 0;

    for (unsigned i = 0; i < nblks; i++)
        if (blks[i].node == node)
            pages += blks[i].e - blks[i].s;
    return pages << PAGE_SHIFT;
}

static void report_node(struct record *r, unsigned node)
{

    record_obj_begin(r, NULL);
    record_u64(r, "node", node);
    if (!strcmp(source, "srat"))
        record_u64(r, "pxm", topo.node_pxm[node]);
    else
        record_null(r, "pxm");
    record_arr_begin(r, "ranges");
    for (unsigned i = 0; i < nblks; i++) {
        if (blks[i].node != node)
            continue;
        record_arr_begin(r, NULL);
        record_u64(r, NULL, blks[i].s);
        record_u64(r, NULL, blks[i].e);
        record_arr_end(r);
    }
    record_arr_end(r);
    record_u64(r, "span_bytes", node_span(node));
    record_u64(r, "heap_pages", node_heap_pages(node));
    record_arr_begin(r, "apic_ids");
    for (unsigned c = 0; c < topo.ncpus; c++)
        if (cpu_on(c, node))
            record_u64(r, NULL, topo.cpu[c].apic_id);
    record_arr_end(r);
    if (topo.slit && !strcmp(source, "srat")) {
        record_arr_begin(r, "distances");
        for (unsigned k = 0; k < nnodes; k++)
            record_u64(r, NULL, topo.distance[node][k]);
        record_arr_end(r);
    }
    record_obj_end(r);
}

void numa_boot_print(void)
{
    char sz[24];

    printk("nodes: %u from %s; node map of %llu entries, memnode_shift %u\n", nnodes,
           !strcmp(source, "srat") ? "the SRAT" : !strcmp(source, "fake") ? "numa_fake" :
           "nothing (one node)", (unsigned long long)memnodemapsize, memnode_shift);
    for (unsigned n = 0; n < nnodes; n++) {
        unsigned ncpus = 0;
        for (unsigned c = 0; c < topo.ncpus; c++)
            ncpus += cpu_on(c, n);
        printk("  node %u: %s in its ranges, %llu pages handed over, %u CPU%s%s\n", n,
               fmt_size(sz, sizeof(sz), node_span(n)), (unsigned long long)node_heap_pages(n),
               ncpus, ncpus == 1 ? "" : "s", ncpus ? "" : " (CPU-less)");
    }
}

void numa_boot_report(struct record *r)
{
    record_obj_begin(r, "node_map");
    record_str(r, "source", source);
    record_u64(r, "memnode_shift", memnode_shift);
    record_u64(r, "entries", memnodemapsize);
    if (map_error)
        record_str(r, "error", map_error);
    else
        record_null(r, "error");
    if (fake_warning[0])
        record_str(r, "warning", fake_warning);
    else
        record_null(r, "warning");
    record_arr_begin(r, "nodes");
    for (unsigned n = 0; n < nnodes; n++)
        report_node(r, n);
    record_arr_end(r);
    record_obj_end(r);
}
