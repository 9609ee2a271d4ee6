/* SPDX-License-Identifier: MIT */
/*
 * What the multiboot2 and PVH parsers share (kernel/bootinfo/bootinfo.c): reading
 * loader memory, copying strings and recording loader ranges, each failing
 * with a negative errno and a message in e.
 */
#ifndef KERNEL_BOOTINFO_BOOTINFO_PRIV_H
#define KERNEL_BOOTINFO_BOOTINFO_PRIV_H

#include <stddef.h>

#include "kernel/bootinfo/bootinfo.h"

/* Clears bi for a new parse by loader. */
void bi_reset(struct bootinfo *bi, enum bi_loader loader);

/*
 * Points *out at len readable bytes at paddr. Returns 0, or -EFAULT with e
 * saying that what is not readable memory.
 */
int bi_need(const void **out, phys_read_fn phys, void *ctx, uint64_t paddr, uint64_t len,
            const char *what, struct err *e);

/*
 * Copies the string at src into dst (max bytes with the NUL); it must end
 * within avail bytes. Returns 0 or -EINVAL.
 */
int bi_copy_string(char *dst, size_t max, const char *src, size_t avail, const char *what,
                   struct err *e);

/* Records [start, start + len) as loader data; empty ranges are skipped. Returns 0 or -ENOSPC. */
int bi_add_resv(struct bootinfo *bi, uint64_t start, uint64_t len, const char *what,
                struct err *e);

#endif
