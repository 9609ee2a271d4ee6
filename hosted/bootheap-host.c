// SPDX-License-Identifier: MIT
// build/bootheap-host: the kernel's heap, strategies, audit and benchmark,
// run as a Linux program on this machine's CPU, over a memory map of choice.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/bench.h"
#include "hosted/platform/runner.h"
#include "kernel/bootinfo/bootrec.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/exit.h"
#include "kernel/console/printk.h"
#include "kernel/console/record.h"
#include "kernel/time/tsc.h"
#include "kernel/version.h"
#include "mm/heap_par.h"
#include "mm/mm.h"
#include "mm/peers/peer.h"

struct bootinfo bootinfo;

static bool opt_memonly;

/* The kernel's own (kernel/main.c) that make sense here too. */
CMDLINE_OPT(memonly, .key = "memonly", .type = OPT_FLAG, .dst = &opt_memonly,
            .help = "stop after the memory summary");
CMDLINE_OPT(verbose, .key = "verbose", .type = OPT_FLAG, .dst = &printk_verbose,
            .help = "print more detail about each step");

extern const struct cmdline_opt __cmdline_opts_start[], __cmdline_opts_end[];
/* Where the kernel's image would lie (build/hosted/kimage.ld): its load address here. */
extern const char __kernel_phys_start[];

static const char usage[] =
    "usage: bootheap-host [MAP] [--mem-limit SIZE] [--cpus N] [KERNEL OPTIONS...]\n"
    "Runs bootheap's heap code and benchmark in user space on this machine's CPU.\n"
    "MAP, one of:\n"
    "  --mem SIZE       the map QEMU's q35 machine gives a PVH guest of SIZE (default 8G);\n"
    "                   SIZE is bytes or a number with K, M, G or T (binary)\n"
    "  --map FILE       a map file: 'start end type' a line, hexadecimal, end exclusive\n"
    "                   (python3 -m harness map turns any other map into one, and\n"
    "                   python3 -m harness hosted --map runs on any map)\n"
    "  --mem-limit SIZE refuse maps whose tables need more host memory than SIZE,\n"
    "                   above 0 (default: MemAvailable less 512 MiB)\n"
    "  --cpus N         threads for the parallel init of the eager strategies (default 1;\n"
    "                   all: one per core online); cpus= chooses how many of them run\n"
    "  --map-only       print the boot record with the map, and stop\n"
    "  --fake-probe-fold N  for tests: the clock probe reads as one a renamer folds N to 1\n"
    "  --list-options   list the kernel options this runner takes\n"
    "KERNEL OPTIONS are the kernel's command line: runs=3 strategies=page,chunk ...\n"
    "Exit status: 0 ok, 1 the run failed, 2 bad arguments or map, 3 not enough memory.\n";

__attribute__((noreturn, format(printf, 1, 2)))
static void usage_fail(const char *fmt, ...)
{
    va_list ap;

    fputs("bootheap-host: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(bootheap-host --help tells more)\n", stderr);
    host_exit(HOSTED_EXIT_USAGE);
}

static void list_options(void)
{
    for (const struct cmdline_opt *o = __cmdline_opts_start; o < __cmdline_opts_end; o++)
        printf("  %-14s %s\n", o->key, o->help);
}

struct args {
    const char *map;
    bool map_only;
    uint64_t mem;               /* 0: not given */
};

/* True when key (len bytes) is an option of the registry. */
static bool registered(const char *key, size_t len)
{
    for (const struct cmdline_opt *o = __cmdline_opts_start; o < __cmdline_opts_end; o++)
        if (strlen(o->key) == len && !strncmp(o->key, key, len))
            return true;
    return false;
}

/* A word that names a file or folder: it holds a '/' or is there. */
static bool pathlike(const char *w, size_t len)
{
    return memchr(w, '/', len) || !access(w, F_OK);
}

/*
 * A kernel word that is a path: the kernel skips a first word starting with
 * '/' (its loader's path) and warns about other unknown ones, so a map named
 * there would be dropped and another map run. No option's key holds a '/'.
 */
static void refuse_path(const char *w)
{
    size_t klen = strcspn(w, "=");

    if (!registered(w, klen) && pathlike(w, klen))
        usage_fail("'%s' is a path, not a kernel option: give a map file as --map FILE (python3 "
                   "-m harness hosted --map %s reads any other map)", w, w);
}

/* The e820 replay and the firmware map, now read by the harness; path: the word after opt. */
__attribute__((noreturn))
static void moved(const char *opt, const char *path)
{
    bool fw = !strcmp(opt, "--firmware");

    usage_fail("%s%s%s: the runner reads map files only (--map FILE); python3 -m harness hosted "
               "--map %s reads %s", opt, path ? " " : "", path ? path : "",
               path ? path : fw ? "/sys/firmware/memmap" : "PATH",
               fw ? "a /sys/firmware/memmap folder" : "serial logs, records files and results folders");
}

