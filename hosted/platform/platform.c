// SPDX-License-Identifier: MIT
// The kernel interfaces mm/ and bench/ call, in user space: consoles to
// stdout, memory for the tables from anonymous maps, panic and the end of a run.
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include "hosted/platform/runner.h"
#include "kernel/console/console.h"
#include "kernel/exit.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/acpi/topo.h"
#include "kernel/panic.h"
#include "mm/bootmem.h"
#include "mm/frametable.h"
#include "mm/paging.h"
#include "mm/heap.h"
#include "mm/peers/peer.h"

struct paging_info paging;
/* The kernel image's displacement from its link address: none, as under PVH. */
uint64_t kimage_offset;
/* No firmware tables in user space: no SRAT, so numa_fake= or one node. */
struct topo topo;
uint64_t host_mem_limit;
struct host_mem host_mem;
unsigned host_peer_layouts;

/* Headroom left to the rest of the machine when the limit is MemAvailable. */
#define HOST_MEM_MARGIN MiB(512)

/* The serial console is stdout; what the screen shows, serial shows too. */
void console_write(unsigned sinks, const char *s, size_t n)
{
    if (sinks & CON_SERIAL)
        fwrite(s, 1, n, stdout);
}

void host_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    exit(status);
}

static void done_record(const char *status, const char *why)
{
    struct record r;

    record_begin(&r, "done");
    record_str(&r, "status", status);
    if (why)
        record_str(&r, "reason", why);
    record_end(&r);
}

void exit_set_mode(enum exit_mode m)
{
    (void)m;
}

void machine_exit(int status)
{
    host_exit(status == EXIT_OK ? HOSTED_EXIT_OK : HOSTED_EXIT_FAIL);
}

void machine_done(void)
{
    done_record("ok", NULL);
    printk("bootheap: finished, status ok\n");
    host_exit(HOSTED_EXIT_OK);
}

void machine_fail(const char *why)
{
    done_record("fail", why);
    printk("bootheap: finished, status FAIL (%s)\n", why);
    host_exit(HOSTED_EXIT_FAIL);
}

void panic(const char *fmt, ...)
{
    static bool in_panic;
    static char msg[192];
    va_list ap;

    if (in_panic)
        host_exit(HOSTED_EXIT_FAIL);
    in_panic = true;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    printk("\npanic: %s\n", msg);
    machine_fail(msg);
}

/* MemAvailable from /proc/meminfo in bytes; 0 when it cannot be read. */
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kib = 0;

    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kib << 10;
}

/*
 * Host memory the frame table, M2P and audit bitmap can take for the boot
 * allocator's regions: every 1 GiB section that holds one of their pages
 * costs at most 8 MiB of page_info and 2 MiB of M2P (frametable_init()),
 * and 16 and 22 MiB more for the Linux and FreeBSD peers' arrays when they
 * run, with Linux's pageblock bits (mm/peers/peer.h).
 */
static uint64_t tables_need(void)
{
    static uint64_t seen[NR_SECTIONS_MAX / 64];
    uint64_t sections = 0;

    memset(seen, 0, sizeof(seen));
    for (unsigned i = 0; i < bootmem.nr; i++) {
        for (uint64_t s = bootmem.r[i].s >> SECTION_SHIFT; s <= (bootmem.r[i].e - 1) >> SECTION_SHIFT; s++) {
            sections += !((seen[s / 64] >> (s % 64)) & 1);
            seen[s / 64] |= 1ull << (s % 64);
        }
    }
    unsigned peer_bytes = 0;
    for (unsigned l = 0; l < PEER_LAYOUTS; l++)
        if ((host_peer_layouts >> l) & 1)
            peer_bytes += peer_layouts[l].entry_bytes;
    return sections * SECTION_PAGES * (sizeof(struct page_info) + sizeof(uint64_t) + peer_bytes) +
           ALIGN_UP(ALIGN_UP(max_pfn, 64) / 8, PAGE_SIZE) + (peer_bytes ? max_pfn / 1024 + PAGE_SIZE : 0);
}

/*
 * The kernel builds its page tables here. User space has none of its own to
 * build: it checks that the host can hold the tables, and reserves the
 * direct map's range (pages cost memory only when touched: the audit bitmap).
 */
