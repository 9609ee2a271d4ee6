// SPDX-License-Identifier: MIT
// Host tests for kernel/bootinfo/mb2.c and kernel/bootinfo/pvh.c: multiboot2 and PVH boot information, built
// byte by byte in a fake physical memory, good and hostile.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/bootinfo/bootinfo.h"
#include "kernel/lib/errno.h"

/*
 * The fake physical memory: MEM_SIZE bytes at BASE, nothing readable
 * elsewhere. It is its own heap block, so ASan catches a read past its end
 * that skipped the reader. Unused bytes are FILL, not zero, so a parser that
 * counts on zero padding is caught too.
 */
#define BASE        0x100000ull
#define MEM_SIZE    0x80000u
#define MEM_END     (BASE + MEM_SIZE)
#define FILL        0xa5

/* Where the tests put things. */
#define INFO        (BASE + 0x1000)     /* multiboot2 info */
#define SI          (BASE + 0x100)      /* PVH start info */
#define MEMMAP      (BASE + 0x200)      /* PVH memory map, up to 0x3200 */
#define CMDLINE     (BASE + 0x4000)
#define MODLIST     (BASE + 0x5000)
#define RSDP        (BASE + 0x6000)

static uint8_t *mem;
static struct bootinfo *bi;
static struct err err;                  /* the message of the last failed parse */
static uint8_t scratch[0x60000];        /* tag bodies under construction */

static const void *phys(uint64_t paddr, uint64_t len, void *ctx)
{
    assert_ptr_equal(ctx, &mem);
    if (paddr < BASE || paddr - BASE > MEM_SIZE || len > MEM_SIZE - (paddr - BASE))
        return NULL;
    return mem + (paddr - BASE);
}

static uint8_t *at(uint64_t paddr)
{
    assert_true(paddr >= BASE && paddr <= MEM_END);
    return mem + (paddr - BASE);
}

static void put32(uint64_t paddr, uint32_t v) { memcpy(at(paddr), &v, 4); }
static void put64(uint64_t paddr, uint64_t v) { memcpy(at(paddr), &v, 8); }

static int setup(void **state)
{
    (void)state;
    mem = malloc(MEM_SIZE);
    bi = malloc(sizeof(*bi));
    assert_non_null(mem);
    assert_non_null(bi);
    memset(mem, FILL, MEM_SIZE);
    memset(bi, 0x5a, sizeof(*bi));      /* the parser must clear it */
    memset(&err, 0, sizeof(err));       /* and write a message only on failure */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(mem);
    free(bi);
    return 0;
}

/* Each failure returns its negative errno and leaves this exact message. */
#define assert_fails(call, code, text) do {             \
        assert_int_equal((call), (code));               \
        assert_string_equal(err.msg, (text));           \
    } while (0)

/* ---- multiboot2 info builder ------------------------------------------- */

struct mb2 {
    uint64_t paddr;
    uint32_t off;       /* where the next tag goes */
};

struct ent {
    uint64_t addr, len;
    uint32_t type;
};

static struct mb2 mb2_begin(uint64_t paddr)
{
    return (struct mb2){ paddr, 8 };
}

/* Appends a tag of 8 + blen bytes; the next one starts 8-byte aligned. */
static uint64_t mb2_tag(struct mb2 *b, uint32_t type, const void *body, uint32_t blen)
{
    uint64_t t = b->paddr + b->off;

    put32(t, type);
    put32(t + 4, 8 + blen);
    if (blen)
        memcpy(at(t + 8), body, blen);
    b->off += (8 + blen + 7) & ~7u;
    return t;
}

/* Appends the end tag and writes the header; returns the total size. */
static uint32_t mb2_finish(struct mb2 *b)
{
    mb2_tag(b, 0, NULL, 0);
    put32(b->paddr, b->off);
    put32(b->paddr + 4, 0);
    return b->off;
}

static uint64_t mb2_str(struct mb2 *b, uint32_t type, const char *s)
{
    return mb2_tag(b, type, s, (uint32_t)strlen(s) + 1);
}

/* Tag 6: entry size, entry version, then entries of esize bytes each. */
static uint64_t mb2_mmap(struct mb2 *b, const struct ent *e, unsigned n, uint32_t esize)
{
    uint32_t v = 0;

    assert_true(8 + (size_t)n * esize <= sizeof(scratch));
    memcpy(scratch, &esize, 4);
    memcpy(scratch + 4, &v, 4);
    for (unsigned i = 0; i < n; i++) {
        uint8_t *p = scratch + 8 + (size_t)i * esize;
        memset(p, 0xee, esize);         /* reserved field and any extra bytes */
        memcpy(p, &e[i].addr, 8);
        memcpy(p + 8, &e[i].len, 8);
        memcpy(p + 16, &e[i].type, 4);
    }
    return mb2_tag(b, 6, scratch, 8 + n * esize);
}

struct efi {
    uint32_t type;
    uint64_t phys, pages;
};

/* Tag 17: descriptor size, descriptor version, then the EFI descriptors. */
static uint64_t mb2_efi(struct mb2 *b, const struct efi *d, unsigned n, uint32_t dsize)
{
    uint32_t v = 1;

    assert_true(8 + (size_t)n * dsize <= sizeof(scratch));
    memcpy(scratch, &dsize, 4);
    memcpy(scratch + 4, &v, 4);
    for (unsigned i = 0; i < n; i++) {
        uint8_t *p = scratch + 8 + (size_t)i * dsize;
        uint64_t virt = 0xffff800000000000ull, attr = 0xf;
        memset(p, 0xee, dsize);
        memcpy(p, &d[i].type, 4);
        memcpy(p + 8, &d[i].phys, 8);
        memcpy(p + 16, &virt, 8);
        memcpy(p + 24, &d[i].pages, 8);
        memcpy(p + 32, &attr, 8);
    }
    return mb2_tag(b, 17, scratch, 8 + n * dsize);
}

static uint64_t mb2_module(struct mb2 *b, uint32_t start, uint32_t end, const char *s)
{
    size_t n = strlen(s) + 1;

    memcpy(scratch, &start, 4);
    memcpy(scratch + 4, &end, 4);
    memcpy(scratch + 8, s, n);
    return mb2_tag(b, 3, scratch, (uint32_t)(8 + n));
}

static uint64_t mb2_meminfo(struct mb2 *b, uint32_t lower, uint32_t upper)
{
    uint32_t body[2] = { lower, upper };

    return mb2_tag(b, 4, body, sizeof(body));
}

/* Tag 8: the first blen bytes of a framebuffer body of the given type, with
 * RGB colour info of 32 bpp, 8 bits each at 16, 8 and 0. */
