// SPDX-License-Identifier: MIT
// 16550 UART on COM1, 115200 8N1, polled. Every wait is bounded: a machine
// without a UART reads 0xff from the ports, fails the loopback test, and the
// console simply stays off.
#include "kernel/console/console.h"
#include "kernel/console/uart.h"
#include "kernel/cpu.h"

/* Polls of LSR before a character is given up: about 100 character times. */
#define TX_SPIN_LIMIT 100000

static bool present;

bool serial_init(void)
{
    outb(COM1 + UART_IER, 0x00);
    outb(COM1 + UART_LCR, LCR_DLAB);    /* divisor follows */
    outb(COM1 + UART_DATA, 1);          /* 115200 baud */
    outb(COM1 + UART_IER, 0);
    outb(COM1 + UART_LCR, LCR_8N1);
    outb(COM1 + UART_FCR, 0xc7);        /* FIFOs on and cleared */

    /* Loopback: a real 16550 echoes the byte back. */
    outb(COM1 + UART_MCR, MCR_LOOP | 0x0b);
    outb(COM1 + UART_DATA, 0xa5);
    bool echoed = false;
    for (int i = 0; i < 1000 && !echoed; i++)
        echoed = (inb(COM1 + UART_LSR) & 0x01) && inb(COM1 + UART_DATA) == 0xa5;
    outb(COM1 + UART_MCR, 0x0b);        /* normal mode, DTR, RTS, OUT2 */
    present = echoed;
    return present;
}

bool serial_present(void)
{
    return present;
}

static void serial_putc(char c)
{
    for (int i = 0; i < TX_SPIN_LIMIT; i++) {
        if (inb(COM1 + UART_LSR) & LSR_THRE) {
            outb(COM1 + UART_DATA, (uint8_t)c);
            return;
        }
        cpu_relax();
    }
    /* The UART stopped draining: stop using it rather than stall boot. */
    present = false;
}

void serial_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n && present; i++) {
        if (s[i] == '\n')
            serial_putc('\r');
        serial_putc(s[i]);
    }
}
