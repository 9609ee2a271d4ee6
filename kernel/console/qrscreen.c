// SPDX-License-Identifier: MIT
// The results as a QR code at the end of a run: drawn on the framebuffer or
// the EGA text screen below the report, printed on serial as text blocks,
// and recorded.
#include "kernel/console/qrscreen.h"

#include "kernel/console/console.h"
#include "kernel/console/printk.h"
#include "kernel/console/qr.h"
#include "kernel/console/record.h"
#include "kernel/lib/selftest.h"
#include "kernel/lib/string.h"
#include "kernel/time/tsc.h"

/* Code page 437 blocks for the EGA text screen, white on black. */
#define CP437_FULL      0xdb
#define CP437_UPPER     0xdf
#define CP437_LOWER     0xdc
#define EGA_WHITE       0x0f

static struct qr qr;               /* 31 KiB: one symbol */

/* Module (x, y) counted from the quiet zone's corner: light outside the symbol. */
static bool light_at(unsigned x, unsigned y)
{
    if (x < QR_QUIET || y < QR_QUIET || x >= QR_QUIET + qr.size || y >= QR_QUIET + qr.size)
        return true;
    return !qr_dark(&qr, x - QR_QUIET, y - QR_QUIET);
}

/* Square modules as large as fit between the cursor and the last row, centred. */
static int draw_framebuffer(const struct screen_geometry *g, struct qrscreen *out, struct err *e)
{
    unsigned n = qr.size + 2 * QR_QUIET;
    uint32_t top = g->row * g->row_px, bottom = (g->rows - 1) * g->row_px;
    uint32_t room = MIN(bottom > top ? bottom - top : 0, g->width);
    unsigned px = MIN(room / n, QRSCREEN_MAX_PX);

    if (px < QRSCREEN_MIN_PX)
        return err_set(e, -ENOSPC, "no room for a readable QR code on this %ux%u screen: version %u "
                       "needs %u pixels a side at %u a module, and %u are left below the report",
                       g->width, g->height, qr.version, n * QRSCREEN_MIN_PX, QRSCREEN_MIN_PX, room);
    uint32_t x0 = (g->width - n * px) / 2;
    for (unsigned y = 0; y < n; y++) {
        /* Each run of one colour along a row of modules is one fill. */
        for (unsigned x = 0, run; x < n; x += run) {
            bool light = light_at(x, y);
            for (run = 1; x + run < n && light_at(x + run, y) == light; run++)
                ;
            screen_fill(x0 + x * px, top + y * px, run * px, px, light);
        }
    }
    out->module_px = px;
    screen_skip_rows((n * px + g->row_px - 1) / g->row_px);
    return 0;
}

/* Two modules a character cell, stacked: a cell is about twice as tall as wide. */
static int draw_text(const struct screen_geometry *g, struct err *e)
{
    unsigned n = qr.size + 2 * QR_QUIET, cells = (n + 1) / 2;
    unsigned left = g->rows > g->row + 1 ? g->rows - 1 - g->row : 0;

    if (n > g->cols || cells > left)
        return err_set(e, -ENOSPC, "no room for the QR code on this %ux%u text screen: version %u in "
                       "half blocks needs %u columns and %u rows, and %u rows are free", g->cols,
                       g->rows, qr.version, n, cells, left);
    unsigned c0 = (g->cols - n) / 2;
    for (unsigned r = 0; r < cells; r++) {
        for (unsigned x = 0; x < n; x++) {
            bool up = light_at(x, 2 * r), down = 2 * r + 1 < n && light_at(x, 2 * r + 1);
            uint8_t ch = up && down ? CP437_FULL : up ? CP437_UPPER : down ? CP437_LOWER : ' ';
            screen_cell(c0 + x, g->row + r, ch, EGA_WHITE);
        }
    }
    screen_skip_rows(cells);
    return 0;
}

/*
 * Serial: two module rows a line in UTF-8 blocks. Light modules are the
 * glyphs, so a terminal with a dark background shows the code as printed
 * (and one with a light background shows it inverted).
 */
static void serial_blocks(void)
{
    /* Indexed by (upper light) * 2 + (lower light): none, lower half, upper half, full. */
    static const char *const glyph[4] = { " ", "\xe2\x96\x84", "\xe2\x96\x80", "\xe2\x96\x88" };
    unsigned n = qr.size + 2 * QR_QUIET;
    char line[3 * (QR_SIZE_MAX + 2 * QR_QUIET) + 1];

    for (unsigned y = 0; y < n; y += 2) {
        size_t k = 0;
        for (unsigned x = 0; x < n; x++) {
            const char *gl = glyph[light_at(x, y) * 2 + (y + 1 < n && light_at(x, y + 1))];
            size_t len = strlen(gl);
            memcpy(line + k, gl, len);
            k += len;
        }
        line[k++] = '\n';
        console_write(CON_SERIAL, line, k);
    }
}

