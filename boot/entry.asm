; SPDX-License-Identifier: MIT
; 32-bit entries for multiboot2 and PVH, the switch to long mode, and the
; hand-over to kstart() in the higher half.
;
; Machine state on entry, multiboot2 (GRUB, BIOS or UEFI after it exited boot
; services):
;   32-bit protected mode, paging off, A20 on, interrupts off.
;   EAX = 0x36d76289, EBX = physical address of the multiboot2 info (8-byte
;   aligned, below 4 GiB).
;   CS/DS/ES/FS/GS/SS are flat 4 GiB segments, but the GDTR and IDTR may
;   point anywhere and ESP is undefined: we load our own GDT and stack.
;   On UEFI there is no VGA text mode and the 8259 PIC state is whatever the
;   firmware left.
;
; Machine state on entry, PVH (QEMU -kernel, Xen, Firecracker):
;   32-bit protected mode, paging off, interrupts off.
;   EBX = physical address of struct hvm_start_info (magic 0x336ec578).
;   CS is a flat 32-bit code segment, DS/ES/SS flat data; GDTR, IDTR and
;   ESP are undefined, so we load our own.
;
; Both paths first work out where the image runs: GRUB may place it anywhere
; from 2 MiB up to 4 GiB on a 2 MiB boundary (the relocatable tag in
; boot/header.asm), so nothing here uses an absolute address before paging;
; EDI holds the load offset (where the image runs minus where it was linked)
; and every address of the image is written [edi + symbol]. They then zero
; .bss, load the boot GDT, check for long mode (CPUID 0x80000001 EDX bit 29;
; without it a message goes to COM1 and the CPU halts), build early page
; tables (the first 4 GiB identity-mapped with 2 MiB pages, and KERNEL_VMA +
; link address mapped onto the image wherever it runs), enable PAE, LME, NX
; (when CPUID has it) and paging, then jump to 64-bit code and call
;   kstart(loader, magic, info, load_offset)      ; rdi, rsi, rdx, rcx
; with loader = 1 for multiboot2 and 2 for PVH, magic = EAX at entry
; (multiboot2 only, 0 for PVH), info = EBX at entry and load_offset the
; image's physical displacement from its link address (0 for PVH, which
; loads it where the ELF says).

extern kstart
extern boot_stack_top                ; high-half stack, in .bss
extern __bss_phys_start
extern __bss_phys_end

; LOADER_*, MSR_EFER, EFER_*, PTE_*, KERNEL_VMA and the UART's ports and
; bits, generated from the C headers (boot/consts.c).
%include "consts.inc"

CR0_PE          equ 1 << 0
CR0_WP          equ 1 << 16
CR0_PG          equ 1 << 31
CR4_PAE         equ 1 << 5

SEL_CODE32      equ 0x08
SEL_DATA        equ 0x10
SEL_CODE64      equ 0x18

; Where KERNEL_VMA falls in the tables: PML4 slot 511, PDPT slot 510.
KERNEL_PML4_SLOT equ (KERNEL_VMA >> 39) & 511
KERNEL_PDPT_SLOT equ (KERNEL_VMA >> 30) & 511

section .boot.text progbits alloc exec nowrite align=16
bits 32

global mb2_entry
mb2_entry:
    cli
    cld
    mov ebp, LOADER_MB2
    mov esi, eax                      ; magic, checked in C
    jmp common32

global pvh_entry
pvh_entry:
    cli
    cld
    mov ebp, LOADER_PVH
    xor esi, esi                      ; PVH's magic lives in the start info
    jmp common32

; From here on EBP = loader, ESI = magic, EBX = info.
common32:
    ; Where do we run? A call pushes its return address, but ESP is
    ; undefined on entry, so the first word of the loader's info block (in
    ; RAM, ours to read) serves as a one-word stack and is put back after.
    mov edx, [ebx]
    lea esp, [ebx + 4]
    call .here