/* Runner options start with "--"; every other word is the kernel's. */
static void parse_args(int argc, char **argv, struct args *a, struct bootinfo *bi)
{
    struct err e;
    size_t used = 0;

    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (strncmp(w, "--", 2)) {
            size_t n = strlen(w);
            refuse_path(w);
            if (used + n + 2 > sizeof(bi->cmdline))
                usage_fail("the kernel options are longer than %zu bytes", sizeof(bi->cmdline) - 1);
            if (used)
                bi->cmdline[used++] = ' ';
            memcpy(bi->cmdline + used, w, n + 1);
            used += n;
        } else if (!strcmp(w, "--help")) {
            fputs(usage, stdout);
            host_exit(HOSTED_EXIT_OK);
        } else if (!strcmp(w, "--list-options")) {
            list_options();
            host_exit(HOSTED_EXIT_OK);
        } else if (!strcmp(w, "--e820") || !strcmp(w, "--firmware")) {
            const char *next = i + 1 < argc ? argv[i + 1] : NULL;
            bool named = next && strncmp(next, "--", 2) &&
                         (!strcmp(w, "--e820") || pathlike(next, strlen(next)));
            moved(w, named ? next : NULL);
        } else if (!strcmp(w, "--map-only")) {
            a->map_only = true;
        } else if (!strcmp(w, "--cpus")) {
            long cores = sysconf(_SC_NPROCESSORS_ONLN);
            char *end;
            unsigned long v;
            if (i + 1 == argc)
                usage_fail("--cpus needs a value");
            const char *arg = argv[++i];
            v = !strcmp(arg, "all") ? (unsigned long)cores : strtoul(arg, &end, 10);
            if (strcmp(arg, "all") && (*end || end == arg))
                usage_fail("--cpus %s: expected a number of threads or all", arg);
            if (v < 1 || v > HEAP_PAR_MAX_CPUS)
                usage_fail("--cpus %s: between 1 and %u threads", arg, HEAP_PAR_MAX_CPUS);
            host_cpus = (unsigned)v;
        } else if (!strcmp(w, "--fake-probe-fold")) {
            /* For tests: a clock probe that reads as one a renamer folds (hosted/platform/probe.c). */
            char *end;
            unsigned long v = i + 1 < argc ? strtoul(argv[i + 1], &end, 10) : 0;
            if (i + 1 == argc || *end || end == argv[i + 1] || v < 1 || v > 64)
                usage_fail("--fake-probe-fold needs a whole number from 1 to 64");
            host_probe_fold = (unsigned)v;
            i++;
        } else if (!strcmp(w, "--mem") || !strcmp(w, "--mem-limit") || !strcmp(w, "--map")) {
            if (i + 1 == argc)
                usage_fail("%s needs a value", w);
            const char *v = argv[++i];
            if (!strcmp(w, "--map"))
                a->map = v;
            else if (host_parse_size(v, !strcmp(w, "--mem") ? &a->mem : &host_mem_limit, &e))
                usage_fail("%s %s", w, e.msg);
            else if (!strcmp(w, "--mem") && !a->mem)
                usage_fail("--mem 0: a map needs some RAM");
            else if (!strcmp(w, "--mem-limit") && !host_mem_limit)
                usage_fail("--mem-limit 0: give a size above 0 (without --mem-limit the limit is "
                           "MemAvailable less 512 MiB)");
        } else {
            usage_fail("unknown option %s", w);
        }
    }
    if (a->map && a->mem)
        usage_fail("--map takes the size of its map; --mem does not apply");
}

static void load_map(const struct args *a, struct bootinfo *bi)
{
    static char source[160];
    struct err e;
    int rc;

    if (a->map) {
        rc = host_map_file(bi, a->map, &e);
        snprintf(source, sizeof(source), "map file %.140s", a->map);
    } else {
        uint64_t mem = a->mem ? a->mem : GiB(8);
        char sz[24];
        rc = host_map_q35(bi, mem, &e);
        snprintf(source, sizeof(source), "QEMU q35 layout of %s", fmt_size(sz, sizeof(sz), mem));
    }
    if (rc)
        usage_fail("%s", e.msg);
    bi->mmap_source = source;
}

/* The one-minute load average, in hundredths; 0 when unreadable. */
static uint64_t load_centi(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    unsigned whole = 0, frac = 0;

    if (f) {
        if (fscanf(f, "%u.%2u", &whole, &frac) != 2)
            whole = frac = 0;
        fclose(f);
    }
    return (uint64_t)whole * 100 + frac;
}

