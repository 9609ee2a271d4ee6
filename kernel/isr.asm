; SPDX-License-Identifier: MIT
; Exception entry stubs: each pushes a dummy error code where the CPU pushes
; none, then its vector, then every general register, and calls
; trap_handler(struct trap_frame *) (kernel/traps.h has the layout).

bits 64
section .text
extern trap_handler

; Vectors that push an error code: 8, 10-14, 17, 21, 29, 30.
%assign v 0
%rep 32
isr_stub_%[v]:
%if !(v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30)
    push 0
%endif
    push v
    jmp isr_common
%assign v v + 1
%endrep

isr_common:
    push rax
    push rbx
    push rcx
    push rdx
    push rsi
    push rdi
    push rbp
    push r8
    push r9
    push r10
    push r11
    push r12
    push r13
    push r14
    push r15
    cld
    mov rdi, rsp
    and rsp, -16                      ; the ABI's call alignment
    call trap_handler
.hang:                                ; trap_handler never returns
    cli
    hlt
    jmp .hang

section .rodata
global isr_stubs
isr_stubs:
%assign v 0
%rep 32
    dq isr_stub_%[v]
%assign v v + 1
%endrep

; The wake-up interrupt of a parked CPU (kernel/smp/smp.c): acknowledge it and
; return to the HLT loop, which looks for work. Saves the registers the C
; call may clobber; the frame after the CPU's five pushes and these nine is
; 16-byte aligned, as the call needs.
section .text
extern apic_eoi
global irq_wake_stub
irq_wake_stub:
    push rax
    push rcx
    push rdx
    push rsi
    push rdi
    push r8
    push r9
    push r10
    push r11
    cld
    call apic_eoi
    pop r11
    pop r10
    pop r9
    pop r8
    pop rdi
    pop rsi
    pop rdx
    pop rcx
    pop rax
    iretq

; Spurious interrupts need no EOI.
global irq_spurious_stub
irq_spurious_stub:
    iretq
