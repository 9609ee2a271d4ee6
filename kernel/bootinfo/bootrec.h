/* SPDX-License-Identifier: MIT */
/* The `boot` record, shared by the kernel's boot path and the hosted runner. */
#ifndef KERNEL_BOOTINFO_BOOTREC_H
#define KERNEL_BOOTINFO_BOOTREC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/bootinfo/bootinfo.h"

/*
 * Writes the `boot` record for bi: loader names the protocol ("multiboot2",
 * "pvh", or "host" for the hosted runner), load_addr is the image's physical
 * address, serial says whether a serial port answered.
 */
void boot_record(const struct bootinfo *bi, const char *loader, uint64_t load_addr, bool serial);

#endif
