// SPDX-License-Identifier: MIT
// Multiboot2 and PVH boot information, parsed into struct bootinfo. Every
// length and pointer the loader gives is checked before use; any problem is
// a negative return and a message that names it.
#include "kernel/bootinfo.h"

#include <stdarg.h>

#include "kernel/compiler.h"
#include "kernel/libc.h"

/* Multiboot2 info tags (multiboot2 specification, section 3.6). */
enum {
    MB2_TAG_END = 0,
    MB2_TAG_CMDLINE = 1,
    MB2_TAG_LOADER = 2,
    MB2_TAG_MODULE = 3,
    MB2_TAG_MEMINFO = 4,
    MB2_TAG_MMAP = 6,
    MB2_TAG_FB = 8,
    MB2_TAG_ACPI_OLD = 14,
    MB2_TAG_ACPI_NEW = 15,
    MB2_TAG_EFI_MMAP = 17,
};

struct mb2_tag {
    uint32_t type;
    uint32_t size;
};

struct mb2_mmap_entry {
    uint64_t addr;
    uint64_t len;
    uint32_t type;
    uint32_t reserved;
};

struct __packed mb2_fb {
    uint64_t addr;
    uint32_t pitch, width, height;
    uint8_t bpp, type;
    uint16_t reserved;      /* a u16 in GRUB, whatever older texts say */
    uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct efi_mem_desc {
    uint32_t type;
    uint32_t pad;
    uint64_t phys_start;
    uint64_t virt_start;
    uint64_t num_pages;
    uint64_t attribute;
};

/* PVH: struct hvm_start_info and its tables (Xen's public/arch-x86/hvm/start_info.h). */
struct pvh_start_info {
    uint32_t magic;
    uint32_t version;
    uint32_t flags;
    uint32_t nr_modules;
    uint64_t modlist_paddr;
    uint64_t cmdline_paddr;
    uint64_t rsdp_paddr;
    uint64_t memmap_paddr;      /* version 1 and later */
    uint32_t memmap_entries;
    uint32_t reserved;
};

struct pvh_module {
    uint64_t paddr;
    uint64_t size;
    uint64_t cmdline_paddr;
    uint64_t reserved;
};

struct pvh_memmap_entry {
    uint64_t addr;
    uint64_t size;
    uint32_t type;
    uint32_t reserved;
};

_Static_assert(sizeof(struct mb2_mmap_entry) == 24, "multiboot2 mmap entry");
_Static_assert(sizeof(struct mb2_fb) == 30, "multiboot2 framebuffer tag body");
_Static_assert(sizeof(struct efi_mem_desc) == 40, "EFI memory descriptor");
_Static_assert(sizeof(struct pvh_start_info) == 56, "hvm_start_info v1");
_Static_assert(sizeof(struct pvh_module) == 32, "hvm_modlist_entry");
_Static_assert(sizeof(struct pvh_memmap_entry) == 24, "hvm_memmap_table_entry");

#define PVH_START_INFO_V0_SIZE 40

__printf(3, 4)
static int fail(struct bootinfo *bi, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(bi->error, sizeof(bi->error), fmt, ap);
    va_end(ap);
    return err;
}

static void reset(struct bootinfo *bi, enum bi_loader loader)
{
    memset(bi, 0, sizeof(*bi));
    bi->loader = loader;
}

static int add_resv(struct bootinfo *bi, uint64_t start, uint64_t len, const char *what)
{
    if (!len)
        return BI_OK;
    if (bi->resv_count == BI_RESV_MAX)
        return fail(bi, BI_ETOOMANY, "more than %u loader ranges to reserve", BI_RESV_MAX);
    bi->resv[bi->resv_count++] = (struct bi_range){ start, start + len, what };
    return BI_OK;
}

/* Reads the whole object or reports where it should have been. */
static const void *need(struct bootinfo *bi, bi_phys_fn phys, void *ctx,
                        uint64_t paddr, uint64_t len, const char *what, int *err)
{
    const void *p = NULL;

    if (paddr + len >= paddr)
        p = phys(paddr, len, ctx);
    if (!p)
        *err = fail(bi, BI_EBADPTR, "%s at 0x%llx (%llu bytes) is not readable memory",
                    what, (unsigned long long)paddr, (unsigned long long)len);
    return p;
}

/* Copies a string of at most max - 1 bytes that must end within avail bytes. */
static int copy_string(struct bootinfo *bi, char *dst, size_t max, const char *src,
                       size_t avail, const char *what)
{
    size_t len = strnlen(src, avail);

    if (len == avail)
        return fail(bi, BI_ETRUNC, "%s is not NUL-terminated within its %zu bytes", what, avail);
    if (len >= max)
        return fail(bi, BI_ETRUNC, "%s is %zu bytes long; the limit is %zu", what, len, max - 1);
    memcpy(dst, src, len + 1);
    return BI_OK;
}

static int add_mmap_entry(struct bootinfo *bi, uint64_t addr, uint64_t len, uint32_t type)
{
    if (bi->mmap_count == BI_MMAP_MAX)
        return fail(bi, BI_ETOOMANY, "memory map has more than %u entries", BI_MMAP_MAX);
    bi->mmap[bi->mmap_count++] = (struct bi_mmap_entry){ addr, len, type };
    return BI_OK;
}

/* EFI memory types after ExitBootServices, mapped to e820 numbering. */
static uint32_t efi_to_e820(uint32_t efi_type)
{
    switch (efi_type) {
    case 1: case 2:     /* loader code and data: ours to reuse */
    case 3: case 4:     /* boot services code and data */
    case 7:             /* conventional */
        return 1;
    case 9:             /* ACPI reclaim */
        return 3;
    case 10:            /* ACPI NVS */
        return 4;
    case 8:             /* unusable */
        return 5;
    default:            /* runtime services, MMIO, reserved, persistent... */
        return 2;
    }
}

static int mb2_mmap(struct bootinfo *bi, const uint8_t *body, uint32_t size)
{
    if (size < 16)
        return fail(bi, BI_EMMAP, "memory map tag is %u bytes, less than its 16-byte header", size);
    uint32_t esize, evers;
    memcpy(&esize, body, 4);
    memcpy(&evers, body + 4, 4);
    if (esize < sizeof(struct mb2_mmap_entry) || esize % 8)
        return fail(bi, BI_EMMAP, "memory map entry size %u is not a multiple of 8 of at least 24", esize);
    if ((size - 16) % esize)
        return fail(bi, BI_EMMAP, "memory map tag size %u is not 16 + n * %u", size, esize);
    uint32_t n = (size - 16) / esize;
    if (n == 0)
        return fail(bi, BI_ENOMMAP, "memory map tag has no entries");
    if (n > BI_MMAP_MAX)
        return fail(bi, BI_ETOOMANY, "memory map has %u entries, more than the %u kept", n, BI_MMAP_MAX);
    for (uint32_t i = 0; i < n; i++) {
        struct mb2_mmap_entry e;
        memcpy(&e, body + 8 + (size_t)i * esize, sizeof(e));
        add_mmap_entry(bi, e.addr, e.len, e.type);
    }
    bi->mmap_source = "multiboot2 memory map";
    return BI_OK;
}

static int mb2_efi_mmap(struct bootinfo *bi, const uint8_t *body, uint32_t size)
{
    if (size < 16)
        return fail(bi, BI_EMMAP, "EFI memory map tag is %u bytes, less than its 16-byte header", size);
    uint32_t dsize;
    memcpy(&dsize, body, 4);
    if (dsize < sizeof(struct efi_mem_desc) || dsize % 8)
        return fail(bi, BI_EMMAP, "EFI descriptor size %u is not a multiple of 8 of at least 40", dsize);
    if ((size - 16) % dsize)
        return fail(bi, BI_EMMAP, "EFI memory map tag size %u is not 16 + n * %u", size, dsize);
    uint32_t n = (size - 16) / dsize;
    if (n == 0)
        return fail(bi, BI_ENOMMAP, "EFI memory map tag has no entries");
    if (n > BI_MMAP_MAX)
        return fail(bi, BI_ETOOMANY, "EFI memory map has %u entries, more than the %u kept", n, BI_MMAP_MAX);
    for (uint32_t i = 0; i < n; i++) {
        struct efi_mem_desc d;
        memcpy(&d, body + 8 + (size_t)i * dsize, sizeof(d));
        if (d.num_pages > (UINT64_MAX >> 12))
            return fail(bi, BI_EMMAP, "EFI descriptor %u has %llu pages, past 2^64 bytes",
                        i, (unsigned long long)d.num_pages);
        add_mmap_entry(bi, d.phys_start, d.num_pages << 12, efi_to_e820(d.type));
    }
    bi->mmap_source = "multiboot2 EFI memory map";
    return BI_OK;
}

static int mb2_module(struct bootinfo *bi, const uint8_t *body, uint32_t size)
{
    if (size < 8 + 8 + 1)
        return fail(bi, BI_ETRUNC, "module tag is %u bytes, too short for its fields", size);
    if (bi->module_count == BI_MODULES_MAX)
        return fail(bi, BI_ETOOMANY, "more than %u modules", BI_MODULES_MAX);
    uint32_t start, end;
    memcpy(&start, body, 4);
    memcpy(&end, body + 4, 4);
    if (end < start)
        return fail(bi, BI_ETRUNC, "module ends at 0x%x, before its start 0x%x", end, start);
    struct bi_module *m = &bi->modules[bi->module_count++];
    m->start = start;
    m->end = end;
    size_t avail = size - 16;
    size_t len = strnlen((const char *)body + 8, avail);
    if (len == avail)
        return fail(bi, BI_ETRUNC, "module string is not NUL-terminated");
    /* Module names are labels only: keep what fits. */
    size_t keep = MIN(len, sizeof(m->cmdline) - 1);
    memcpy(m->cmdline, body + 8, keep);
    m->cmdline[keep] = '\0';
    return add_resv(bi, start, end - start, "multiboot2 module");
}

static int mb2_tag(struct bootinfo *bi, const struct mb2_tag *tag, bool *seen_mmap, bool *seen_efi)
{
    const uint8_t *body = (const uint8_t *)(tag + 1);
    uint32_t size = tag->size;
    uint32_t blen = size - 8;

    switch (tag->type) {
    case MB2_TAG_CMDLINE:
        return copy_string(bi, bi->cmdline, sizeof(bi->cmdline), (const char *)body, blen,
                           "multiboot2 command line");
    case MB2_TAG_LOADER:
        if (copy_string(bi, bi->loader_name, sizeof(bi->loader_name), (const char *)body, blen,
                        "multiboot2 loader name") < 0) {
            /* An overlong name is only a label: truncate rather than fail. */
            size_t keep = MIN(strnlen((const char *)body, blen), sizeof(bi->loader_name) - 1);
            memcpy(bi->loader_name, body, keep);
            bi->loader_name[keep] = '\0';
            bi->error[0] = '\0';
        }
        return BI_OK;
    case MB2_TAG_MODULE:
        return mb2_module(bi, body, size);
    case MB2_TAG_MEMINFO:
        if (size < 16)
            return fail(bi, BI_ETRUNC, "basic meminfo tag is %u bytes, expected 16", size);
        memcpy(&bi->mem_lower_kib, body, 4);
        memcpy(&bi->mem_upper_kib, body + 4, 4);
        bi->meminfo = true;
        return BI_OK;
    case MB2_TAG_MMAP:
        if (*seen_mmap)
            return fail(bi, BI_EDUP, "two memory map tags");
        *seen_mmap = true;
        return BI_OK;       /* parsed after the walk, see mb2_parse() */
    case MB2_TAG_EFI_MMAP:
        if (*seen_efi)
            return fail(bi, BI_EDUP, "two EFI memory map tags");
        *seen_efi = true;
        return BI_OK;
    case MB2_TAG_FB: {
        struct mb2_fb fb;
        if (size < 8 + 22)
            return fail(bi, BI_ETRUNC, "framebuffer tag is %u bytes, too short for its fields", size);
        memset(&fb, 0, sizeof(fb));
        memcpy(&fb, body, MIN((size_t)blen, sizeof(fb)));
        if (fb.type == 1 && blen < sizeof(fb))
            return fail(bi, BI_ETRUNC, "RGB framebuffer tag is %u bytes, too short for its colour fields", size);
        bi->fb = (struct bootinfo_fb){
            .present = true, .addr = fb.addr, .pitch = fb.pitch, .width = fb.width,
            .height = fb.height, .bpp = fb.bpp, .type = fb.type,
            .red_pos = fb.red_pos, .red_size = fb.red_size,
            .green_pos = fb.green_pos, .green_size = fb.green_size,
            .blue_pos = fb.blue_pos, .blue_size = fb.blue_size,
        };
        return BI_OK;
    }
    case MB2_TAG_ACPI_OLD:
    case MB2_TAG_ACPI_NEW: {
        uint32_t want = tag->type == MB2_TAG_ACPI_OLD ? 20 : 36;
        if (blen < want)
            return fail(bi, BI_ETRUNC, "ACPI RSDP tag %u holds %u bytes, expected %u",
                        tag->type, blen, want);
        /* Prefer the ACPI 2.0 RSDP when both are given. */
        if (want >= bi->rsdp_len) {
            memcpy(bi->rsdp, body, want);
            bi->rsdp_len = want;
        }
        return BI_OK;
    }
    default:
        return BI_OK;       /* tags we did not ask for are skipped */
    }
}

int mb2_parse(struct bootinfo *bi, uint32_t magic, uint64_t info_paddr,
              bi_phys_fn phys, void *ctx)
{
    int err = BI_OK;

    reset(bi, BI_LOADER_MB2);
    if (magic != MB2_BOOTLOADER_MAGIC)
        return fail(bi, BI_EMAGIC, "multiboot2 magic is 0x%08x, expected 0x%08x",
                    magic, MB2_BOOTLOADER_MAGIC);
    if (info_paddr % 8)
        return fail(bi, BI_EBADPTR, "multiboot2 info at 0x%llx is not 8-byte aligned",
                    (unsigned long long)info_paddr);
    const uint32_t *hdr = need(bi, phys, ctx, info_paddr, 8, "multiboot2 info header", &err);
    if (!hdr)
        return err;
    uint32_t total = hdr[0];
    if (total < 16)
        return fail(bi, BI_ETOTAL, "multiboot2 total size %u is smaller than a header and an end tag", total);
    if (total > MB2_INFO_MAX)
        return fail(bi, BI_ETOTAL, "multiboot2 total size %u is over the %u-byte limit", total, MB2_INFO_MAX);
    const uint8_t *info = need(bi, phys, ctx, info_paddr, total, "multiboot2 info", &err);
    if (!info)
        return err;

    const struct mb2_tag *mmap_tag = NULL, *efi_tag = NULL;
    bool seen_mmap = false, seen_efi = false, ended = false;
    uint32_t off = 8;

    while (off < total) {
        if (total - off < 8)
            return fail(bi, BI_ETRUNC, "tag header at offset %u is cut off by the total size %u", off, total);
        const struct mb2_tag *tag = (const struct mb2_tag *)(info + off);
        if (tag->size < 8)
            return fail(bi, BI_ETRUNC, "tag type %u at offset %u has size %u, less than its 8-byte header",
                        tag->type, off, tag->size);
        if (tag->size > total - off)
            return fail(bi, BI_EOVERSIZE, "tag type %u at offset %u has size %u, past the end of the %u-byte info",
                        tag->type, off, tag->size, total);
        if (tag->type == MB2_TAG_END) {
            if (tag->size != 8)
                return fail(bi, BI_ETRUNC, "end tag at offset %u has size %u, expected 8", off, tag->size);
            if (off + 8 != total)
                return fail(bi, BI_ETOTAL, "end tag at offset %u, but the total size says %u", off, total);
            ended = true;
            break;
        }
        bool had_mmap = seen_mmap, had_efi = seen_efi;
        err = mb2_tag(bi, tag, &seen_mmap, &seen_efi);
        if (err)
            return err;
        if (seen_mmap && !had_mmap)
            mmap_tag = tag;
        if (seen_efi && !had_efi)
            efi_tag = tag;
        off += ALIGN_UP(tag->size, 8u);
    }
    if (!ended)
        return fail(bi, BI_ETOTAL, "no end tag within the total size of %u bytes", total);

    /* The BIOS-style map is what GRUB always gives; the EFI map only fills in. */
    if (mmap_tag)
        err = mb2_mmap(bi, (const uint8_t *)(mmap_tag + 1), mmap_tag->size);
    else if (efi_tag)
        err = mb2_efi_mmap(bi, (const uint8_t *)(efi_tag + 1), efi_tag->size);
    else
        return fail(bi, BI_ENOMMAP, "no memory map: neither tag 6 nor EFI tag 17 is present");
    if (err)
        return err;
    return add_resv(bi, info_paddr, total, "multiboot2 info");
}

int pvh_parse(struct bootinfo *bi, uint64_t paddr, bi_phys_fn phys, void *ctx)
{
    int err = BI_OK;
    struct pvh_start_info si;

    reset(bi, BI_LOADER_PVH);
    memcpy(bi->loader_name, "PVH", 4);
    const struct pvh_start_info *p = need(bi, phys, ctx, paddr, PVH_START_INFO_V0_SIZE,
                                          "PVH start info", &err);
    if (!p)
        return err;
    memset(&si, 0, sizeof(si));
    memcpy(&si, p, PVH_START_INFO_V0_SIZE);
    if (si.magic != PVH_START_MAGIC)
        return fail(bi, BI_EMAGIC, "PVH start info magic is 0x%08x, expected 0x%08x",
                    si.magic, PVH_START_MAGIC);
    if (si.version < 1)
        return fail(bi, BI_EVERSION, "PVH start info version %u has no memory map (need 1)", si.version);
    p = need(bi, phys, ctx, paddr, sizeof(si), "PVH start info", &err);
    if (!p)
        return err;
    memcpy(&si, p, sizeof(si));
    if ((err = add_resv(bi, paddr, sizeof(si), "PVH start info")))
        return err;

    if (si.memmap_entries == 0 || si.memmap_paddr == 0)
        return fail(bi, BI_ENOMMAP, "PVH start info has no memory map (%u entries at 0x%llx)",
                    si.memmap_entries, (unsigned long long)si.memmap_paddr);
    if (si.memmap_entries > BI_MMAP_MAX)
        return fail(bi, BI_ETOOMANY, "PVH memory map has %u entries, more than the %u kept",
                    si.memmap_entries, BI_MMAP_MAX);
    uint64_t mlen = (uint64_t)si.memmap_entries * sizeof(struct pvh_memmap_entry);
    /* The tables need not be 8-byte aligned: copy each entry out. */
    const uint8_t *mm = need(bi, phys, ctx, si.memmap_paddr, mlen, "PVH memory map", &err);
    if (!mm)
        return err;
    for (uint32_t i = 0; i < si.memmap_entries; i++) {
        struct pvh_memmap_entry e;
        memcpy(&e, mm + (size_t)i * sizeof(e), sizeof(e));
        add_mmap_entry(bi, e.addr, e.size, e.type);
    }
    bi->mmap_source = "PVH memory map";
    if ((err = add_resv(bi, si.memmap_paddr, mlen, "PVH memory map")))
        return err;

    if (si.cmdline_paddr) {
        /*
         * The string's length is unknown: read what the limit allows or, near
         * the end of readable memory, the longest readable prefix, found by
         * bisection (a shorter read of a readable range is readable too).
         */
        uint64_t avail = BI_CMDLINE_MAX;
        if (!phys(si.cmdline_paddr, avail, ctx)) {
            uint64_t lo = 0, hi = BI_CMDLINE_MAX;   /* lo bytes readable, hi not */
            while (hi - lo > 1) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (phys(si.cmdline_paddr, mid, ctx))
                    lo = mid;
                else
                    hi = mid;
            }
            avail = lo;
        }
        const char *s = avail ? phys(si.cmdline_paddr, avail, ctx) : NULL;
        if (!s)
            return fail(bi, BI_EBADPTR, "PVH command line at 0x%llx is not readable memory",
                        (unsigned long long)si.cmdline_paddr);
        size_t len = strnlen(s, avail);
        if (len == avail)
            return fail(bi, BI_ETRUNC, "PVH command line is not NUL-terminated within %llu bytes",
                        (unsigned long long)avail);
        memcpy(bi->cmdline, s, len + 1);
        if ((err = add_resv(bi, si.cmdline_paddr, len + 1, "PVH command line")))
            return err;
    }