/* What the hosted run stood on: the host, its memory, its load. */
static void record_host(uint64_t load_start, uint64_t ns_start, int64_t clock_ppm)
{
    struct utsname u;
    struct record r;

    uname(&u);
    record_begin(&r, "host");
    record_str(&r, "means", "user space; the kernel's heap code; this machine's real CPU and "
                            "memory; no hypervisor of bootheap's own");
    record_str(&r, "os", u.sysname);
    record_str(&r, "os_release", u.release);
    record_str(&r, "host_hypervisor", cpu.hypervisor ? cpu.hv_signature : "");
    record_u64(&r, "tables_bytes", host_mem.mapped);
    record_u64(&r, "huge_bytes", host_mem.huge);
    record_u64(&r, "phys_known_bytes", host_mem.phys_known);
    record_u64(&r, "phys_runs", host_mem.phys_runs);
    record_u64(&r, "phys_longest_run_bytes", host_mem.longest_run);
    record_u64(&r, "numa_nodes_mask", host_mem.nodes);
    record_u64(&r, "reach_pages", host_mem.reach_pages);
    record_u64(&r, "reach_p50_ns", host_mem.reach_p50_ns);
    record_u64(&r, "reach_p90_ns", host_mem.reach_p90_ns);
    record_u64(&r, "settles", host_mem.settles);
    record_u64(&r, "settle_ms", host_mem.settle_ns / 1000000);
    record_u64(&r, "need_bytes", host_mem.need);
    record_u64(&r, "avail_bytes", host_mem.avail);
    record_fixed(&r, "load_start", (int64_t)load_start, 2);
    record_fixed(&r, "load_end", (int64_t)load_centi(), 2);
    record_u64(&r, "elapsed_ms", (host_clock_ns() - ns_start) / 1000000);
    record_i64(&r, "clock_check_ppm", clock_ppm);
    record_end(&r);
}

int main(int argc, char **argv)
{
    struct args a = { 0 };
    uint64_t load_start = load_centi(), ns_start = host_clock_ns();

    setvbuf(stdout, NULL, _IOLBF, 0);
    /* The CPU as the kernel reads it; the runner is its own accelerator. */
    cpu_init();
    cpu.accel = ACCEL_HOST;
    /* The loader's part: a map and a command line. */
    strcpy(bootinfo.loader_name, "bootheap-host");
    parse_args(argc, argv, &a, &bootinfo);
    load_map(&a, &bootinfo);
    printk("\nbootheap %s, hosted: the kernel's heap code in user space on this machine's CPU\n",
           BOOTHEAP_VERSION);
    if (cpu.hypervisor)
        printk("host: %s, itself a guest of a hypervisor that CPUID calls '%s'\n",
               cpu.brand, cpu.hv_signature);
    /* Options for every subsystem, from the same registry as the kernel's. */
    cmdline_apply(bootinfo.cmdline);
    /* The peers that will run need their page arrays: the memory check counts them. */
    host_peer_layouts = opt_memonly ? 0 : peer_layouts_wanted();
    boot_record(&bootinfo, "host", (uint64_t)(uintptr_t)__kernel_phys_start, true);
    if (a.map_only)
        host_exit(HOSTED_EXIT_OK);
    /* Memory: the map, the boot allocator, the frame table in anonymous memory. */
    mm_init(&bootinfo);
    /* The TSC's rate against CLOCK_MONOTONIC_RAW, then the core's clock against the TSC. */
    host_time_init();
    host_probe_init();
    /* The heap's memory: whatever the boot allocator still holds, less the peers' page arrays. */
    mm_heap_takeover(host_peer_layouts);
    host_mem_measure();
    printk("host: %llu MiB of anonymous memory for the tables, %llu MiB of it in huge pages\n",
           (unsigned long long)(host_mem.mapped >> 20), (unsigned long long)(host_mem.huge >> 20));
    /* What a first read of a far 2 MiB page of the tables costs on this host. */
    if (!opt_memonly) {
        host_reach_probe();
        printk("host: a write to a 2 MiB page of the frame table after the full pass that zeroed them "
               "takes %llu ns (median of %llu pages; 90th percentile %llu ns)\n",
               (unsigned long long)host_mem.reach_p50_ns, (unsigned long long)host_mem.reach_pages,
               (unsigned long long)host_mem.reach_p90_ns);
    }

    if (opt_memonly) {
        record_host(load_start, ns_start, host_clock_recheck());
        machine_done();
    }
    /* The benchmark: every strategy, timed, audited, reported. */
    struct err e;
    int rc = bench_main(&e);
    host_window_report();
    record_host(load_start, ns_start, host_clock_recheck());
    if (rc)
        machine_fail(e.msg);
    machine_done();
}
