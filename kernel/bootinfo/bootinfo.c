// SPDX-License-Identifier: MIT
// What the two boot-info parsers share (kernel/bootinfo/mb2.c, kernel/bootinfo/pvh.c). Every
// length and pointer a loader gives is checked before use; any problem is a
// negative errno and a message, built here or in the parser that found it.
#include "kernel/bootinfo/bootinfo_priv.h"

#include "kernel/lib/libc.h"

/* Defined here, below its readers (kernel/acpi/topo_boot.c, kernel/smp/smp_boot.c), not in main.c above them. */
struct bootinfo bootinfo;

void bi_reset(struct bootinfo *bi, enum bi_loader loader)
{
    memset(bi, 0, sizeof(*bi));
    bi->loader = loader;
}

int bi_need(const void **out, phys_read_fn phys, void *ctx, uint64_t paddr, uint64_t len,
            const char *what, struct err *e)
{
    *out = paddr + len >= paddr ? phys(paddr, len, ctx) : NULL;
    if (!*out)
        return err_set(e, -EFAULT, "%s at 0x%llx (%llu bytes) is not readable memory",
                       what, (unsigned long long)paddr, (unsigned long long)len);
    return 0;
}

int bi_copy_string(char *dst, size_t max, const char *src, size_t avail, const char *what,
                   struct err *e)
{
    size_t len = strnlen(src, avail);

    if (len == avail)
        return err_set(e, -EINVAL, "%s is not NUL-terminated within its %zu bytes", what, avail);
    if (len >= max)
        return err_set(e, -EINVAL, "%s is %zu bytes long; the limit is %zu", what, len, max - 1);
    memcpy(dst, src, len + 1);
    return 0;
}

int bi_add_resv(struct bootinfo *bi, uint64_t start, uint64_t len, const char *what,
                struct err *e)
{
    if (!len)
        return 0;
    if (bi->resv_count == BI_RESV_MAX)
        return err_set(e, -ENOSPC, "more than %u loader ranges to reserve", BI_RESV_MAX);
    bi->resv[bi->resv_count++] = (struct bi_range){ start, start + len, what };
    return 0;
}

const char *bi_loader_name(enum bi_loader l)
{
    switch (l) {
    case BI_LOADER_MB2: return "multiboot2";
    case BI_LOADER_PVH: return "pvh";
    default: return "none";
    }
}
