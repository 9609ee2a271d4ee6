/* SPDX-License-Identifier: MIT */
/* The mapfile fuzz target's reference: docs/usage-hosted.md's map-file format, read plainly. */
#ifndef TESTS_FUZZ_MAPFILE_REF_H
#define TESTS_FUZZ_MAPFILE_REF_H

#include <stddef.h>

#include "mm/e820.h"

/*
 * Reads text (len bytes) as the runner's map file is documented, into
 * out[0..*n). Returns 0 when the file is a map; otherwise -1 with *line the
 * first line at fault, or 0 when the fault is no single line's (no ranges,
 * more than E820_MAX of them, overlaps the sanitiser cannot resolve).
 */
int mapfile_reference(const char *text, size_t len, struct mmap_entry *out, unsigned *n,
                      unsigned *line);

#endif
