/* SPDX-License-Identifier: MIT */
/*
 * Multiboot2 numbers (multiboot2 specification, section 3) that the header
 * asking for the info tags (boot/header.asm, through boot/consts.c) and the
 * parser reading them (kernel/bootinfo/mb2.c) share.
 */
#ifndef KERNEL_BOOTINFO_MULTIBOOT2_H
#define KERNEL_BOOTINFO_MULTIBOOT2_H

#define MB2_HEADER_MAGIC 0xe85250d6u

/* Boot information tags. */
enum mb2_info_tag {
    MB2_TAG_END = 0,
    MB2_TAG_CMDLINE = 1,
    MB2_TAG_LOADER = 2,
    MB2_TAG_MODULE = 3,
    MB2_TAG_MEMINFO = 4,
    MB2_TAG_MMAP = 6,
    MB2_TAG_FB = 8,
    MB2_TAG_ACPI_OLD = 14,
    MB2_TAG_ACPI_NEW = 15,
    MB2_TAG_EFI_MMAP = 17,
};

#endif
