// SPDX-License-Identifier: MIT
// Multiboot2 boot information (multiboot2 specification, section 3.6),
// parsed into struct bootinfo: the tag walk, the memory maps, modules, the
// framebuffer and the ACPI RSDP.
#include "kernel/bootinfo/bootinfo_priv.h"

#include "kernel/bootinfo/multiboot2.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

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

_Static_assert(sizeof(struct mb2_mmap_entry) == 24, "multiboot2 mmap entry");
_Static_assert(sizeof(struct mb2_fb) == 30, "multiboot2 framebuffer tag body");
_Static_assert(sizeof(struct efi_mem_desc) == 40, "EFI memory descriptor");

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

/* How one of the two memory-map tags is laid out and read. */
struct mb2_map_kind {
    uint32_t min_esize;                 /* entries are at least this, in multiples of 8 */
    const char *tag, *entry, *source;   /* names for messages and for bi->mmap_source */
    /* Decodes entry i at p into *out, in e820 numbering; 0 or -EINVAL. */
    int (*decode)(const uint8_t *p, uint32_t i, struct mmap_entry *out, struct err *e);
};

static int decode_e820(const uint8_t *p, uint32_t i, struct mmap_entry *out, struct err *e)
{
    struct mb2_mmap_entry m;

    (void)i;
    (void)e;
    memcpy(&m, p, sizeof(m));
    *out = (struct mmap_entry){ m.addr, m.len, m.type };
    return 0;
}

static int decode_efi(const uint8_t *p, uint32_t i, struct mmap_entry *out, struct err *e)
{
    struct efi_mem_desc d;

    memcpy(&d, p, sizeof(d));
    if (d.num_pages > (UINT64_MAX >> 12))
        return err_set(e, -EINVAL, "EFI descriptor %u has %llu pages, past 2^64 bytes",
                       i, (unsigned long long)d.num_pages);
    *out = (struct mmap_entry){ d.phys_start, d.num_pages << 12, efi_to_e820(d.type) };
    return 0;
}

static const struct mb2_map_kind mb2_bios_map = {
    sizeof(struct mb2_mmap_entry), "memory map", "memory map entry", "multiboot2 memory map",
    decode_e820,
};
static const struct mb2_map_kind mb2_efi_map = {
    sizeof(struct efi_mem_desc), "EFI memory map", "EFI descriptor", "multiboot2 EFI memory map",
    decode_efi,
};

/*
 * Tag 6 or 17: a 16-byte header whose first word is the entry size, then
 * whole entries. Fills bi->mmap.
 */
static int mb2_map(struct bootinfo *bi, const struct mb2_tag *tag, const struct mb2_map_kind *k,
                   struct err *e)
{
    const uint8_t *body = (const uint8_t *)(tag + 1);
    uint32_t size = tag->size, esize, n;
    int rc;

    if (size < 16)
        return err_set(e, -EINVAL, "%s tag is %u bytes, less than its 16-byte header", k->tag, size);
    memcpy(&esize, body, 4);
    if (esize < k->min_esize || esize % 8)
        return err_set(e, -EINVAL, "%s size %u is not a multiple of 8 of at least %u",
                       k->entry, esize, k->min_esize);
    if ((size - 16) % esize)
        return err_set(e, -EINVAL, "%s tag size %u is not 16 + n * %u", k->tag, size, esize);
    n = (size - 16) / esize;
    if (n == 0)
        return err_set(e, -ENOENT, "%s tag has no entries", k->tag);
    if (n > BI_MMAP_MAX)
        return err_set(e, -E2BIG, "%s has %u entries, more than the %u kept", k->tag, n, BI_MMAP_MAX);
    for (uint32_t i = 0; i < n; i++)
        if ((rc = k->decode(body + 8 + (size_t)i * esize, i, &bi->mmap[bi->mmap_count++], e)))
            return rc;
    bi->mmap_source = k->source;
    return 0;
}

