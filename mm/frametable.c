// SPDX-License-Identifier: MIT
// The frame table's bookkeeping, shared by the kernel and the host tests:
// the highest frame, the backed sections. The kernel backs the tables in
// mm/frametable_setup.c (see mm/frametable.h for the hole policy).
#include "mm/frametable.h"

uint64_t max_pfn;
uint64_t section_valid[NR_SECTIONS_MAX / 64];
struct frametable_info frametable;

void frametable_mark_valid(uint64_t s, uint64_t e)
{
    for (uint64_t sec = s >> SECTION_SHIFT; sec <= (e - 1) >> SECTION_SHIFT && s < e; sec++)
        section_valid[sec / 64] |= 1ull << (sec % 64);
}