static uint64_t mb2_fb(struct mb2 *b, uint64_t addr, uint32_t w, uint32_t h, uint8_t type,
                       uint32_t blen)
{
    uint8_t body[30];
    uint32_t pitch = w * 4;
    static const uint8_t colours[6] = { 16, 8, 8, 8, 0, 8 };

    assert_true(blen <= sizeof(body));
    memcpy(body, &addr, 8);
    memcpy(body + 8, &pitch, 4);
    memcpy(body + 12, &w, 4);
    memcpy(body + 16, &h, 4);
    body[20] = 32;          /* bpp */
    body[21] = type;
    body[22] = body[23] = 0;
    memcpy(body + 24, colours, 6);
    return mb2_tag(b, 8, body, blen);
}

/* An RSDP image: the signature, then bytes that show where they came from. */
static void make_rsdp(uint8_t *p, unsigned len, uint8_t revision, uint8_t mark)
{
    memcpy(p, "RSD PTR ", 8);
    for (unsigned i = 8; i < len; i++)
        p[i] = (uint8_t)(mark + i);
    p[15] = revision;
}

/* A SeaBIOS-like map of a 512 MiB q35 guest. */
static const struct ent bios_map[] = {
    { 0x0, 0x9fc00, 1 },
    { 0x9fc00, 0x400, 2 },
    { 0xf0000, 0x10000, 2 },
    { 0x100000, 0x1fee0000, 1 },
    { 0x1ffe0000, 0x20000, 2 },
    { 0xb0000000, 0x10000000, 2 },
    { 0xfed1c000, 0x4000, 2 },
    { 0xfffc0000, 0x40000, 2 },
};
#define BIOS_MAP_N (sizeof(bios_map) / sizeof(bios_map[0]))

static const struct ent two_ram[] = {
    { 0x0, 0x9f000, 1 },
    { 0x100000, 0x7f00000, 1 },
};

static int parse_mb2(void)
{
    return mb2_parse(bi, MB2_BOOTLOADER_MAGIC, INFO, phys, &mem, &err);
}

static void assert_map(const struct ent *e, unsigned n)
{
    assert_int_equal(bi->mmap_count, n);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(bi->mmap[i].addr, e[i].addr);
        assert_int_equal(bi->mmap[i].len, e[i].len);
        assert_int_equal(bi->mmap[i].type, e[i].type);
    }
}

static void assert_resv(unsigned i, uint64_t start, uint64_t end, const char *what)
{
    assert_true(i < bi->resv_count);
    assert_int_equal(bi->resv[i].start, start);
    assert_int_equal(bi->resv[i].end, end);
    assert_string_equal(bi->resv[i].what, what);
}

/* A valid info with a two-entry map: tag 6 at offset 8 (64 bytes), end at 72. */
static uint32_t mb2_minimal(void)
{
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, two_ram, 2, 24);
    return mb2_finish(&b);
}

/* ---- multiboot2: good ----------------------------------------------------- */

static void test_mb2_grub_bios(void **state)
{
    uint8_t rsdp[20];
    (void)state;

    make_rsdp(rsdp, sizeof(rsdp), 0, 0x40);
    struct mb2 b = mb2_begin(INFO);
    mb2_str(&b, 1, "/boot/bootheap.elf selftest exit=auto");
    mb2_str(&b, 2, "GRUB 2.06-13+deb12u1");
    mb2_meminfo(&b, 639, 523136);
    mb2_tag(&b, 5, "\x80\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00", 12);   /* BIOS boot device: skipped */
    mb2_mmap(&b, bios_map, BIOS_MAP_N, 24);
    mb2_tag(&b, 14, rsdp, sizeof(rsdp));
    mb2_fb(&b, 0xfd000000, 1024, 768, 1, 30);
    mb2_tag(&b, 21, "\x00\x00\x20\x00", 4);     /* load base address: skipped */
    uint32_t total = mb2_finish(&b);

    assert_int_equal(parse_mb2(), 0);
    assert_string_equal(err.msg, "");
    assert_int_equal(bi->loader, BI_LOADER_MB2);
    assert_string_equal(bi_loader_name(bi->loader), "multiboot2");
    assert_string_equal(bi->loader_name, "GRUB 2.06-13+deb12u1");
    assert_string_equal(bi->cmdline, "/boot/bootheap.elf selftest exit=auto");
    assert_map(bios_map, BIOS_MAP_N);
    assert_string_equal(bi->mmap_source, "multiboot2 memory map");
    assert_true(bi->meminfo);
    assert_int_equal(bi->mem_lower_kib, 639);
    assert_int_equal(bi->mem_upper_kib, 523136);
    assert_int_equal(bi->rsdp_len, 20);
    assert_memory_equal(bi->rsdp, rsdp, 20);
    assert_int_equal(bi->rsdp_phys, 0);         /* multiboot2 gives a copy, not an address */
    assert_true(bi->fb.present);
    assert_int_equal(bi->fb.addr, 0xfd000000);
    assert_int_equal(bi->fb.pitch, 4096);
    assert_int_equal(bi->fb.width, 1024);
    assert_int_equal(bi->fb.height, 768);
    assert_int_equal(bi->fb.bpp, 32);
    assert_int_equal(bi->fb.type, 1);
    assert_int_equal(bi->fb.red_pos, 16);
    assert_int_equal(bi->fb.red_size, 8);
    assert_int_equal(bi->fb.green_pos, 8);
    assert_int_equal(bi->fb.green_size, 8);
    assert_int_equal(bi->fb.blue_pos, 0);
    assert_int_equal(bi->fb.blue_size, 8);
    assert_int_equal(bi->module_count, 0);
    assert_int_equal(bi->resv_count, 1);
    assert_resv(0, INFO, INFO + total, "multiboot2 info");
}

/* OVMF hands GRUB 48-byte descriptors; every EFI type has its e820 class. */
static void test_mb2_uefi_efi_map_only(void **state)
{
    (void)state;
    struct efi d[15];
    static const uint32_t e820_of[15] = {
        2,          /* 0 reserved */
        1, 1,       /* 1, 2 loader code and data */
        1, 1,       /* 3, 4 boot services code and data */
        2, 2,       /* 5, 6 runtime services code and data */
        1,          /* 7 conventional */
        5,          /* 8 unusable */
        3,          /* 9 ACPI reclaimable */
        4,          /* 10 ACPI NVS */
        2, 2,       /* 11, 12 MMIO and MMIO port space */
        2,          /* 13 PAL code */
        2,          /* 14 persistent */
    };
    struct ent want[15];
    for (unsigned i = 0; i < 15; i++) {
        d[i] = (struct efi){ i, 0x100000ull * (i + 1), i + 1 };
        want[i] = (struct ent){ d[i].phys, (uint64_t)(i + 1) << 12, e820_of[i] };
    }
    /* The largest page count that still fits in 2^64 bytes. */
    d[14].pages = UINT64_MAX >> 12;
    want[14].len = 0xfffffffffffff000ull;

    struct mb2 b = mb2_begin(INFO);
    mb2_str(&b, 1, "");
    mb2_str(&b, 2, "GRUB 2.06");
    mb2_efi(&b, d, 15, 48);
    uint32_t total = mb2_finish(&b);

    assert_int_equal(parse_mb2(), 0);
    assert_string_equal(bi->cmdline, "");
    assert_false(bi->meminfo);
    assert_false(bi->fb.present);
    assert_int_equal(bi->rsdp_len, 0);
    assert_map(want, 15);
    assert_string_equal(bi->mmap_source, "multiboot2 EFI memory map");
    assert_int_equal(bi->resv_count, 1);
    assert_resv(0, INFO, INFO + total, "multiboot2 info");
}