static int mb2_module(struct bootinfo *bi, const uint8_t *body, uint32_t size, struct err *e)
{
    if (size < 8 + 8 + 1)
        return err_set(e, -EINVAL, "module tag is %u bytes, too short for its fields", size);
    if (bi->module_count == BI_MODULES_MAX)
        return err_set(e, -E2BIG, "more than %u modules", BI_MODULES_MAX);
    uint32_t start, end;
    memcpy(&start, body, 4);
    memcpy(&end, body + 4, 4);
    if (end < start)
        return err_set(e, -EINVAL, "module ends at 0x%x, before its start 0x%x", end, start);
    struct bi_module *m = &bi->modules[bi->module_count++];
    m->start = start;
    m->end = end;
    size_t avail = size - 16;
    size_t len = strnlen((const char *)body + 8, avail);
    if (len == avail)
        return err_set(e, -EINVAL, "module string is not NUL-terminated");
    /* Module names are labels only: keep what fits. */
    size_t keep = MIN(len, sizeof(m->cmdline) - 1);
    memcpy(m->cmdline, body + 8, keep);
    m->cmdline[keep] = '\0';
    return bi_add_resv(bi, start, end - start, "multiboot2 module", e);
}

static int mb2_fb(struct bootinfo *bi, const uint8_t *body, uint32_t size, struct err *e)
{
    uint32_t blen = size - 8;
    struct mb2_fb fb;

    if (size < 8 + 22)
        return err_set(e, -EINVAL, "framebuffer tag is %u bytes, too short for its fields", size);
    memset(&fb, 0, sizeof(fb));
    memcpy(&fb, body, MIN((size_t)blen, sizeof(fb)));
    if (fb.type == 1 && blen < sizeof(fb))
        return err_set(e, -EINVAL, "RGB framebuffer tag is %u bytes, too short for its colour fields",
                       size);
    bi->fb = (struct bootinfo_fb){
        .present = true, .addr = fb.addr, .pitch = fb.pitch, .width = fb.width,
        .height = fb.height, .bpp = fb.bpp, .type = fb.type,
        .red_pos = fb.red_pos, .red_size = fb.red_size,
        .green_pos = fb.green_pos, .green_size = fb.green_size,
        .blue_pos = fb.blue_pos, .blue_size = fb.blue_size,
    };
    return 0;
}

static int mb2_tag(struct bootinfo *bi, const struct mb2_tag *tag, bool *seen_mmap, bool *seen_efi,
                   struct err *e)
{
    const uint8_t *body = (const uint8_t *)(tag + 1);
    uint32_t size = tag->size;
    uint32_t blen = size - 8;

    switch (tag->type) {
    case MB2_TAG_CMDLINE:
        return bi_copy_string(bi->cmdline, sizeof(bi->cmdline), (const char *)body, blen,
                              "multiboot2 command line", e);
    case MB2_TAG_LOADER: {
        /* The loader's name is only a label: an overlong or unterminated one is cut. */
        size_t keep = MIN(strnlen((const char *)body, blen), sizeof(bi->loader_name) - 1);
        memcpy(bi->loader_name, body, keep);
        bi->loader_name[keep] = '\0';
        return 0;
    }
    case MB2_TAG_MODULE:
        return mb2_module(bi, body, size, e);
    case MB2_TAG_MEMINFO:
        if (size < 16)
            return err_set(e, -EINVAL, "basic meminfo tag is %u bytes, expected 16", size);
        memcpy(&bi->mem_lower_kib, body, 4);
        memcpy(&bi->mem_upper_kib, body + 4, 4);
        bi->meminfo = true;
        return 0;
    case MB2_TAG_MMAP:
        if (*seen_mmap)
            return err_set(e, -EINVAL, "two memory map tags");
        *seen_mmap = true;
        return 0;           /* parsed after the walk, see mb2_parse() */
    case MB2_TAG_EFI_MMAP:
        if (*seen_efi)
            return err_set(e, -EINVAL, "two EFI memory map tags");
        *seen_efi = true;
        return 0;
    case MB2_TAG_FB:
        return mb2_fb(bi, body, size, e);
    case MB2_TAG_ACPI_OLD:
    case MB2_TAG_ACPI_NEW: {
        uint32_t want = tag->type == MB2_TAG_ACPI_OLD ? 20 : 36;
        if (blen < want)
            return err_set(e, -EINVAL, "ACPI RSDP tag %u holds %u bytes, expected %u",
                           tag->type, blen, want);
        /* Prefer the ACPI 2.0 RSDP when both are given. */
        if (want >= bi->rsdp_len) {
            memcpy(bi->rsdp, body, want);
            bi->rsdp_len = want;
        }
        return 0;
    }
    default:
        return 0;           /* tags we did not ask for are skipped */
    }
}

