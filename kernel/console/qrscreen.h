/* SPDX-License-Identifier: MIT */
/* The end of a run on screen: the report, and the results as a QR code below it. */
#ifndef KERNEL_CONSOLE_QRSCREEN_H
#define KERNEL_CONSOLE_QRSCREEN_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/errno.h"

/*
 * Modules of 4 pixels and up: a phone at arm's length reads them from a
 * laptop screen whether the firmware scales an 800x600 mode to the panel
 * (about 1.5 mm a module) or shows it pixel for pixel (about 0.6 mm).
 */
#define QRSCREEN_MIN_PX 4
#define QRSCREEN_MAX_PX 8

/* How a payload was shown. */
struct qrscreen {
    unsigned version, mask;         /* of the symbol; 0 when none was made */
    unsigned module_px;             /* pixels a module on the framebuffer, 0 elsewhere */
    const char *screen;             /* "framebuffer", "text" or "none" */
    const char *place;              /* "under_report", "own_screen"; "" when not drawn */
    uint64_t encode_ticks, draw_ticks;
};

/*
 * Encodes payload as a QR code, draws it below the cursor with its quiet
 * zone (framebuffer: square modules of QRSCREEN_MIN_PX to _MAX_PX pixels,
 * centred; EGA text: half-block characters) leaving the last text row free;
 * a framebuffer with too little room below the cursor is cleared and the
 * code drawn on it alone, under a caption. Prints the code on serial as
 * text blocks. Returns 0 when drawn; -E2BIG when the payload is too large
 * for any version, -ENOSPC when the screen has no room for a readable code
 * even alone, -ENODEV when there is no screen (serial still carries the
 * blocks); e says why.
 */
int qrscreen_show(const char *payload, struct qrscreen *out, struct err *e);

/*
 * The final screen of a run: clears it, writes the report at the top,
 * shows the payload below it or, when it does not fit there, on a screen
 * of its own, and pins what is drawn so later output never scrolls it
 * away. When no code can be drawn it says why and prints the payload as
 * text. Records everything as a `qr` record.
 */
void qrscreen_results(const char *report, const char *payload);

#endif