int qrscreen_show(const char *payload, struct qrscreen *out, struct err *e)
{
    struct screen_geometry g;

    *out = (struct qrscreen){ .screen = "none" };
    uint64_t t0 = tsc_now();
    int rc = qr_encode(&qr, payload, strlen(payload), QR_MASK_AUTO, e);
    uint64_t t1 = tsc_now();
    out->encode_ticks = t1 - t0;
    if (rc)
        return rc;
    out->version = qr.version;
    out->mask = qr.mask;
    if (!screen_geometry(&g)) {
        rc = err_set(e, -ENODEV, "no screen to draw the QR code on");
    } else {
        out->screen = g.text ? "text" : "framebuffer";
        rc = g.text ? draw_text(&g, e) : draw_framebuffer(&g, out, e);
    }
    out->draw_ticks = tsc_now() - t1;
    serial_printk("qr: the results as a QR code, version %u-M, mask %u (light modules drawn):\n",
                  qr.version, qr.mask);
    serial_blocks();
    return rc;
}

static void record_us(struct record *r, const char *key, uint64_t ticks)
{
    if (tsc_calibrated())
        record_u64(r, key, tsc_to_ns(ticks) / 1000);
    else
        record_null(r, key);
}

void qrscreen_results(const char *report, const char *payload)
{
    struct qrscreen q;
    struct err e = { "" };
    struct record r;

    /* The report once more, at the top of a clean screen, and kept there. */
    screen_clear();
    screen_write(report, strlen(report));
    screen_pin();
    int rc = qrscreen_show(payload, &q, &e);
    if (rc && rc != -ENODEV) {
        /* No code: say why, and show the payload as text. When the report
         * leaves too few rows for that, the payload replaces it on screen
         * (serial has both). */
        struct screen_geometry g;
        if (screen_geometry(&g)) {
            /* The message with its prefix, the payload's lines, the last line. */
            unsigned lines = 1 + (unsigned)(strlen(e.msg) + 30) / g.cols + 2;
            for (const char *p = payload; *p; p++)
                lines += *p == '\n';
            if (g.row + lines > g.rows)
                screen_clear();
        }
        printk("qr: %s; the payload as text:\n%s\n", e.msg, payload);
    }
    screen_pin();
    if (!rc)
        serial_printk("qr: %zu bytes as version %u-M with %u-pixel modules on the %s; encoded in "
                      "%llu us, drawn in %llu us\n", strlen(payload), q.version, q.module_px, q.screen,
                      (unsigned long long)(tsc_to_ns(q.encode_ticks) / 1000),
                      (unsigned long long)(tsc_to_ns(q.draw_ticks) / 1000));

    record_begin(&r, "qr");
    record_str(&r, "payload", payload);
    record_u64(&r, "bytes", strlen(payload));
    if (q.version) {
        record_u64(&r, "version", q.version);
        record_u64(&r, "mask", q.mask);
    } else {
        record_null(&r, "version");
        record_null(&r, "mask");
    }
    record_str(&r, "screen", q.screen);
    record_bool(&r, "drawn", rc == 0);
    record_u64(&r, "module_px", q.module_px);
    record_str(&r, "reason", rc ? e.msg : "");
    record_us(&r, "encode_us", q.encode_ticks);
    record_us(&r, "draw_us", q.draw_ticks);
    record_end(&r);
}

/* A payload beyond version 40 is refused with a reason, and nothing is drawn. */
SELFTEST(qr_payload_too_large)
{
    static char big[2400 + 1];
    struct qrscreen q;
    struct err e = { "" };

    memset(big, 'x', sizeof(big) - 1);
    int rc = qrscreen_show(big, &q, &e);
    KT_EXPECT(t, rc == -E2BIG, "qrscreen_show returned %d", rc);
    KT_EXPECT(t, !strcmp(e.msg, "2400 bytes do not fit in a QR code: version 40 at level M holds 2331"),
              "message: %s", e.msg);
    KT_EXPECT(t, q.version == 0 && !strcmp(q.screen, "none"), "version %u on %s", q.version, q.screen);
}