/* GRUB on UEFI gives both maps; the BIOS-style one is used, in either order. */
static void test_mb2_both_maps_bios_wins(void **state)
{
    (void)state;
    const struct efi d[] = { { 7, 0x0, 0x10 } };

    for (int order = 0; order < 2; order++) {
        memset(mem, FILL, MEM_SIZE);
        struct mb2 b = mb2_begin(INFO);
        if (order)
            mb2_efi(&b, d, 1, 40);
        mb2_mmap(&b, two_ram, 2, 24);
        if (!order)
            mb2_efi(&b, d, 1, 40);
        mb2_finish(&b);
        assert_int_equal(parse_mb2(), 0);
        assert_map(two_ram, 2);
        assert_string_equal(bi->mmap_source, "multiboot2 memory map");
    }
}

/* Entries larger than 24 bytes are stepped over by their declared size. */
static void test_mb2_mmap_wide_entries(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, bios_map, BIOS_MAP_N, 40);
    mb2_finish(&b);
    assert_int_equal(parse_mb2(), 0);
    assert_map(bios_map, BIOS_MAP_N);
}

/* Exactly BI_MMAP_MAX entries is the most that fits. */
static void test_mb2_mmap_at_limit(void **state)
{
    static struct ent e[BI_MMAP_MAX];
    (void)state;
    for (unsigned i = 0; i < BI_MMAP_MAX; i++)
        e[i] = (struct ent){ (uint64_t)i << 21, 1 << 20, 1 + i % 5 };
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, e, BI_MMAP_MAX, 24);
    mb2_finish(&b);
    assert_int_equal(parse_mb2(), 0);
    assert_map(e, BI_MMAP_MAX);
}

/* The ACPI 2.0 RSDP wins over 1.0, whichever tag comes first. */
static void test_mb2_both_rsdp_tags(void **state)
{
    uint8_t old[20], new[36];
    (void)state;
    make_rsdp(old, 20, 0, 0x10);
    make_rsdp(new, 36, 2, 0x80);

    for (int order = 0; order < 2; order++) {
        memset(mem, FILL, MEM_SIZE);
        struct mb2 b = mb2_begin(INFO);
        mb2_tag(&b, order ? 15 : 14, order ? new : old, order ? 36 : 20);
        mb2_mmap(&b, two_ram, 2, 24);
        mb2_tag(&b, order ? 14 : 15, order ? old : new, order ? 20 : 36);
        mb2_finish(&b);
        assert_int_equal(parse_mb2(), 0);
        assert_int_equal(bi->rsdp_len, 36);
        assert_memory_equal(bi->rsdp, new, 36);
    }
}

static void test_mb2_modules(void **state)
{
    (void)state;
    const char *long_name = "/boot/initrd-with-a-name-much-longer-than-the-sixty-three-bytes-kept.img";
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_module(&b, 0x200000, 0x212345, "/boot/initrd.img root=/dev/ram0");
    mb2_module(&b, 0x300000, 0x300000, "empty");
    mb2_module(&b, 0x400000, 0x401000, long_name);
    mb2_module(&b, 0x500000, 0x500001, "");
    uint32_t total = mb2_finish(&b);

    assert_int_equal(parse_mb2(), 0);
    assert_int_equal(bi->module_count, 4);
    assert_int_equal(bi->modules[0].start, 0x200000);
    assert_int_equal(bi->modules[0].end, 0x212345);
    assert_string_equal(bi->modules[0].cmdline, "/boot/initrd.img root=/dev/ram0");
    assert_int_equal(bi->modules[1].start, 0x300000);
    assert_int_equal(bi->modules[1].end, 0x300000);
    assert_string_equal(bi->modules[1].cmdline, "empty");
    /* Module strings are labels: cut to what fits, not refused. */
    assert_int_equal(strlen(bi->modules[2].cmdline), 63);
    assert_memory_equal(bi->modules[2].cmdline, long_name, 63);
    assert_string_equal(bi->modules[3].cmdline, "");
    /* An empty module needs no reservation; the others and the info do. */
    assert_int_equal(bi->resv_count, 4);
    assert_resv(0, 0x200000, 0x212345, "multiboot2 module");
    assert_resv(1, 0x400000, 0x401000, "multiboot2 module");
    assert_resv(2, 0x500000, 0x500001, "multiboot2 module");
    assert_resv(3, INFO, INFO + total, "multiboot2 info");
}

static void test_mb2_module_limit(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, two_ram, 2, 24);
    for (unsigned i = 0; i < BI_MODULES_MAX; i++)
        mb2_module(&b, 0x1000000 + i * 0x10000, 0x1000000 + i * 0x10000 + 0x100, "m");
    mb2_finish(&b);
    assert_int_equal(parse_mb2(), 0);
    assert_int_equal(bi->module_count, BI_MODULES_MAX);
    assert_int_equal(bi->resv_count, BI_MODULES_MAX + 1);
    assert_int_equal(bi->modules[BI_MODULES_MAX - 1].start, 0x10f0000);
}

/* The loader name is a label too: an overlong or unterminated one is cut. */
static void test_mb2_loader_name_cut(void **state)
{
    char name[100];
    (void)state;
    memset(name, 'G', sizeof(name));
    name[99] = '\0';
    struct mb2 b = mb2_begin(INFO);
    mb2_str(&b, 2, name);
    mb2_tag(&b, 2, "GRUB", 4);          /* the second tag, unterminated, wins */
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_int_equal(parse_mb2(), 0);
    assert_string_equal(bi->loader_name, "GRUB");
    assert_string_equal(err.msg, "");

    memset(mem, FILL, MEM_SIZE);
    b = mb2_begin(INFO);
    mb2_str(&b, 2, name);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_int_equal(parse_mb2(), 0);
    assert_int_equal(strlen(bi->loader_name), BI_NAME_MAX - 1);
    assert_memory_equal(bi->loader_name, name, BI_NAME_MAX - 1);
    assert_string_equal(err.msg, "");
}

/* A command line of BI_CMDLINE_MAX - 1 bytes is the longest kept. */
static void test_mb2_cmdline_at_limit(void **state)
{
    static char line[BI_CMDLINE_MAX];
    (void)state;
    memset(line, 'x', sizeof(line) - 1);
    line[sizeof(line) - 1] = '\0';
    struct mb2 b = mb2_begin(INFO);
    mb2_str(&b, 1, line);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_int_equal(parse_mb2(), 0);
    assert_string_equal(bi->cmdline, line);
}

