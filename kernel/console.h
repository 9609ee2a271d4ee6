/* SPDX-License-Identifier: MIT */
/* Consoles: the 16550 serial port (COM1) and the loader's framebuffer. */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bootinfo_fb;

enum { CON_SERIAL = 1, CON_SCREEN = 2, CON_ALL = 3 };

/* Probes COM1 with a loopback test; returns false when no UART answers. */
bool serial_init(void);
bool serial_present(void);
void serial_write(const char *s, size_t n);

/* Starts drawing on the loader's framebuffer; false when it is unusable. */
bool screen_init(const struct bootinfo_fb *fb);
void screen_write(const char *s, size_t n);
/* Physical base and size in bytes of the screen in use; size 0 if none. */
uint64_t screen_phys(uint64_t *bytes);
/* Points the console at a new mapping of the same framebuffer; NULL turns it off. */
void screen_relocate(void *base);

/* Writes to the chosen consoles; "\n" becomes "\r\n" on serial. */
void console_write(unsigned sinks, const char *s, size_t n);

#endif
