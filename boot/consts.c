// SPDX-License-Identifier: MIT
// The numbers that boot/*.asm and linker.ld share with C, taken from the C
// headers so that each has one source. This file is only compiled to
// assembly: the Makefile turns its "@@asm" lines into build/gen/consts.inc
// (NASM equ lines) and its "@@ld" lines into build/gen/consts.ld (linker
// script assignments). It is never linked.
#include "kernel/bootinfo/bootinfo.h"
#include "kernel/bootinfo/multiboot2.h"
#include "kernel/console/uart.h"
#include "kernel/cpu.h"
#include "mm/layout.h"
#include "mm/paging.h"

/* A constant for the assembler or for the linker script: "$" and the value in decimal. */
#define ASM_CONST(name, value) \
    __asm__ volatile("\n.ascii \"@@asm " #name " %0@@\"" : : "i"((long long)(value)))
#define LD_CONST(name, value) \
    __asm__ volatile("\n.ascii \"@@ld " #name " %0@@\"" : : "i"((long long)(value)))

void consts(void);

void consts(void)
{
    /* boot/entry.asm tells kstart() which loader entered (enum bi_loader). */
    ASM_CONST(LOADER_MB2, BI_LOADER_MB2);
    ASM_CONST(LOADER_PVH, BI_LOADER_PVH);

    /* The switch to long mode and the early page tables. */
    ASM_CONST(MSR_EFER, MSR_EFER);
    ASM_CONST(EFER_LME, EFER_LME);
    ASM_CONST(EFER_NXE, EFER_NXE);
    ASM_CONST(PTE_P, PTE_P);
    ASM_CONST(PTE_W, PTE_W);
    ASM_CONST(PTE_PS, PTE_PS);
    ASM_CONST(KERNEL_VMA, KERNEL_VMA);

    /* The message on COM1 when the CPU has no long mode. */
    ASM_CONST(COM1, COM1);
    ASM_CONST(UART_DATA, UART_DATA);
    ASM_CONST(UART_IER, UART_IER);
    ASM_CONST(UART_LCR, UART_LCR);
    ASM_CONST(UART_LSR, UART_LSR);
    ASM_CONST(LCR_DLAB, LCR_DLAB);
    ASM_CONST(LCR_8N1, LCR_8N1);
    ASM_CONST(LSR_THRE, LSR_THRE);

    /* boot/header.asm: the multiboot2 header, the info tags it asks for, and
     * the lowest address the relocatable image may be loaded at. */
    ASM_CONST(MB2_HEADER_MAGIC, MB2_HEADER_MAGIC);
    ASM_CONST(KERNEL_PHYS, KERNEL_PHYS);
    ASM_CONST(MB2_INFO_CMDLINE, MB2_TAG_CMDLINE);
    ASM_CONST(MB2_INFO_LOADER, MB2_TAG_LOADER);
    ASM_CONST(MB2_INFO_MODULE, MB2_TAG_MODULE);
    ASM_CONST(MB2_INFO_MEMINFO, MB2_TAG_MEMINFO);
    ASM_CONST(MB2_INFO_MMAP, MB2_TAG_MMAP);
    ASM_CONST(MB2_INFO_FB, MB2_TAG_FB);
    ASM_CONST(MB2_INFO_ACPI_OLD, MB2_TAG_ACPI_OLD);
    ASM_CONST(MB2_INFO_ACPI_NEW, MB2_TAG_ACPI_NEW);
    ASM_CONST(MB2_INFO_EFI_MMAP, MB2_TAG_EFI_MMAP);

    /* linker.ld: where the image is loaded and where it runs. */
    LD_CONST(KERNEL_PHYS, KERNEL_PHYS);
    LD_CONST(KERNEL_VMA, KERNEL_VMA);
}
