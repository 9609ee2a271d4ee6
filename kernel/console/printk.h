/* SPDX-License-Identifier: MIT */
/* Formatted output: printk to every console, and a kernel vsnprintf. */
#ifndef KERNEL_CONSOLE_PRINTK_H
#define KERNEL_CONSOLE_PRINTK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/compiler.h"

/*
 * vsnprintf/snprintf: C99 semantics for flags "-+ #0", width and precision
 * (also "*"), lengths hh h l ll z t j, and conversions d i u x X o c s p %.
 * Returns the length the full output would have had.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* Prints to the serial and screen consoles. */
void printk(const char *fmt, ...) __printf(1, 2);
void vprintk(const char *fmt, va_list ap);

/* verbose on the command line: printk_v() prints only then. */
extern bool printk_verbose;
#define printk_v(...) do { if (printk_verbose) printk(__VA_ARGS__); } while (0)

/* Prints to the serial console only: machine-readable records. */
void serial_printk(const char *fmt, ...) __printf(1, 2);

/* Formats a byte count as "512 KiB", "3.50 GiB" into buf; returns buf. */
char *fmt_size(char *buf, size_t size, uint64_t bytes);


#endif
