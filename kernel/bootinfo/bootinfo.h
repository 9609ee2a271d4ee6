/* SPDX-License-Identifier: MIT */
/*
 * The one boot-info structure. The multiboot2 and PVH entries each fill it
 * from their own format; nothing after the hand-over reads a loader's raw
 * data. The parsers are plain C over a physical-memory reader, so the host
 * tests feed them hostile blobs.
 */
#ifndef KERNEL_BOOTINFO_BOOTINFO_H
#define KERNEL_BOOTINFO_BOOTINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "kernel/lib/physread.h"

/*
 * Raw memory-map entries kept: far more than firmware gives (tens; OVMF
 * about a hundred), so that a map too fragmented for the boot allocator
 * still boots (mm/usable.h). A map with more entries fails to parse.
 */
#define BI_MMAP_MAX         8192
#define BI_MODULES_MAX      16
#define BI_RESV_MAX         (8 + 2 * BI_MODULES_MAX)
#define BI_CMDLINE_MAX      1024    /* bytes, with the NUL */
#define BI_NAME_MAX         64
#define MB2_INFO_MAX        (1u << 20)  /* a larger total size is a lie */

#define MB2_BOOTLOADER_MAGIC 0x36d76289u
#define PVH_START_MAGIC      0x336ec578u

enum bi_loader { BI_LOADER_NONE = 0, BI_LOADER_MB2 = 1, BI_LOADER_PVH = 2 };

/*
 * One entry of a memory map, in bytes: the loader's raw map keeps the
 * loader's type numbers (e820 numbering, and others such as GRUB's 20);
 * the sanitised map (mm/e820.h) has only E820_* types, no empty entries and
 * none that wrap.
 */
struct mmap_entry {
    uint64_t addr;
    uint64_t len;
    uint32_t type;
};

struct bootinfo_fb {
    bool present;
    uint64_t addr;          /* physical */
    uint32_t pitch, width, height;  /* bytes per line; pixels or characters */
    uint8_t bpp;
    uint8_t type;           /* 0 indexed, 1 RGB, 2 EGA text */
    uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct bi_module {
    uint64_t start, end;    /* physical bytes [start, end) */
    char cmdline[64];
};

/* A physical byte range that loader data occupies and RAM must not reuse. */
struct bi_range {
    uint64_t start, end;
    const char *what;
};

struct bootinfo {
    enum bi_loader loader;
    char loader_name[BI_NAME_MAX];
    char cmdline[BI_CMDLINE_MAX];

    struct mmap_entry mmap[BI_MMAP_MAX];
    unsigned mmap_count;
    const char *mmap_source;        /* which table the map came from */

    bool meminfo;                   /* multiboot2 basic meminfo */
    uint32_t mem_lower_kib, mem_upper_kib;

    uint8_t rsdp[36];               /* a copy of the ACPI RSDP */
    uint32_t rsdp_len;              /* 0: none; 20: ACPI 1.0; 36: 2.0+ */
    uint64_t rsdp_phys;             /* where it was, when the loader said */

    struct bootinfo_fb fb;

    struct bi_module modules[BI_MODULES_MAX];
    unsigned module_count;

    struct bi_range resv[BI_RESV_MAX];
    unsigned resv_count;
};

/*
 * Fills bi from a multiboot2 info at info_paddr, given EAX at entry
 * (kernel/bootinfo/mb2.c). Returns 0, or a negative errno with e naming the problem:
 * -EINVAL for malformed data, -EFAULT for a pointer to memory phys cannot
 * read, -ENOENT for no memory map, -E2BIG for more entries than are kept,
 * -ENOSPC when the table of loader ranges is full.
 */
int mb2_parse(struct bootinfo *bi, uint32_t magic, uint64_t info_paddr,
              phys_read_fn phys, void *ctx, struct err *e);

/*
 * Fills bi from a PVH hvm_start_info at paddr (kernel/bootinfo/pvh.c). Same returns,
 * and -EPROTONOSUPPORT for a start info older than version 1.
 */
int pvh_parse(struct bootinfo *bi, uint64_t paddr, phys_read_fn phys, void *ctx,
              struct err *e);

/* "multiboot2", "pvh" or "none". */
const char *bi_loader_name(enum bi_loader l);

/*
 * Prints what the loader and the CPU said, and where the image was loaded,
 * and writes the `boot` record (kernel/bootinfo/bootinfo_report.c, kernel only).
 */
void bootinfo_report(const struct bootinfo *bi);

/* The kernel's own, filled by kstart() from the loader's data (kernel/main.c); bootinfo.c holds it. */
extern struct bootinfo bootinfo;

#endif
