/* SPDX-License-Identifier: MIT */
/* Consoles: the 16550 serial port (COM1) and the loader's framebuffer. */
#ifndef KERNEL_CONSOLE_CONSOLE_H
#define KERNEL_CONSOLE_CONSOLE_H

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

/* The screen in use: pixels (text: cells), text rows and columns, the cursor's row. */
struct screen_geometry {
    bool text;                      /* EGA text cells, not pixels */
    uint32_t width, height;
    uint32_t cols, rows, row;
    uint32_t row_px;                /* pixels a text row (1 in text mode) */
};
/* Fills *g; false when there is no screen. */
bool screen_geometry(struct screen_geometry *g);
/* Blanks the screen and homes the cursor; nothing stays pinned. */
void screen_clear(void);
/* Rows above the cursor's (and its own when it holds text) stay put: later
 * text scrolls only below them, or is not shown when no row is left. */
void screen_pin(void);
/* Moves the cursor n rows down, to column 0: room for a drawing. */
void screen_skip_rows(uint32_t n);
/* Paints pixels [x, x + w) x [y, y + h) white (light) or black; framebuffer only. */
void screen_fill(uint32_t x, uint32_t y, uint32_t w, uint32_t h, bool light);
/* Writes one EGA text cell: code page 437 character and attribute; text mode only. */
void screen_cell(uint32_t col, uint32_t row, uint8_t ch, uint8_t attr);

/* Writes to the chosen consoles; "\n" becomes "\r\n" on serial. */
void console_write(unsigned sinks, const char *s, size_t n);

#endif
