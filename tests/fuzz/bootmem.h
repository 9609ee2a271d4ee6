/* SPDX-License-Identifier: MIT */
/* The bootinfo fuzz target's boot-allocator mode, apart from its other modes. */
#ifndef TESTS_FUZZ_BOOTMEM_H
#define TESTS_FUZZ_BOOTMEM_H

#include <stddef.h>
#include <stdint.h>

/*
 * buf as a list of boot-allocator calls (tests/fuzz/bootmem.c says how
 * each is written), each held to a bitmap of the free pages that only the
 * calls themselves move; aborts on any difference.
 */
void fuzz_bootmem(const uint8_t *buf, size_t size);

#endif
