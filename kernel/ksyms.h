/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbol table for backtraces. The build links twice: the first link
 * has an empty table, tools/ksyms.sh turns its text symbols into
 * build/ksyms.c, and the second link adds that after all code, so no code
 * address moves.
 */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

struct ksym {
    uintptr_t addr;
    const char *name;
};

extern const struct ksym ksyms[];
extern const unsigned ksyms_count;

/* Name of the function holding addr and the offset into it, or NULL. */
const char *ksym_lookup(uintptr_t addr, uintptr_t *offset);

#endif