    if (si.nr_modules > BI_MODULES_MAX)
        return fail(bi, BI_ETOOMANY, "PVH start info lists %u modules, more than the %u kept",
                    si.nr_modules, BI_MODULES_MAX);
    if (si.nr_modules) {
        uint64_t len = (uint64_t)si.nr_modules * sizeof(struct pvh_module);
        const uint8_t *mods = need(bi, phys, ctx, si.modlist_paddr, len, "PVH module list", &err);
        if (!mods)
            return err;
        if ((err = add_resv(bi, si.modlist_paddr, len, "PVH module list")))
            return err;
        for (uint32_t i = 0; i < si.nr_modules; i++) {
            struct pvh_module m;
            memcpy(&m, mods + (size_t)i * sizeof(m), sizeof(m));
            if (m.paddr + m.size < m.paddr)
                return fail(bi, BI_EBADPTR, "PVH module %u wraps past 2^64", i);
            bi->modules[i] = (struct bi_module){ m.paddr, m.paddr + m.size, "" };
            if ((err = add_resv(bi, m.paddr, m.size, "PVH module")))
                return err;
        }
        bi->module_count = si.nr_modules;
    }

    if (si.rsdp_paddr) {
        const uint8_t *r = need(bi, phys, ctx, si.rsdp_paddr, 20, "ACPI RSDP", &err);
        if (!r)
            return err;
        uint32_t len = r[15] >= 2 ? 36 : 20;   /* revision byte */
        if (len == 36 && !(r = need(bi, phys, ctx, si.rsdp_paddr, 36, "ACPI RSDP", &err)))
            return err;
        memcpy(bi->rsdp, r, len);
        bi->rsdp_len = len;
        bi->rsdp_phys = si.rsdp_paddr;
    }
    return BI_OK;
}

const char *bi_loader_name(enum bi_loader l)
{
    switch (l) {
    case BI_LOADER_MB2: return "multiboot2";
    case BI_LOADER_PVH: return "pvh";
    default: return "none";
    }
}
