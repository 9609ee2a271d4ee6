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

/* Pixels left for a square between text row `row` and the last row. */
static uint32_t room_px(const struct screen_geometry *g, uint32_t row)
{
    uint32_t top = row * g->row_px, bottom = (g->rows - 1) * g->row_px;

    return MIN(bottom > top ? bottom - top : 0, g->width);
}

/* Pixels a module for n modules a side below text row `row`, as large as
 * fit up to QRSCREEN_MAX_PX; 0 when not even QRSCREEN_MIN_PX fit. */
static unsigned module_px(const struct screen_geometry *g, uint32_t row, unsigned n)
{
    unsigned px = MIN(room_px(g, row) / n, QRSCREEN_MAX_PX);

    return px >= QRSCREEN_MIN_PX ? px : 0;
}

/*
 * Below the report when the code fits there; else on a screen of its own
 * under a caption. Each strategy adds a line to the payload and a row to
 * the report, so the room below the report shrinks as the code grows: ten
 * strategies need version 17 and leave it 352 pixels on 1024x768, where a
 * screen of its own holds version 39 at 4 pixels a module.
 */
static int draw_framebuffer(struct screen_geometry *g, size_t bytes, struct qrscreen *out, struct err *e)
{
    unsigned n = qr.size + 2 * QR_QUIET, px = module_px(g, g->row, n);
    char caption[96];

    out->place = "under_report";
    if (!px) {
        int len = snprintf(caption, sizeof(caption), "bootheap: the results as a QR code, %zu bytes "
                           "(harness add reads them back)\n", bytes);
        uint32_t rows = ((uint32_t)len - 1 + g->cols - 1) / g->cols;
        if (!module_px(g, rows, n))
            return err_set(e, -ENOSPC, "no room for a readable QR code on this %ux%u screen: version %u "
                           "needs %u pixels a side at %u a module, and a screen of its own has %u",
                           g->width, g->height, qr.version, n * QRSCREEN_MIN_PX, QRSCREEN_MIN_PX,
                           room_px(g, rows));
        screen_clear();
        screen_write(caption, (size_t)len);
        screen_pin();
        screen_geometry(g);
        px = module_px(g, g->row, n);
        out->place = "own_screen";
        if (!px)
            return err_set(e, -ENOSPC, "the caption took %u rows of this %ux%u screen, and the QR code "
                           "has no room left under it", g->row, g->width, g->height);
    }
    uint32_t x0 = (g->width - n * px) / 2, top = g->row * g->row_px;
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
static int draw_text(const struct screen_geometry *g, struct qrscreen *out, struct err *e)
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
    out->place = "under_report";
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

    *out = (struct qrscreen){ .screen = "none", .place = "" };
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
        rc = g.text ? draw_text(&g, out, e) : draw_framebuffer(&g, strlen(payload), out, e);
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
        serial_printk("qr: %zu bytes as version %u-M with %u-pixel modules on the %s, %s; encoded "
                      "in %llu us, drawn in %llu us\n", strlen(payload), q.version, q.module_px, q.screen,
                      strcmp(q.place, "own_screen") ? "below the report" : "on a screen of its own",
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
    record_str(&r, "place", rc ? "" : q.place);
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

/*
 * Where the code goes on 1024x768 (48 rows of 16 pixels): the report of ten
 * strategies ends on row 25, leaving 352 pixels, too few for version 17 at
 * 4 pixels a module (372 with the quiet zone). A screen of its own under a
 * one-row caption draws version 17 at 7 pixels, and holds up to version 39
 * (2213 bytes) at 4; version 40 does not fit.
 */
SELFTEST(qr_placement_1024x768)
{
    struct screen_geometry g = { .width = 1024, .height = 768, .cols = 128, .rows = 48, .row_px = 16 };
    unsigned v17 = QR_SIZE(17) + 2 * QR_QUIET, v39 = QR_SIZE(39) + 2 * QR_QUIET;
    unsigned v40 = QR_SIZE(40) + 2 * QR_QUIET;

    KT_EXPECT(t, room_px(&g, 25) == 352, "room below row 25: %u", room_px(&g, 25));
    KT_EXPECT(t, module_px(&g, 25, v17) == 0, "version 17 below the report: %u px", module_px(&g, 25, v17));
    KT_EXPECT(t, module_px(&g, 1, v17) == 7, "version 17 alone: %u px", module_px(&g, 1, v17));
    KT_EXPECT(t, module_px(&g, 1, v39) == 4, "version 39 alone: %u px", module_px(&g, 1, v39));
    KT_EXPECT(t, module_px(&g, 1, v40) == 0, "version 40 alone: %u px", module_px(&g, 1, v40));
    KT_EXPECT(t, qr_capacity(39) == 2213, "version 39 holds %zu bytes", qr_capacity(39));
}
