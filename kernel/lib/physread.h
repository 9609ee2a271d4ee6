/* SPDX-License-Identifier: MIT */
/*
 * Reading physical memory from parsers that also build on the host: the
 * kernel passes a reader over its own mappings, the host tests one over a
 * fake memory.
 */
#ifndef KERNEL_LIB_PHYSREAD_H
#define KERNEL_LIB_PHYSREAD_H

#include <stdint.h>

/*
 * A pointer to len readable bytes at physical address paddr, or NULL when
 * they are not all readable. ctx is the caller's, passed through. Pointers
 * stay valid only until the parser that asked returns.
 */
typedef const void *(*phys_read_fn)(uint64_t paddr, uint64_t len, void *ctx);

#endif
