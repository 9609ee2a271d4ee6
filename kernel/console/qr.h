/* SPDX-License-Identifier: MIT */
/*
 * QR code encoder (ISO/IEC 18004): byte mode, error-correction level M,
 * versions 1 to 40, the mask chosen by the standard's four penalty rules.
 */
#ifndef KERNEL_CONSOLE_QR_H
#define KERNEL_CONSOLE_QR_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/console/qr_words.h"
#include "kernel/lib/errno.h"

#define QR_SIZE_MAX     QR_SIZE(QR_VERSION_MAX)      /* 177 */
#define QR_QUIET        4                            /* light modules around a symbol */
#define QR_MASK_AUTO    (-1)

/* Module flags in struct qr's grid. */
#define QR_DARK         1
#define QR_FUNCTION     2       /* finder, timing, alignment, format or version */

struct qr {
    unsigned version;                   /* 1..40 */
    unsigned size;                      /* modules a side: 17 + 4 * version */
    unsigned mask;                      /* 0..7 */
    uint8_t grid[QR_SIZE_MAX * QR_SIZE_MAX];    /* row-major, QR_* flags */
};

/*
 * Encodes len bytes into the smallest version that holds them, with mask
 * 0..7 or QR_MASK_AUTO (the lowest penalty). Returns 0, or -E2BIG when the
 * bytes exceed version 40's capacity, or -EINVAL for a mask out of range;
 * e says why. The symbol excludes the quiet zone.
 */
int qr_encode(struct qr *qr, const void *data, size_t len, int mask, struct err *e);

/* True when module (x, y) is dark; x and y must be below qr->size. */
static inline int qr_dark(const struct qr *qr, unsigned x, unsigned y)
{
    return qr->grid[y * qr->size + x] & QR_DARK;
}

/* What each version holds, qr_capacity(), and the codewords: kernel/console/qr_words.h. */

/* The symbol's penalty score by the standard's rules N1 to N4 (for the host tests). */
unsigned qr_penalty(const struct qr *qr);

#endif