int mb2_parse(struct bootinfo *bi, uint32_t magic, uint64_t info_paddr,
              phys_read_fn phys, void *ctx, struct err *e)
{
    const uint32_t *hdr;
    const uint8_t *info;
    int rc;

    bi_reset(bi, BI_LOADER_MB2);
    if (magic != MB2_BOOTLOADER_MAGIC)
        return err_set(e, -EINVAL, "multiboot2 magic is 0x%08x, expected 0x%08x",
                       magic, MB2_BOOTLOADER_MAGIC);
    if (info_paddr % 8)
        return err_set(e, -EFAULT, "multiboot2 info at 0x%llx is not 8-byte aligned",
                       (unsigned long long)info_paddr);
    if ((rc = bi_need((const void **)&hdr, phys, ctx, info_paddr, 8, "multiboot2 info header", e)))
        return rc;
    uint32_t total = hdr[0];
    if (total < 16)
        return err_set(e, -EINVAL, "multiboot2 total size %u is smaller than a header and an end tag",
                       total);
    if (total > MB2_INFO_MAX)
        return err_set(e, -EINVAL, "multiboot2 total size %u is over the %u-byte limit", total,
                       MB2_INFO_MAX);
    if ((rc = bi_need((const void **)&info, phys, ctx, info_paddr, total, "multiboot2 info", e)))
        return rc;

    const struct mb2_tag *mmap_tag = NULL, *efi_tag = NULL;
    bool seen_mmap = false, seen_efi = false, ended = false;
    uint32_t off = 8;

    while (off < total) {
        if (total - off < 8)
            return err_set(e, -EINVAL, "tag header at offset %u is cut off by the total size %u",
                           off, total);
        const struct mb2_tag *tag = (const struct mb2_tag *)(info + off);
        if (tag->size < 8)
            return err_set(e, -EINVAL, "tag type %u at offset %u has size %u, less than its 8-byte header",
                           tag->type, off, tag->size);
        if (tag->size > total - off)
            return err_set(e, -EINVAL, "tag type %u at offset %u has size %u, past the end of the %u-byte info",
                           tag->type, off, tag->size, total);
        if (tag->type == MB2_TAG_END) {
            if (tag->size != 8)
                return err_set(e, -EINVAL, "end tag at offset %u has size %u, expected 8", off, tag->size);
            if (off + 8 != total)
                return err_set(e, -EINVAL, "end tag at offset %u, but the total size says %u", off, total);
            ended = true;
            break;
        }
        bool had_mmap = seen_mmap, had_efi = seen_efi;
        if ((rc = mb2_tag(bi, tag, &seen_mmap, &seen_efi, e)))
            return rc;
        if (seen_mmap && !had_mmap)
            mmap_tag = tag;
        if (seen_efi && !had_efi)
            efi_tag = tag;
        off += ALIGN_UP(tag->size, 8u);
    }
    if (!ended)
        return err_set(e, -EINVAL, "no end tag within the total size of %u bytes", total);

    /* The BIOS-style map is what GRUB always gives; the EFI map only fills in. */
    if (mmap_tag)
        rc = mb2_map(bi, mmap_tag, &mb2_bios_map, e);
    else if (efi_tag)
        rc = mb2_map(bi, efi_tag, &mb2_efi_map, e);
    else
        return err_set(e, -ENOENT, "no memory map: neither tag 6 nor EFI tag 17 is present");
    if (rc)
        return rc;
    return bi_add_resv(bi, info_paddr, total, "multiboot2 info", e);
}