/* An info that ends on the last byte of memory is fine. */
static void test_mb2_info_at_end_of_memory(void **state)
{
    (void)state;
    uint64_t where = MEM_END - 80;
    struct mb2 b = mb2_begin(where);
    mb2_mmap(&b, two_ram, 2, 24);
    assert_int_equal(mb2_finish(&b), 80);
    assert_int_equal(mb2_parse(bi, MB2_BOOTLOADER_MAGIC, where, phys, &mem, &err), 0);
    assert_map(two_ram, 2);
}

/* Every parse starts from an empty structure, whatever was there before. */
static void test_parse_resets(void **state)
{
    (void)state;
    mb2_minimal();
    assert_int_equal(parse_mb2(), 0);
    assert_int_equal(bi->mmap_count, 2);
    assert_int_equal(mb2_parse(bi, 0, INFO, phys, &mem, &err), -EINVAL);
    assert_int_equal(bi->loader, BI_LOADER_MB2);
    assert_int_equal(bi->mmap_count, 0);
    assert_int_equal(bi->resv_count, 0);
    assert_null(bi->mmap_source);
    assert_string_equal(bi_loader_name(BI_LOADER_NONE), "none");
    assert_string_equal(bi_loader_name(BI_LOADER_PVH), "pvh");
}

/* ---- multiboot2: hostile header and walk ----------------------------------- */

static void test_mb2_bad_magic(void **state)
{
    (void)state;
    mb2_minimal();
    /* The multiboot1 magic: a loader that took the wrong header. */
    assert_fails(mb2_parse(bi, 0x2badb002, INFO, phys, &mem, &err), -EINVAL,
                 "multiboot2 magic is 0x2badb002, expected 0x36d76289");
}

static void test_mb2_misaligned_info(void **state)
{
    (void)state;
    assert_fails(mb2_parse(bi, MB2_BOOTLOADER_MAGIC, INFO + 4, phys, &mem, &err), -EFAULT,
                 "multiboot2 info at 0x101004 is not 8-byte aligned");
}

static void test_mb2_unreadable_info(void **state)
{
    (void)state;
    assert_fails(mb2_parse(bi, MB2_BOOTLOADER_MAGIC, 0x8000, phys, &mem, &err), -EFAULT,
                 "multiboot2 info header at 0x8000 (8 bytes) is not readable memory");
    /* The header is readable, the body the total size claims is not. */
    put32(MEM_END - 16, 0x100);
    assert_fails(mb2_parse(bi, MB2_BOOTLOADER_MAGIC, MEM_END - 16, phys, &mem, &err), -EFAULT,
                 "multiboot2 info at 0x17fff0 (256 bytes) is not readable memory");
    /* An address whose end wraps past 2^64 is never handed to the reader. */
    assert_fails(mb2_parse(bi, MB2_BOOTLOADER_MAGIC, 0xfffffffffffffff8ull, phys, &mem, &err), -EFAULT,
                 "multiboot2 info header at 0xfffffffffffffff8 (8 bytes) is not readable memory");
}

static void test_mb2_total_too_small(void **state)
{
    (void)state;
    mb2_minimal();
    put32(INFO, 8);
    assert_fails(parse_mb2(), -EINVAL,
                 "multiboot2 total size 8 is smaller than a header and an end tag");
    put32(INFO, 0);
    assert_fails(parse_mb2(), -EINVAL,
                 "multiboot2 total size 0 is smaller than a header and an end tag");
}

static void test_mb2_total_too_large(void **state)
{
    (void)state;
    mb2_minimal();
    put32(INFO, MB2_INFO_MAX + 1);
    assert_fails(parse_mb2(), -EINVAL,
                 "multiboot2 total size 1048577 is over the 1048576-byte limit");
    put32(INFO, 0xfffffff8u);
    assert_fails(parse_mb2(), -EINVAL,
                 "multiboot2 total size 4294967288 is over the 1048576-byte limit");
}

/* The total size claims more than the tags: the end tag comes early. */
static void test_mb2_total_larger_than_tags(void **state)
{
    (void)state;
    assert_int_equal(mb2_minimal(), 80);
    put32(INFO, 96);
    assert_fails(parse_mb2(), -EINVAL, "end tag at offset 72, but the total size says 96");
}

/* The total size claims less than the tags: no end tag inside it. */
static void test_mb2_total_smaller_than_tags(void **state)
{
    (void)state;
    mb2_minimal();
    put32(INFO, 72);
    assert_fails(parse_mb2(), -EINVAL, "no end tag within the total size of 72 bytes");
    /* Cutting into the map tag makes that tag run past the end. */
    put32(INFO, 40);
    assert_fails(parse_mb2(), -EINVAL,
                 "tag type 6 at offset 8 has size 64, past the end of the 40-byte info");
}

/* A last tag whose padding would reach past the total size. */
static void test_mb2_padding_past_total(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_str(&b, 1, "abcd");                     /* 13 bytes, padded to 16 */
    put32(INFO, 21);
    assert_fails(parse_mb2(), -EINVAL, "no end tag within the total size of 21 bytes");
}

static void test_mb2_tag_header_cut_off(void **state)
{
    (void)state;
    mb2_minimal();
    put32(INFO, 76);
    assert_fails(parse_mb2(), -EINVAL, "tag header at offset 72 is cut off by the total size 76");
}

static void test_mb2_tag_size_below_header(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    uint64_t t = mb2_str(&b, 1, "abc");
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    put32(t + 4, 4);
    assert_fails(parse_mb2(), -EINVAL, "tag type 1 at offset 8 has size 4, less than its 8-byte header");
    /* Size 0 would otherwise walk the same tag for ever. */
    put32(t + 4, 0);
    assert_fails(parse_mb2(), -EINVAL, "tag type 1 at offset 8 has size 0, less than its 8-byte header");
}

static void test_mb2_tag_past_end(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, two_ram, 2, 24);
    uint64_t t = mb2_str(&b, 1, "abc");
    uint32_t total = mb2_finish(&b);
    assert_int_equal(total, 96);
    put32(t + 4, 4096);
    assert_fails(parse_mb2(), -EINVAL,
                 "tag type 1 at offset 72 has size 4096, past the end of the 96-byte info");
    /* A size that would wrap a 32-bit offset sum. */
    put32(t + 4, 0xfffffff0u);
    assert_fails(parse_mb2(), -EINVAL,
                 "tag type 1 at offset 72 has size 4294967280, past the end of the 96-byte info");
}

static void test_mb2_end_tag_bad_size(void **state)
{
    (void)state;
    assert_int_equal(mb2_minimal(), 80);
    put32(INFO + 72 + 4, 16);
    put32(INFO, 88);
    assert_fails(parse_mb2(), -EINVAL, "end tag at offset 72 has size 16, expected 8");
}

/* ---- multiboot2: hostile memory maps --------------------------------------- */

static void test_mb2_no_mmap(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_str(&b, 1, "selftest");
    mb2_meminfo(&b, 639, 130048);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -ENOENT, "no memory map: neither tag 6 nor EFI tag 17 is present");
}

