// SPDX-License-Identifier: MIT
// Symbol lookup over the table that the second link adds (kernel/ksyms.h).
#include "kernel/ksyms.h"

#include <stddef.h>

extern const char __text_start[], __text_end[];

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset)
{
    size_t lo = 0, hi = ksyms_count;

    if (addr < (uintptr_t)__text_start || addr >= (uintptr_t)__text_end || !hi)
        return NULL;
    /* Last symbol at or below addr. */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ksyms[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    if (ksyms[lo].addr > addr)
        return NULL;
    *offset = addr - ksyms[lo].addr;
    return ksyms[lo].name;
}