.here:
    pop edi
    mov [ebx], edx
    sub edi, .here                    ; EDI = load offset, from here on
    jc .below_link                    ; loaded below 2 MiB: the tag forbids it
    test edi, (1 << 21) - 1
    jnz .misaligned                   ; the high-half map uses 2 MiB pages

    ; Zero the early page tables and boot stack, then the kernel .bss.
    ; The loaders normally clear .bss, but nothing here depends on that.
    ; No call here: until ESP moves to the boot stack, which this clears,
    ; a push would land on the loader's info block again.
    mov edx, edi
    xor eax, eax
    lea edi, [edx + boot_bss_start]
    mov ecx, (boot_bss_end - boot_bss_start) / 4
    rep stosd
    lea edi, [edx + __bss_phys_start]
    mov ecx, __bss_phys_end
    sub ecx, __bss_phys_start
    shr ecx, 2
    rep stosd
    mov edi, edx

    lea esp, [edi + boot_stack32_top]
    ; The GDT's address is known only now: build its pointer on the stack.
    lea eax, [edi + boot_gdt]
    push eax
    push word boot_gdt_end - boot_gdt - 1
    lgdt [esp]
    add esp, 6
    push dword SEL_CODE32             ; a far return reloads CS: no far
    lea eax, [edi + .reload]          ; jump with an absolute address
    push eax
    retf
.reload:
    mov ax, SEL_DATA
    mov ds, ax
    mov es, ax
    mov ss, ax
    xor ax, ax
    mov fs, ax
    mov gs, ax

    call check_long_mode              ; returns EDX = CPUID 0x80000001 EDX

    ; EFER: long mode, and no-execute when the CPU has it. C reads EFER to
    ; learn whether NX may be set in page tables.
    mov ecx, EFER_LME
    test edx, 1 << 20
    jz .no_nx
    or ecx, EFER_NXE
.no_nx:
    push ecx
    mov ecx, MSR_EFER
    rdmsr
    or eax, [esp]
    add esp, 4
    wrmsr

    call build_early_page_tables

    mov eax, cr4
    or eax, CR4_PAE
    mov cr4, eax
    lea eax, [edi + boot_pml4]
    mov cr3, eax
    mov eax, cr0
    or eax, CR0_PE | CR0_PG | CR0_WP
    mov cr0, eax
    push dword SEL_CODE64
    lea eax, [edi + long64]
    push eax
    retf

.below_link:
    lea esi, [edi + msg_below_link]   ; the wrapped offset still adds up
    jmp halt32
.misaligned:
    lea esi, [edi + msg_misaligned]
    jmp halt32

; Halts with a message on COM1 unless CPUID reports long mode.
; Returns EDX = CPUID.80000001h:EDX. Clobbers EAX, ECX.
check_long_mode:
    push ebx
    ; CPUID exists when EFLAGS.ID (bit 21) can be toggled.
    pushfd
    pop eax
    mov ecx, eax
    xor eax, 1 << 21
    push eax
    popfd
    pushfd
    pop eax
    push ecx
    popfd
    xor eax, ecx
    jz .no_lm
    mov eax, 0x80000000
    cpuid
    cmp eax, 0x80000001
    jb .no_lm
    mov eax, 0x80000001
    cpuid
    test edx, 1 << 29
    jz .no_lm
    pop ebx
    ret
.no_lm:
    lea esi, [edi + msg_no_long_mode]
    ; fall through

; Writes the message at ESI to COM1 and halts for good. Needs no stack
; beyond the one call it makes.
halt32:
    call serial_puts32
.halt:
    cli
    hlt
    jmp .halt

; Writes the NUL-terminated string at ESI to COM1 at 115200 8N1. Every wait
; is bounded, so a machine without a UART does not hang here.
serial_puts32:
    mov dx, COM1 + UART_IER
    xor al, al
    out dx, al                        ; no interrupts
    mov dx, COM1 + UART_LCR
    mov al, LCR_DLAB
    out dx, al                        ; the divisor follows
    mov dx, COM1 + UART_DATA
    mov al, 1
    out dx, al                        ; divisor 1: 115200 baud
    mov dx, COM1 + UART_IER
    xor al, al
    out dx, al
    mov dx, COM1 + UART_LCR
    mov al, LCR_8N1
    out dx, al                        ; 8N1, divisor latch off
.next:
    lodsb
    test al, al
    jz .done
    mov ah, al
    mov ecx, 100000
.wait:
    mov dx, COM1 + UART_LSR
    in al, dx
    test al, LSR_THRE
    jnz .send
    dec ecx
    jnz .wait