/* A map tag with a header and no entries is no memory map either. */
static void test_mb2_empty_mmap(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, NULL, 0, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -ENOENT, "memory map tag has no entries");

    memset(mem, FILL, MEM_SIZE);
    b = mb2_begin(INFO);
    mb2_efi(&b, NULL, 0, 48);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -ENOENT, "EFI memory map tag has no entries");
}

static void test_mb2_two_mmaps(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_mmap(&b, bios_map, BIOS_MAP_N, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "two memory map tags");

    const struct efi d[] = { { 7, 0x100000, 0x100 } };
    memset(mem, FILL, MEM_SIZE);
    b = mb2_begin(INFO);
    mb2_efi(&b, d, 1, 48);
    mb2_efi(&b, d, 1, 48);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "two EFI memory map tags");
}

static void test_mb2_mmap_too_short(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_tag(&b, 6, "\x18\x00\x00\x00", 4);      /* entry size, no version */
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "memory map tag is 12 bytes, less than its 16-byte header");
}

static void test_mb2_mmap_bad_entry_size(void **state)
{
    (void)state;
    static const uint32_t bad[] = { 0, 8, 16, 20, 28, 36 };
    char msg[128];
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(mem, FILL, MEM_SIZE);
        struct mb2 b = mb2_begin(INFO);
        /* Two entries' worth of bytes at the real stride, then a lying size. */
        uint64_t t = mb2_mmap(&b, two_ram, 2, 24);
        mb2_finish(&b);
        put32(t + 8, bad[i]);
        snprintf(msg, sizeof(msg), "memory map entry size %u is not a multiple of 8 of at least 24", bad[i]);
        assert_fails(parse_mb2(), -EINVAL, msg);
    }
}

static void test_mb2_mmap_size_not_whole_entries(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    uint64_t t = mb2_mmap(&b, bios_map, 3, 24);         /* 16 + 72 = 88 */
    mb2_finish(&b);
    /* 84 still pads to 88, so the walk goes on to the end tag as before. */
    put32(t + 4, 84);
    assert_fails(parse_mb2(), -EINVAL, "memory map tag size 84 is not 16 + n * 24");
    put32(t + 4, 88);
    put32(t + 8, 32);                                    /* 72 bytes of 32-byte entries */
    assert_fails(parse_mb2(), -EINVAL, "memory map tag size 88 is not 16 + n * 32");
}

static void test_mb2_mmap_too_many(void **state)
{
    static struct ent e[BI_MMAP_MAX + 1];
    (void)state;
    for (unsigned i = 0; i < BI_MMAP_MAX + 1; i++)
        e[i] = (struct ent){ (uint64_t)i << 21, 1 << 20, 1 };
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, e, BI_MMAP_MAX + 1, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -E2BIG, "memory map has 8193 entries, more than the 8192 kept");
}

static void test_mb2_efi_bad_descriptor_size(void **state)
{
    (void)state;
    const struct efi d[] = { { 7, 0x100000, 0x100 }, { 7, 0x400000, 0x100 } };
    static const uint32_t bad[] = { 0, 24, 32, 44, 36 };
    char msg[128];
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(mem, FILL, MEM_SIZE);
        struct mb2 b = mb2_begin(INFO);
        uint64_t t = mb2_efi(&b, d, 2, 48);
        mb2_finish(&b);
        put32(t + 8, bad[i]);
        snprintf(msg, sizeof(msg), "EFI descriptor size %u is not a multiple of 8 of at least 40", bad[i]);
        assert_fails(parse_mb2(), -EINVAL, msg);
    }

    memset(mem, FILL, MEM_SIZE);
    struct mb2 b = mb2_begin(INFO);
    uint64_t t = mb2_efi(&b, d, 2, 48);                 /* 16 + 96 = 112 */
    mb2_finish(&b);
    put32(t + 8, 40);                                    /* 96 is not n * 40 */
    assert_fails(parse_mb2(), -EINVAL, "EFI memory map tag size 112 is not 16 + n * 40");

    memset(mem, FILL, MEM_SIZE);
    b = mb2_begin(INFO);
    mb2_tag(&b, 17, "\x30\x00\x00\x00", 4);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "EFI memory map tag is 12 bytes, less than its 16-byte header");
}

static void test_mb2_efi_pages_overflow(void **state)
{
    (void)state;
    const struct efi d[] = {
        { 7, 0x100000, 0x100 },
        { 7, 0x1000000, (UINT64_MAX >> 12) + 1 },       /* 2^52 pages: 2^64 bytes */
    };
    struct mb2 b = mb2_begin(INFO);
    mb2_efi(&b, d, 2, 40);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "EFI descriptor 1 has 4503599627370496 pages, past 2^64 bytes");
}

static void test_mb2_efi_too_many(void **state)
{
    static struct efi d[BI_MMAP_MAX + 1];
    (void)state;
    for (unsigned i = 0; i < BI_MMAP_MAX + 1; i++)
        d[i] = (struct efi){ 7, (uint64_t)i << 21, 16 };
    struct mb2 b = mb2_begin(INFO);
    mb2_efi(&b, d, BI_MMAP_MAX + 1, 40);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -E2BIG, "EFI memory map has 8193 entries, more than the 8192 kept");
}

/* ---- multiboot2: hostile other tags ---------------------------------------- */

static void test_mb2_cmdline_unterminated(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_tag(&b, 1, "quiet", 5);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "multiboot2 command line is not NUL-terminated within its 5 bytes");

    memset(mem, FILL, MEM_SIZE);
    b = mb2_begin(INFO);
    mb2_tag(&b, 1, NULL, 0);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "multiboot2 command line is not NUL-terminated within its 0 bytes");
}

static void test_mb2_cmdline_too_long(void **state)
{
    static char line[BI_CMDLINE_MAX + 1];
    (void)state;
    memset(line, 'x', sizeof(line) - 1);
    line[sizeof(line) - 1] = '\0';
    struct mb2 b = mb2_begin(INFO);
    mb2_str(&b, 1, line);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "multiboot2 command line is 1024 bytes long; the limit is 1023");
}

static void test_mb2_module_end_before_start(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_module(&b, 0x2000, 0x1000, "backwards");
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "module ends at 0x1000, before its start 0x2000");
}

static void test_mb2_too_many_modules(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_mmap(&b, two_ram, 2, 24);
    for (unsigned i = 0; i <= BI_MODULES_MAX; i++)
        mb2_module(&b, 0x1000000 + i * 0x10000, 0x1000000 + i * 0x10000 + 0x100, "m");
    mb2_finish(&b);
    assert_fails(parse_mb2(), -E2BIG, "more than 16 modules");
}

static void test_mb2_module_malformed(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_tag(&b, 3, "\x00\x10\x00\x00\x00\x20\x00\x00", 8);     /* no string at all */
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "module tag is 16 bytes, too short for its fields");

    memset(mem, FILL, MEM_SIZE);
    b = mb2_begin(INFO);
    mb2_tag(&b, 3, "\x00\x10\x00\x00\x00\x20\x00\x00initrd", 14);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "module string is not NUL-terminated");
}

