// SPDX-License-Identifier: MIT
// The screen console on the loader's framebuffer (RGB, 16 to 32 bits per
// pixel, with an 8x16 font) or on an EGA text buffer, and the fan-out of
// console output to serial and screen.
#include "kernel/console/console.h"

#include "kernel/bootinfo/bootinfo.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/string.h"

#define GLYPH_W 8
#define GLYPH_H 16

/* build/font.c, made from a console font of Debian's kbd package. */
extern const uint8_t font8x16[96][16];

static struct {
    bool on;
    uint8_t *base;          /* where the framebuffer is mapped now */
    uint64_t phys;
    uint32_t pitch, width, height, bpp, type;
    uint32_t cols, rows, col, row;
    uint32_t pin;           /* rows above this one never scroll */
    bool wrap;              /* the last column is written: wrap before the next glyph */
    bool rewrite;           /* every row above the last is pinned and the last was ended:
                               blank it before the next glyph, not at once */
    uint32_t fg, bg, white;
} scr;

static void screen_clear_line_px(uint32_t y);

static uint32_t rgb(const struct bootinfo_fb *fb, uint8_t r, uint8_t g, uint8_t b)
{
    return ((uint32_t)(r >> (8 - fb->red_size)) << fb->red_pos) |
           ((uint32_t)(g >> (8 - fb->green_size)) << fb->green_pos) |
           ((uint32_t)(b >> (8 - fb->blue_size)) << fb->blue_pos);
}

bool screen_init(const struct bootinfo_fb *fb)
{
    scr.on = false;
    if (!fb->present)
        return false;
    if (fb->type == 2) {                    /* EGA text: 2 bytes per cell */
        scr.cols = fb->width;
        scr.rows = fb->height;
    } else if (fb->type == 1 && fb->bpp >= 16 && fb->bpp <= 32 && fb->bpp % 8 == 0 &&
               fb->red_size && fb->red_size <= 8 && fb->green_size && fb->green_size <= 8 &&
               fb->blue_size && fb->blue_size <= 8) {
        scr.cols = fb->width / GLYPH_W;
        scr.rows = fb->height / GLYPH_H;
        scr.fg = rgb(fb, 0xd0, 0xd0, 0xd0);
        scr.bg = rgb(fb, 0, 0, 0);
        scr.white = rgb(fb, 0xff, 0xff, 0xff);
    } else {
        return false;                       /* indexed colour: not drawn */
    }
    if (!scr.cols || !scr.rows || fb->addr == 0 || fb->addr + (uint64_t)fb->pitch * fb->height > (1ull << 32))
        return false;                       /* must sit in the boot identity map */
    scr.phys = fb->addr;
    scr.base = (uint8_t *)(uintptr_t)fb->addr;
    scr.pitch = fb->pitch;
    scr.width = fb->width;
    scr.height = fb->height;
    scr.bpp = fb->bpp;
    scr.type = fb->type;
    scr.on = true;
    screen_clear();
    return true;
}

void screen_clear(void)
{
    if (!scr.on)
        return;
    for (uint32_t y = 0; y < (scr.type == 2 ? scr.rows : scr.height); y++)
        screen_clear_line_px(y);
    scr.col = scr.row = scr.pin = 0;
    scr.wrap = scr.rewrite = false;
}

void screen_pin(void)
{
    scr.pin = MIN(scr.row + (scr.col > 0 || scr.wrap), scr.rows);
}

void screen_skip_rows(uint32_t n)
{
    scr.col = 0;
    scr.wrap = scr.rewrite = false;
    scr.row = MIN(scr.row + n, scr.rows - 1);
}

bool screen_geometry(struct screen_geometry *g)
{
    if (!scr.on)
        return false;
    *g = (struct screen_geometry){ .text = scr.type == 2, .width = scr.width, .height = scr.height,
                                   .cols = scr.cols, .rows = scr.rows, .row = scr.row,
                                   .row_px = scr.type == 2 ? 1 : GLYPH_H };
    return true;
}

void screen_fill(uint32_t x, uint32_t y, uint32_t w, uint32_t h, bool light)
{
    uint32_t colour = light ? scr.white : scr.bg, bytes = scr.bpp / 8;

    if (!scr.on || scr.type == 2 || x >= scr.width || y >= scr.height)
        return;
    w = MIN(w, scr.width - x);
    h = MIN(h, scr.height - y);
    for (uint32_t row = y; row < y + h; row++) {
        uint8_t *p = scr.base + (uint64_t)row * scr.pitch + (uint64_t)x * bytes;
        if (bytes == 4) {
            for (uint32_t i = 0; i < w; i++)
                ((uint32_t *)p)[i] = colour;
            continue;
        }
        for (uint32_t i = 0; i < w * bytes; i++)
            p[i] = (uint8_t)(colour >> (8 * (i % bytes)));
    }
}