.send:
    mov dx, COM1 + UART_DATA
    mov al, ah
    out dx, al
    jmp .next
.done:
    ret

; Identity-maps 0..4 GiB with 2 MiB pages, and maps the 1 GiB at KERNEL_VMA
; (KERNEL_PML4_SLOT, KERNEL_PDPT_SLOT) onto physical 0..1 GiB shifted by the load
; offset in EDI, so that KERNEL_VMA + link address reaches the image where
; it runs. The tables were zeroed above. Clobbers EAX, ECX, EDX.
build_early_page_tables:
    lea eax, [edi + boot_pdpt_low + (PTE_P | PTE_W)]
    mov [edi + boot_pml4], eax
    lea eax, [edi + boot_pdpt_high + (PTE_P | PTE_W)]
    mov [edi + boot_pml4 + KERNEL_PML4_SLOT * 8], eax
    lea eax, [edi + boot_pd_high + (PTE_P | PTE_W)]
    mov [edi + boot_pdpt_high + KERNEL_PDPT_SLOT * 8], eax
    xor ecx, ecx
.pdpt:
    mov eax, ecx
    shl eax, 12
    lea eax, [edi + boot_pd + eax + (PTE_P | PTE_W)]
    mov [edi + boot_pdpt_low + ecx * 8], eax
    inc ecx
    cmp ecx, 4
    jb .pdpt
    ; 2048 identity PD entries, 2 MiB each: entry i maps i * 2 MiB. The
    ; high dword carries bits 32-33 of the address.
    xor ecx, ecx
.pd:
    mov eax, ecx
    shl eax, 21
    or eax, PTE_P | PTE_W | PTE_PS
    mov edx, ecx
    shr edx, 11
    mov [edi + boot_pd + ecx * 8], eax
    mov [edi + boot_pd + ecx * 8 + 4], edx
    inc ecx
    cmp ecx, 2048
    jb .pd
    ; 512 high-half PD entries: entry i maps i * 2 MiB + load offset, which
    ; may pass 4 GiB (the carry goes to the high dword).
    xor ecx, ecx
.pd_high:
    mov eax, ecx
    shl eax, 21
    xor edx, edx
    add eax, edi
    adc edx, 0
    or eax, PTE_P | PTE_W | PTE_PS
    mov [edi + boot_pd_high + ecx * 8], eax
    mov [edi + boot_pd_high + ecx * 8 + 4], edx
    inc ecx
    cmp ecx, 512
    jb .pd_high
    ret

bits 64
long64:
    mov ax, SEL_DATA
    mov ds, ax
    mov es, ax
    mov ss, ax
    xor eax, eax
    mov fs, ax
    mov gs, ax
    mov rsp, boot_stack_top           ; the higher-half stack
    mov ecx, edi                      ; load offset; clears the upper half
    mov edi, ebp                      ; loader
    mov esi, esi                      ; magic; clears the undefined upper half
    mov edx, ebx                      ; info, physical
    xor ebp, ebp                      ; end of the frame-pointer chain
    mov rax, kstart
    call rax
.hang:
    cli
    hlt
    jmp .hang

section .boot.rodata progbits alloc noexec nowrite align=16
; Flat segments. The accessed bits are preset so that loading a selector
; never writes to this read-only page.
boot_gdt:
    dq 0
    dq 0x00cf9b000000ffff             ; 0x08: 32-bit code
    dq 0x00cf93000000ffff             ; 0x10: data
    dq 0x00af9b000000ffff             ; 0x18: 64-bit code
boot_gdt_end:

msg_no_long_mode:
    db "bootheap: this CPU has no long mode (x86-64); cannot continue. Halting.", 13, 10, 0
msg_below_link:
    db "bootheap: the loader placed the image below 2 MiB, its link address; cannot continue. Halting.", 13, 10, 0
msg_misaligned:
    db "bootheap: the loader placed the image off a 2 MiB boundary; cannot map it. Halting.", 13, 10, 0

section .boot.bss nobits alloc noexec write align=4096
boot_bss_start:
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096
boot_pdpt_high: resb 4096
boot_pd:        resb 4 * 4096
boot_pd_high:   resb 4096
boot_stack32:   resb 4096
boot_stack32_top:
boot_bss_end:
