; SPDX-License-Identifier: MIT
; The application processors' entry: a real-mode trampoline that
; kernel/smp/smp_boot.c copies to a page below 1 MiB, then real mode ->
; protected mode -> long mode on a small page table, and a jump to
; smp_ap_entry(percpu) in the higher half.
;
; Machine state on entry (STARTUP IPI with vector = the trampoline's page):
;   real mode, CS = page << 8, IP = 0; DS, ES, SS, the stack and the
;   general registers undefined; interrupts off; CR0 as INIT left it, with
;   caching disabled (CD, NW set); A20 not masked on an AP.
;
; The data block at offset TRAMP_DATA is struct tramp_data in
; kernel/smp/smp_boot.c, whose static asserts tie every offset below to C. The
; kernel fills it before each STARTUP: the GDT and far pointers carry the
; trampoline's physical base, cr3 is the trampoline's PML4 (the low 2 MiB
; identity-mapped, the kernel's upper half shared), and the rest is the
; CPU's stack, entry point and argument.
;
; Registers: EBX (RBX) holds the trampoline's physical base throughout;
; in long mode RSI takes it over, since CPUID overwrites EBX.

TRAMP_DATA      equ 8
TD_GDTR         equ TRAMP_DATA + 0          ; u16 limit, u32 base
TD_PM32         equ TRAMP_DATA + 8          ; u32 offset, u16 selector
TD_LM64         equ TRAMP_DATA + 16         ; u32 offset, u16 selector
TD_CR3          equ TRAMP_DATA + 24         ; u32
TD_EFER         equ TRAMP_DATA + 28         ; u32: bits ORed into EFER
TD_STACK        equ TRAMP_DATA + 32         ; u64: stack top, kernel virtual
TD_ENTRY        equ TRAMP_DATA + 40         ; u64: smp_ap_entry
TD_ARG          equ TRAMP_DATA + 48         ; u64: its percpu
TD_APIC_ID      equ TRAMP_DATA + 56         ; u32: the CPU expected
TD_X2APIC       equ TRAMP_DATA + 60         ; u32: nonzero: its id is CPUID 0xB's
TD_GDT          equ TRAMP_DATA + 64         ; 4 descriptors
TRAMP_DATA_LEN  equ 96

CR0_PE          equ 1 << 0
CR0_NW          equ 1 << 29
CR0_CD          equ 1 << 30
CR0_WP          equ 1 << 16
CR0_PG          equ 1 << 31
CR4_PAE         equ 1 << 5
MSR_EFER        equ 0xC0000080

; Read-only here: it runs only as the copy below 1 MiB.
section .rodata
align 16
bits 16
global tramp_start, tramp_pm32, tramp_lm64, tramp_end
tramp_start:
    jmp short real16
    times TRAMP_DATA - ($ - tramp_start) db 0   ; fails to assemble if the jump grows
    times TRAMP_DATA_LEN db 0
real16:
    cli
    cld
    mov ax, cs
    mov ds, ax
    xor ebx, ebx
    mov bx, ax
    shl ebx, 4                                  ; EBX = physical base
    mov eax, cr0
    and eax, ~(CR0_CD | CR0_NW)                 ; caches on
    or eax, CR0_PE
    o32 lgdt [TD_GDTR]
    mov cr0, eax
    jmp dword far [TD_PM32]                     ; to tramp_pm32, 32-bit code segment

bits 32
tramp_pm32:
    mov ax, 0x10
    mov ds, ax
    mov es, ax
    mov ss, ax
    mov eax, cr4
    or eax, CR4_PAE
    mov cr4, eax
    mov eax, [ebx + TD_CR3]
    mov cr3, eax
    mov ecx, MSR_EFER
    rdmsr
    or eax, [ebx + TD_EFER]                     ; LME, and NXE when the boot CPU has it
    wrmsr
    mov eax, cr0
    or eax, CR0_PG | CR0_WP
    mov cr0, eax
    jmp far [ebx + TD_LM64]                     ; to tramp_lm64, 64-bit code segment

bits 64
tramp_lm64:
    mov esi, ebx
    ; Only the CPU this block was filled for goes on: a late answer to an
    ; earlier STARTUP stops here, before it touches any memory.
    cmp dword [rsi + TD_X2APIC], 0
    je .xapic
    mov eax, 0xb
    xor ecx, ecx
    cpuid                                       ; EDX = x2APIC id
    jmp .check
.xapic:
    mov eax, 1
    cpuid
    shr ebx, 24
    mov edx, ebx                                ; EDX = initial APIC id
.check:
    cmp edx, [rsi + TD_APIC_ID]
    jne .stray
    mov rsp, [rsi + TD_STACK]
    mov rdi, [rsi + TD_ARG]
    mov rax, [rsi + TD_ENTRY]
    xor ebp, ebp                                ; ends the frame-pointer chain
    push rbp                                    ; as if called: a zero return address
    jmp rax
.stray:
    cli
    hlt
    jmp .stray
tramp_end:
