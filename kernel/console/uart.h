/* SPDX-License-Identifier: MIT */
/*
 * The 16550 UART on COM1: the ports and bits that kernel/console/serial.c and the
 * 32-bit entry's last-words path (boot/entry.asm, through boot/consts.c)
 * both use.
 */
#ifndef KERNEL_CONSOLE_UART_H
#define KERNEL_CONSOLE_UART_H

#define COM1        0x3f8
#define UART_DATA   0
#define UART_IER    1
#define UART_FCR    2
#define UART_LCR    3
#define UART_MCR    4
#define UART_LSR    5
#define LCR_DLAB    0x80        /* the data port takes the baud divisor */
#define LCR_8N1     0x03
#define LSR_THRE    0x20        /* transmitter holding register empty */
#define MCR_LOOP    0x10

#endif