static void test_mb2_fb_too_short(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_fb(&b, 0xfd000000, 800, 600, 1, 21);    /* one byte short of the type field */
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "framebuffer tag is 29 bytes, too short for its fields");

    memset(mem, FILL, MEM_SIZE);
    b = mb2_begin(INFO);
    mb2_fb(&b, 0xfd000000, 800, 600, 1, 24);    /* RGB, but no colour fields */
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL,
                 "RGB framebuffer tag is 32 bytes, too short for its colour fields");

    /* An EGA text screen has no colour fields to miss. */
    memset(mem, FILL, MEM_SIZE);
    b = mb2_begin(INFO);
    mb2_fb(&b, 0xb8000, 80, 25, 2, 24);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_int_equal(parse_mb2(), 0);
    assert_true(bi->fb.present);
    assert_int_equal(bi->fb.type, 2);
    assert_int_equal(bi->fb.addr, 0xb8000);
    assert_int_equal(bi->fb.width, 80);
    assert_int_equal(bi->fb.height, 25);
    assert_int_equal(bi->fb.red_size, 0);
}

static void test_mb2_rsdp_too_short(void **state)
{
    uint8_t r[36];
    (void)state;
    make_rsdp(r, 36, 2, 0);
    struct mb2 b = mb2_begin(INFO);
    uint64_t t = mb2_tag(&b, 14, r, 16);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "ACPI RSDP tag 14 holds 16 bytes, expected 20");
    put32(t, 15);
    assert_fails(parse_mb2(), -EINVAL, "ACPI RSDP tag 15 holds 16 bytes, expected 36");
    put32(t + 4, 8 + 20);   /* a 1.0-sized RSDP in the 2.0 tag */
    assert_fails(parse_mb2(), -EINVAL, "ACPI RSDP tag 15 holds 20 bytes, expected 36");
}

static void test_mb2_meminfo_too_short(void **state)
{
    (void)state;
    struct mb2 b = mb2_begin(INFO);
    mb2_tag(&b, 4, "\x7f\x02\x00\x00", 4);
    mb2_mmap(&b, two_ram, 2, 24);
    mb2_finish(&b);
    assert_fails(parse_mb2(), -EINVAL, "basic meminfo tag is 12 bytes, expected 16");
}

/* ---- PVH builder ------------------------------------------------------------ */

struct pvh_mod {
    uint64_t paddr, size;
};

static void pvh_start_info(uint64_t si, uint32_t version, uint32_t nr_modules, uint64_t modlist,
                           uint64_t cmdline, uint64_t rsdp, uint64_t memmap, uint32_t entries)
{
    put32(si, PVH_START_MAGIC);
    put32(si + 4, version);
    put32(si + 8, 0);
    put32(si + 12, nr_modules);
    put64(si + 16, modlist);
    put64(si + 24, cmdline);
    put64(si + 32, rsdp);
    put64(si + 40, memmap);
    put32(si + 48, entries);
    put32(si + 52, 0);
}

static void pvh_memmap(uint64_t where, const struct ent *e, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        put64(where + 24 * i, e[i].addr);
        put64(where + 24 * i + 8, e[i].len);
        put32(where + 24 * i + 16, e[i].type);
        put32(where + 24 * i + 20, 0);
    }
}

static void pvh_modlist(uint64_t where, const struct pvh_mod *m, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        put64(where + 32 * i, m[i].paddr);
        put64(where + 32 * i + 8, m[i].size);
        put64(where + 32 * i + 16, 0);
        put64(where + 32 * i + 24, 0);
    }
}

static void put_str(uint64_t where, const char *s)
{
    memcpy(at(where), s, strlen(s) + 1);
}

/* What QEMU's PVH boot gives a 512 MiB guest. */
static const struct ent pvh_map[] = {
    { 0x0, 0x9fc00, 1 },
    { 0x9fc00, 0x400, 2 },
    { 0xf0000, 0x10000, 2 },
    { 0x100000, 0x1ff00000, 1 },
    { 0xfeffc000, 0x4000, 2 },
};
#define PVH_MAP_N (sizeof(pvh_map) / sizeof(pvh_map[0]))

static const struct pvh_mod pvh_mods[] = {
    { 0x1f000000, 0x1234 },
    { 0x1e000000, 0x800000 },
};

static uint8_t pvh_rsdp_image[36];

/* A full start info: memory map, command line, two modules, ACPI 2.0 RSDP. */
static void pvh_full(void)
{
    pvh_start_info(SI, 1, 2, MODLIST, CMDLINE, RSDP, MEMMAP, PVH_MAP_N);
    pvh_memmap(MEMMAP, pvh_map, PVH_MAP_N);
    put_str(CMDLINE, "console=ttyS0 selftest");
    pvh_modlist(MODLIST, pvh_mods, 2);
    make_rsdp(pvh_rsdp_image, 36, 2, 0x60);
    memcpy(at(RSDP), pvh_rsdp_image, 36);
}

static int parse_pvh(void)
{
    return pvh_parse(bi, SI, phys, &mem, &err);
}

/* ---- PVH: good ------------------------------------------------------------ */

static void test_pvh_full(void **state)
{
    (void)state;
    pvh_full();
    assert_int_equal(parse_pvh(), 0);
    assert_string_equal(err.msg, "");
    assert_int_equal(bi->loader, BI_LOADER_PVH);
    assert_string_equal(bi->loader_name, "PVH");
    assert_string_equal(bi->cmdline, "console=ttyS0 selftest");
    assert_map(pvh_map, PVH_MAP_N);
    assert_string_equal(bi->mmap_source, "PVH memory map");
    assert_false(bi->meminfo);
    assert_false(bi->fb.present);
    assert_int_equal(bi->rsdp_len, 36);
    assert_memory_equal(bi->rsdp, pvh_rsdp_image, 36);
    assert_int_equal(bi->rsdp_phys, RSDP);
    assert_int_equal(bi->module_count, 2);
    assert_int_equal(bi->modules[0].start, 0x1f000000);
    assert_int_equal(bi->modules[0].end, 0x1f001234);
    assert_string_equal(bi->modules[0].cmdline, "");
    assert_int_equal(bi->modules[1].start, 0x1e000000);
    assert_int_equal(bi->modules[1].end, 0x1e800000);
    assert_int_equal(bi->resv_count, 6);
    assert_resv(0, SI, SI + 56, "PVH start info");
    assert_resv(1, MEMMAP, MEMMAP + 24 * PVH_MAP_N, "PVH memory map");
    assert_resv(2, CMDLINE, CMDLINE + 23, "PVH command line");
    assert_resv(3, MODLIST, MODLIST + 64, "PVH module list");
    assert_resv(4, 0x1f000000, 0x1f001234, "PVH module");
    assert_resv(5, 0x1e000000, 0x1e800000, "PVH module");
}

/* Only the memory map is required; an ACPI 1.0 RSDP is 20 bytes. */
static void test_pvh_minimal_acpi1(void **state)
{
    uint8_t r[20];
    (void)state;
    pvh_start_info(SI, 1, 0, 0, 0, 0, MEMMAP, 1);
    pvh_memmap(MEMMAP, pvh_map + 3, 1);
    assert_int_equal(parse_pvh(), 0);
    assert_map(pvh_map + 3, 1);
    assert_string_equal(bi->cmdline, "");
    assert_int_equal(bi->module_count, 0);
    assert_int_equal(bi->rsdp_len, 0);
    assert_int_equal(bi->resv_count, 2);
    assert_resv(0, SI, SI + 56, "PVH start info");
    assert_resv(1, MEMMAP, MEMMAP + 24, "PVH memory map");

    /* Revision 0: only the first 20 bytes are read, even at the end of memory. */
    make_rsdp(r, 20, 0, 0x33);
    memcpy(at(MEM_END - 20), r, 20);
    put64(SI + 32, MEM_END - 20);
    assert_int_equal(parse_pvh(), 0);
    assert_int_equal(bi->rsdp_len, 20);
    assert_memory_equal(bi->rsdp, r, 20);
    assert_int_equal(bi->rsdp_phys, MEM_END - 20);
}

/* A later version's start info is read as version 1. */
static void test_pvh_newer_version(void **state)
{
    (void)state;
    pvh_full();
    put32(SI + 4, 7);
    assert_int_equal(parse_pvh(), 0);
    assert_int_equal(bi->mmap_count, PVH_MAP_N);
}

static void test_pvh_memmap_at_limit(void **state)
{
    static struct ent e[BI_MMAP_MAX];
    (void)state;
    for (unsigned i = 0; i < BI_MMAP_MAX; i++)
        e[i] = (struct ent){ (uint64_t)i << 30, 1 << 29, 1 + i % 2 };
    pvh_start_info(SI, 1, 0, 0, 0, 0, MEMMAP, BI_MMAP_MAX);
    pvh_memmap(MEMMAP, e, BI_MMAP_MAX);
    assert_int_equal(parse_pvh(), 0);
    assert_map(e, BI_MMAP_MAX);
}

static void test_pvh_module_limit(void **state)
{
    struct pvh_mod m[BI_MODULES_MAX];
    (void)state;
    for (unsigned i = 0; i < BI_MODULES_MAX; i++)
        m[i] = (struct pvh_mod){ 0x10000000 + i * 0x100000, i * 0x1000 };
    pvh_full();
    put32(SI + 12, BI_MODULES_MAX);
    pvh_modlist(MODLIST, m, BI_MODULES_MAX);
    assert_int_equal(parse_pvh(), 0);
    assert_int_equal(bi->module_count, BI_MODULES_MAX);
    /* Module 0 is empty: recorded, but nothing to reserve. */
    assert_int_equal(bi->modules[0].start, bi->modules[0].end);
    assert_int_equal(bi->resv_count, 4 + BI_MODULES_MAX - 1);
    assert_resv(4, 0x10100000, 0x10101000, "PVH module");
    assert_resv(4 + BI_MODULES_MAX - 2, 0x10f00000, 0x10f0f000, "PVH module");
}

/*
 * The PVH ABI does not promise 8-byte aligned tables; a table at an odd
 * address must be read without a misaligned access.
 */
static void test_pvh_unaligned_tables(void **state)
{
    (void)state;
    pvh_full();
    pvh_memmap(MEMMAP + 3, pvh_map, PVH_MAP_N);
    put64(SI + 40, MEMMAP + 3);
    pvh_modlist(MODLIST + 5, pvh_mods, 2);
    put64(SI + 16, MODLIST + 5);
    assert_int_equal(parse_pvh(), 0);
    assert_map(pvh_map, PVH_MAP_N);
    assert_int_equal(bi->module_count, 2);
    assert_int_equal(bi->modules[1].end, 0x1e800000);
    assert_resv(1, MEMMAP + 3, MEMMAP + 3 + 24 * PVH_MAP_N, "PVH memory map");
    assert_resv(3, MODLIST + 5, MODLIST + 5 + 64, "PVH module list");
}

/*
 * A command line close to the end of readable memory is still whole: the
 * parser must not give up on bytes it could have read.
 */
static void test_pvh_cmdline_at_end_of_memory(void **state)
{
    (void)state;
    static const char *const lines[] = { "x", "abcd", "console=ttyS0 selftest runs=3", "" };
    for (unsigned i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        uint64_t where = MEM_END - strlen(lines[i]) - 1;
        pvh_full();
        put_str(where, lines[i]);
        put64(SI + 24, where);
        assert_int_equal(parse_pvh(), 0);
        assert_string_equal(bi->cmdline, lines[i]);
        assert_resv(2, where, MEM_END, "PVH command line");
    }
}

/* ---- PVH: hostile ------------------------------------------------------------ */

static void test_pvh_bad_magic(void **state)
{
    (void)state;
    pvh_full();
    put32(SI, MB2_BOOTLOADER_MAGIC);
    assert_fails(parse_pvh(), -EINVAL, "PVH start info magic is 0x36d76289, expected 0x336ec578");
}

static void test_pvh_version_0(void **state)
{
    (void)state;
    pvh_full();
    put32(SI + 4, 0);
    assert_fails(parse_pvh(), -EPROTONOSUPPORT, "PVH start info version 0 has no memory map (need 1)");
    /* A version 0 info is only 40 bytes: one at the end of memory is still read. */
    memcpy(at(MEM_END - 40), at(SI), 40);
    assert_fails(pvh_parse(bi, MEM_END - 40, phys, &mem, &err), -EPROTONOSUPPORT,
                 "PVH start info version 0 has no memory map (need 1)");
}

static void test_pvh_start_info_unreadable(void **state)
{
    (void)state;
    assert_fails(pvh_parse(bi, 0x5000, phys, &mem, &err), -EFAULT,
                 "PVH start info at 0x5000 (40 bytes) is not readable memory");
    /* A version 1 info cut off after its version 0 fields. */
    pvh_full();
    memcpy(at(MEM_END - 40), at(SI), 40);
    assert_fails(pvh_parse(bi, MEM_END - 40, phys, &mem, &err), -EFAULT,
                 "PVH start info at 0x17ffd8 (56 bytes) is not readable memory");
}

static void test_pvh_no_memmap(void **state)
{
    (void)state;
    pvh_full();
    put32(SI + 48, 0);
    assert_fails(parse_pvh(), -ENOENT, "PVH start info has no memory map (0 entries at 0x100200)");
    put32(SI + 48, 5);
    put64(SI + 40, 0);
    assert_fails(parse_pvh(), -ENOENT, "PVH start info has no memory map (5 entries at 0x0)");
}

