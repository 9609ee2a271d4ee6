; SPDX-License-Identifier: MIT
; Loader headers. GRUB finds the multiboot2 header in the first 32 KiB of the
; ELF file; QEMU, Xen, Firecracker and Cloud Hypervisor find the PVH entry in
; an ELF note. Both lead to the 32-bit entries in boot/entry.asm.

extern mb2_entry
extern pvh_entry

; MB2_HEADER_MAGIC, the MB2_INFO_* tag numbers and KERNEL_PHYS, generated
; from the C headers (boot/consts.c, kernel/bootinfo/multiboot2.h, mm/layout.h).
%include "consts.inc"

MB2_ARCH_I386      equ 0          ; 32-bit protected mode entry

MB2_TAG_END        equ 0
MB2_TAG_INFO_REQ   equ 1
MB2_TAG_ENTRY      equ 3
MB2_TAG_FB         equ 5
MB2_TAG_RELOC      equ 10
MB2_TAG_OPTIONAL   equ 1

section .multiboot2 progbits alloc noexec nowrite align=8
mb2_header:
    dd MB2_HEADER_MAGIC
    dd MB2_ARCH_I386
    dd mb2_header_end - mb2_header
    dd (0x100000000 - (MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))) & 0xffffffff

    ; Ask for everything the boot-info structure holds. Optional, so a
    ; loader that cannot supply a tag still boots us; the parser decides
    ; what is really required (a memory map).
    align 8
.info_req:
    dw MB2_TAG_INFO_REQ, MB2_TAG_OPTIONAL
    dd .info_req_end - .info_req
    dd MB2_INFO_CMDLINE, MB2_INFO_LOADER, MB2_INFO_MODULE, MB2_INFO_MEMINFO
    dd MB2_INFO_MMAP, MB2_INFO_FB, MB2_INFO_ACPI_OLD, MB2_INFO_ACPI_NEW
    dd MB2_INFO_EFI_MMAP
.info_req_end:

    ; Enter at the multiboot2 entry, whatever the ELF entry says.
    align 8
.entry:
    dw MB2_TAG_ENTRY, 0
    dd 12
    dd mb2_entry

    ; A linear framebuffer of any size: the screen console draws on it.
    align 8
.fb:
    dw MB2_TAG_FB, MB2_TAG_OPTIONAL
    dd 20
    dd 0, 0, 0                        ; width, height, depth: no preference

    ; Relocatable: anywhere from 2 MiB up to 4 GiB on a 2 MiB boundary,
    ; as high as the loader can (Xen's choice since 2017: a fixed low
    ; address can clash with firmware memory that is still in use). The
    ; 32-bit entry works out where it landed; see boot/entry.asm.
    align 8
.reloc:
    dw MB2_TAG_RELOC, MB2_TAG_OPTIONAL
    dd 24
    dd KERNEL_PHYS                    ; lowest load address: where it is linked
    dd 0xffffffff                     ; highest: the image ends below 4 GiB
    dd 0x200000                       ; alignment: 2 MiB pages map it
    dd 2                              ; preference: as high as possible

    align 8
    dw MB2_TAG_END, 0
    dd 8
mb2_header_end:

; PVH: an ELF note, owner "Xen", type XEN_ELFNOTE_PHYS32_ENTRY (18), holding
; the 32-bit physical entry. The descriptor is 8 bytes wide because QEMU
; reads a full word from it; the upper half is zero.
section .note.Xen note alloc noexec nowrite align=4
    dd 4                              ; namesz
    dd 8                              ; descsz
    dd 18                             ; XEN_ELFNOTE_PHYS32_ENTRY
    db "Xen", 0
    dq pvh_entry