void paging_init(uint64_t top)
{
    char need[24], avail[24], why[192];
    uint64_t have = host_mem_limit;

    host_mem.need = tables_need();
    if (!have) {
        have = mem_available();
        have = have > HOST_MEM_MARGIN ? have - HOST_MEM_MARGIN : 0;
    }
    host_mem.avail = have;
    /* The peers' arrays when they do not fit and strategies= did not ask for them: left out, as the kernel does. */
    if (host_mem.need > have && host_peer_layouts && !*heap_strategies_option()) {
        unsigned wanted = host_peer_layouts;
        uint64_t with = host_mem.need;
        host_peer_layouts = 0;
        host_mem.need = tables_need();
        if (host_mem.need <= have)
            printk("bootheap-host: the peers' page arrays would take the tables to %s, over the %s "
                   "available: the peers are left out\n", fmt_size(need, sizeof(need), with),
                   fmt_size(avail, sizeof(avail), have));
        else
            host_peer_layouts = wanted, host_mem.need = with;
    }
    if (host_mem.need > have) {
        snprintf(why, sizeof(why), "not enough memory on this host: the frame table, M2P, audit "
                 "bitmap%s need up to %s, and %s is available%s",
                 host_peer_layouts ? " and the peers' page arrays" : "", fmt_size(need, sizeof(need), host_mem.need),
                 fmt_size(avail, sizeof(avail), have),
                 host_mem_limit ? " (--mem-limit)" : " (MemAvailable less 512 MiB)");
        printk("bootheap-host: %s\n", why);
        fprintf(stderr, "bootheap-host: %s\n", why);
        done_record("fail", why);
        host_exit(HOSTED_EXIT_NOMEM);
    }
    if (mmap((void *)DIRECTMAP_BASE, top, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
        panic("cannot reserve %llu bytes of address space for the direct map at 0x%llx: %s",
              (unsigned long long)top, (unsigned long long)DIRECTMAP_BASE, strerror(errno));
    madvise((void *)DIRECTMAP_BASE, top, MADV_HUGEPAGE);
    paging.directmap_bytes = top;
    paging.directmap_page = MiB(2);        /* madvised for transparent huge pages */
    paging.table_pages = 0;
    paging.nx = true;
}

/* The tables' maps, which paging_map() below makes and settle.c flushes: here, below settle.c, which reads them. */
struct host_range host_tables[HOST_MAX_TABLES];
unsigned host_ntables;

void host_tables_add(uint64_t start, uint64_t len)
{
    /* The tables are mapped a section at a time, each table's sections in turn: join neighbours. */
    for (unsigned i = 0; i < host_ntables; i++) {
        struct host_range *r = &host_tables[i];
        if (r->start + r->len == start) {
            r->len += len;
            return;
        }
        if (start + len == r->start) {
            r->start = start;
            r->len += len;
            return;
        }
    }
    if (host_ntables < HOST_MAX_TABLES)
        host_tables[host_ntables++] = (struct host_range){ start, len };
    else
        panic("more than %u separate maps of the tables", HOST_MAX_TABLES);
}

/*
 * frametable_init() backs the tables through this: fresh anonymous memory
 * at the kernel's virtual address, in huge pages when the host gives them.
 * The frame table's memset that follows faults every page in, before any
 * timed window, as it touches every page in the kernel.
 */
void paging_map(uint64_t virt, uint64_t phys, uint64_t len, unsigned page_shift, uint64_t flags)
{
    (void)phys, (void)page_shift, (void)flags;
    if (mmap((void *)virt, len, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
        panic("cannot map %llu bytes at 0x%llx: %s", (unsigned long long)len,
              (unsigned long long)virt, strerror(errno));
    madvise((void *)virt, len, MADV_HUGEPAGE);
    host_mem.mapped += len;
    host_tables_add(virt, len);
}

/* True when [lo, hi) lies among the tables' addresses: frame table, M2P, the peers' page arrays. */
static bool tables_range(uint64_t lo, uint64_t hi)
{
    return lo >= FRAMETABLE_BASE && hi <= FREEBSD_PAGES_BASE + MAX_PFN_LIMIT * 88;
}

/*
 * Where the host put the tables' 2 MiB pages, from /proc/self/pagemap
 * (physical frames need root; without it every frame reads 0 and nothing is
 * counted): how many physically contiguous runs they form and the longest.
 */
static void measure_phys(uint64_t lo, uint64_t hi, int fd, uint64_t *prev)
{
    for (uint64_t va = lo; va < hi; va += MiB(2)) {
        uint64_t e;
        if (pread(fd, &e, sizeof(e), (off_t)(va >> PAGE_SHIFT) * 8) != sizeof(e) || !(e >> 63))
            continue;
        uint64_t pa = (e & ((1ull << 55) - 1)) << PAGE_SHIFT;
        if (!pa)
            continue;
        host_mem.phys_known += MiB(2);
        if (pa != *prev + MiB(2) || !host_mem.phys_runs) {
            host_mem.phys_runs++;
            host_mem.run_bytes = 0;
        }
        host_mem.run_bytes += MiB(2);
        host_mem.longest_run = MAX(host_mem.longest_run, host_mem.run_bytes);
        *prev = pa;
    }
}

void host_mem_measure(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    int fd = open("/proc/self/pagemap", O_RDONLY);
    char line[256];
    bool ours = false;
    uint64_t prev = 0;

    host_mem.huge = 0;
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long long lo, hi, kib;
        if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2) {
            ours = tables_range(lo, hi);
            if (ours && fd >= 0)
                measure_phys(lo, hi, fd, &prev);
        } else if (ours && sscanf(line, "AnonHugePages: %llu kB", &kib) == 1) {
            host_mem.huge += (uint64_t)kib << 10;
        }
    }
    if (f)
        fclose(f);
    if (fd >= 0)
        close(fd);
    /* The NUMA nodes the host put the tables on: "N<node>=<pages>" in numa_maps. */
    host_mem.nodes = 0;
    f = fopen("/proc/self/numa_maps", "r");
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long long lo;
        if (sscanf(line, "%llx ", &lo) != 1 || !tables_range(lo, lo + 1))
            continue;
        for (char *p = strstr(line, " N"); p; p = strstr(p + 1, " N")) {
            unsigned node;
            if (sscanf(p, " N%u=", &node) == 1 && node < 64)
                host_mem.nodes |= 1ull << node;
        }
    }
    if (f)
        fclose(f);
}
