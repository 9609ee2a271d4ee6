// SPDX-License-Identifier: MIT
// Boot memory the kernel takes for itself, by name: the early reservations,
// allocations from the boot allocator, and the reserved lines that count them.
#include "mm/reserve.h"

#include "kernel/lib/string.h"
#include "kernel/panic.h"
#include "mm/bootmem.h"
#include "mm/paging.h"

static struct mm_resv lines[MM_RESV_MAX];
static unsigned nlines;
static struct usable_resv early_resv[MM_EARLY_RESV_MAX];
static unsigned nearly_resv;

void mm_reserve_early(const char *what, uint64_t start, uint64_t end)
{
    if (nearly_resv == MM_EARLY_RESV_MAX)
        panic("more than %u early reservations (%s)", MM_EARLY_RESV_MAX, what);
    early_resv[nearly_resv++] = (struct usable_resv){ what, start, end };
}

unsigned mm_early_reservations(const struct usable_resv **r)
{
    *r = early_resv;
    return nearly_resv;
}

void *mm_alloc_boot(const char *what, uint64_t pages, uint64_t limit_mfn)
{
    uint64_t mfn;
    int rc = bootmem_alloc(&bootmem, pages, 1, limit_mfn, &mfn);

    if (rc)
        panic("out of boot memory for %s (%llu pages, error %d)", what,
              (unsigned long long)pages, rc);
    mm_count_reserved(what, pages << PAGE_SHIFT);
    return phys_to_virt(mfn << PAGE_SHIFT);
}

void mm_count_reserved(const char *what, uint64_t bytes)
{
    for (unsigned i = 0; i < nlines; i++) {
        if (!strcmp(lines[i].what, what)) {
            lines[i].bytes += bytes;
            return;
        }
    }
    if (nlines == MM_RESV_MAX)
        panic("more than %u kinds of reserved memory", MM_RESV_MAX);
    lines[nlines++] = (struct mm_resv){ what, bytes };
}

unsigned mm_reserved_lines(const struct mm_resv **out)
{
    *out = lines;
    return nlines;
}