static void test_pvh_memmap_too_many(void **state)
{
    (void)state;
    pvh_full();
    put32(SI + 48, BI_MMAP_MAX + 1);
    assert_fails(parse_pvh(), -E2BIG, "PVH memory map has 8193 entries, more than the 8192 kept");
    put32(SI + 48, 0xffffffffu);
    assert_fails(parse_pvh(), -E2BIG, "PVH memory map has 4294967295 entries, more than the 8192 kept");
}

static void test_pvh_memmap_unreadable(void **state)
{
    (void)state;
    pvh_full();
    /* The entry count runs the table off the end of memory. */
    put64(SI + 40, MEM_END - 24 * 4);
    assert_fails(parse_pvh(), -EFAULT,
                 "PVH memory map at 0x17ffa0 (120 bytes) is not readable memory");
    put64(SI + 40, 0xfffffffffffffff0ull);
    assert_fails(parse_pvh(), -EFAULT,
                 "PVH memory map at 0xfffffffffffffff0 (120 bytes) is not readable memory");
}

static void test_pvh_cmdline_unreadable(void **state)
{
    (void)state;
    pvh_full();
    put64(SI + 24, 0x7000);
    assert_fails(parse_pvh(), -EFAULT, "PVH command line at 0x7000 is not readable memory");
    put64(SI + 24, MEM_END);
    assert_fails(parse_pvh(), -EFAULT, "PVH command line at 0x180000 is not readable memory");
}

static void test_pvh_cmdline_unterminated(void **state)
{
    (void)state;
    pvh_full();
    memset(at(CMDLINE), 'a', BI_CMDLINE_MAX);
    assert_fails(parse_pvh(), -EINVAL, "PVH command line is not NUL-terminated within 1024 bytes");
    /* Unterminated up to the end of memory: every readable byte was looked at. */
    memset(at(MEM_END - 10), 'a', 10);
    put64(SI + 24, MEM_END - 10);
    assert_fails(parse_pvh(), -EINVAL, "PVH command line is not NUL-terminated within 10 bytes");
}

static void test_pvh_too_many_modules(void **state)
{
    (void)state;
    pvh_full();
    put32(SI + 12, BI_MODULES_MAX + 1);
    assert_fails(parse_pvh(), -E2BIG, "PVH start info lists 17 modules, more than the 16 kept");
    put32(SI + 12, 0x80000000u);
    assert_fails(parse_pvh(), -E2BIG,
                 "PVH start info lists 2147483648 modules, more than the 16 kept");
}

static void test_pvh_modlist_unreadable(void **state)
{
    (void)state;
    pvh_full();
    put64(SI + 16, 0);
    assert_fails(parse_pvh(), -EFAULT, "PVH module list at 0x0 (64 bytes) is not readable memory");
    put64(SI + 16, MEM_END - 32);
    assert_fails(parse_pvh(), -EFAULT, "PVH module list at 0x17ffe0 (64 bytes) is not readable memory");
}

static void test_pvh_module_wraps(void **state)
{
    (void)state;
    pvh_full();
    put64(MODLIST + 32, 0xfffffffffffff000ull);
    put64(MODLIST + 32 + 8, 0x1001);
    assert_fails(parse_pvh(), -EFAULT, "PVH module 1 wraps past 2^64");
    /* Ending exactly at 2^64 is refused too: [start, end) could not hold it. */
    put64(MODLIST + 32 + 8, 0x1000);
    assert_fails(parse_pvh(), -EFAULT, "PVH module 1 wraps past 2^64");
    put64(MODLIST + 32 + 8, UINT64_MAX);
    assert_fails(parse_pvh(), -EFAULT, "PVH module 1 wraps past 2^64");
}

static void test_pvh_rsdp_unreadable(void **state)
{
    (void)state;
    pvh_full();
    put64(SI + 32, 0xe0000);
    assert_fails(parse_pvh(), -EFAULT, "ACPI RSDP at 0xe0000 (20 bytes) is not readable memory");
    /* Revision 2 says 36 bytes, but memory ends after 20. */
    memcpy(at(MEM_END - 20), pvh_rsdp_image, 20);
    put64(SI + 32, MEM_END - 20);
    assert_fails(parse_pvh(), -EFAULT, "ACPI RSDP at 0x17ffec (36 bytes) is not readable memory");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_mb2_grub_bios),
        T(test_mb2_uefi_efi_map_only),
        T(test_mb2_both_maps_bios_wins),
        T(test_mb2_mmap_wide_entries),
        T(test_mb2_mmap_at_limit),
        T(test_mb2_both_rsdp_tags),
        T(test_mb2_modules),
        T(test_mb2_module_limit),
        T(test_mb2_loader_name_cut),
        T(test_mb2_cmdline_at_limit),
        T(test_mb2_info_at_end_of_memory),
        T(test_parse_resets),
        T(test_mb2_bad_magic),
        T(test_mb2_misaligned_info),
        T(test_mb2_unreadable_info),
        T(test_mb2_total_too_small),
        T(test_mb2_total_too_large),
        T(test_mb2_total_larger_than_tags),
        T(test_mb2_total_smaller_than_tags),
        T(test_mb2_padding_past_total),
        T(test_mb2_tag_header_cut_off),
        T(test_mb2_tag_size_below_header),
        T(test_mb2_tag_past_end),
        T(test_mb2_end_tag_bad_size),
        T(test_mb2_no_mmap),
        T(test_mb2_empty_mmap),
        T(test_mb2_two_mmaps),
        T(test_mb2_mmap_too_short),
        T(test_mb2_mmap_bad_entry_size),
        T(test_mb2_mmap_size_not_whole_entries),
        T(test_mb2_mmap_too_many),
        T(test_mb2_efi_bad_descriptor_size),
        T(test_mb2_efi_pages_overflow),
        T(test_mb2_efi_too_many),
        T(test_mb2_cmdline_unterminated),
        T(test_mb2_cmdline_too_long),
        T(test_mb2_module_end_before_start),
        T(test_mb2_too_many_modules),
        T(test_mb2_module_malformed),
        T(test_mb2_fb_too_short),
        T(test_mb2_rsdp_too_short),
        T(test_mb2_meminfo_too_short),
        T(test_pvh_full),
        T(test_pvh_minimal_acpi1),
        T(test_pvh_newer_version),
        T(test_pvh_memmap_at_limit),
        T(test_pvh_module_limit),
        T(test_pvh_unaligned_tables),
        T(test_pvh_cmdline_at_end_of_memory),
        T(test_pvh_bad_magic),
        T(test_pvh_version_0),
        T(test_pvh_start_info_unreadable),
        T(test_pvh_no_memmap),
        T(test_pvh_memmap_too_many),
        T(test_pvh_memmap_unreadable),
        T(test_pvh_cmdline_unreadable),
        T(test_pvh_cmdline_unterminated),
        T(test_pvh_too_many_modules),
        T(test_pvh_modlist_unreadable),
        T(test_pvh_module_wraps),
        T(test_pvh_rsdp_unreadable),
    };
#undef T
    return cmocka_run_group_tests_name("bootinfo", tests, NULL, NULL);
}
