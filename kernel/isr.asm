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