void screen_cell(uint32_t col, uint32_t row, uint8_t ch, uint8_t attr)
{
    if (!scr.on || scr.type != 2 || col >= scr.cols || row >= scr.rows)
        return;
    uint8_t *cell = scr.base + (uint64_t)row * scr.pitch + col * 2;
    cell[0] = ch;
    cell[1] = attr;
}

void screen_relocate(void *base)
{
    scr.base = base;
    scr.on = base != NULL;
}

uint64_t screen_phys(uint64_t *bytes)
{
    *bytes = scr.on ? (uint64_t)scr.pitch * (scr.type == 2 ? scr.rows : scr.height) : 0;
    return scr.phys;
}

static void screen_clear_line_px(uint32_t y)
{
    uint8_t *line = scr.base + (uint64_t)y * scr.pitch;

    if (scr.type == 2) {
        for (uint32_t x = 0; x < scr.cols; x++) {
            line[2 * x] = ' ';
            line[2 * x + 1] = 0x07;
        }
        return;
    }
    /* A pixel a store: the screen of its own for the QR code clears all
     * 768 rows of 1024x768 in one go. */
    screen_fill(0, y, scr.width, 1, false);
}

static void put_pixel(uint32_t x, uint32_t y, uint32_t colour)
{
    uint8_t *p = scr.base + (uint64_t)y * scr.pitch + x * (scr.bpp / 8);

    for (uint32_t b = 0; b < scr.bpp / 8; b++)
        p[b] = (uint8_t)(colour >> (8 * b));
}

static void draw_char(char c)
{
    unsigned char uc = (unsigned char)c;

    if (scr.type == 2) {
        uint8_t *cell = scr.base + (uint64_t)scr.row * scr.pitch + scr.col * 2;
        cell[0] = uc;
        cell[1] = 0x07;
        return;
    }
    const uint8_t *g = font8x16[(uc >= 0x20 && uc < 0x80 ? uc : '?') - 0x20];
    for (uint32_t y = 0; y < GLYPH_H; y++)
        for (uint32_t x = 0; x < GLYPH_W; x++)
            put_pixel(scr.col * GLYPH_W + x, scr.row * GLYPH_H + y,
                      (g[y] & (0x80 >> x)) ? scr.fg : scr.bg);
}

static void clear_last_row(void)
{
    uint32_t line_px = scr.type == 2 ? 1 : GLYPH_H;

    for (uint32_t y = 0; y < line_px; y++)
        screen_clear_line_px((scr.rows - 1) * line_px + y);
}

static void newline(void)
{
    scr.col = 0;
    scr.wrap = false;
    if (scr.row + 1 < scr.rows) {
        scr.row++;
        return;
    }
    /* With every row above the last pinned, the last row is rewritten in
     * place, but only when more text comes: the run's last line (under its
     * QR code) stays on the screen. */
    if (scr.pin + 1 >= scr.rows) {
        scr.rewrite = true;
        return;
    }
    /* Scroll one text row, below the pinned rows only. */
    uint64_t row_bytes = (uint64_t)scr.pitch * (scr.type == 2 ? 1 : GLYPH_H);
    memmove(scr.base + row_bytes * scr.pin, scr.base + row_bytes * (scr.pin + 1),
            row_bytes * (scr.rows - 1 - scr.pin));
    clear_last_row();
}

void screen_write(const char *s, size_t n)
{
    /* With every row pinned, later text has nowhere to go on the screen. */
    for (size_t i = 0; i < n && scr.on && scr.pin < scr.rows; i++) {
        char c = s[i];
        if (c == '\n') {
            newline();
        } else if (c == '\r') {
            scr.col = 0;
            scr.wrap = false;
        } else if (c == '\t') {
            do
                screen_write(" ", 1);
            while (!scr.wrap && scr.col % 8);
        } else {
            /* A line exactly as wide as the screen leaves the cursor on
             * its last column; only a further glyph wraps. */
            if (scr.wrap)
                newline();
            if (scr.rewrite) {
                clear_last_row();
                scr.rewrite = false;
            }
            draw_char(c);
            if (scr.col + 1 < scr.cols)
                scr.col++;
            else
                scr.wrap = true;
        }
    }
}

void console_write(unsigned sinks, const char *s, size_t n)
{
    if (sinks & CON_SERIAL)
        serial_write(s, n);
    if (sinks & CON_SCREEN)
        screen_write(s, n);
}
