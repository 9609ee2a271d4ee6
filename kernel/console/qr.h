/* SPDX-License-Identifier: MIT */
/*
 * QR code encoder (ISO/IEC 18004): byte mode, error-correction level M,
 * versions 1 to 40, the mask chosen by the standard's four penalty rules.
 */
#ifndef KERNEL_CONSOLE_QR_H
#define KERNEL_CONSOLE_QR_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/errno.h"

#define QR_VERSION_MAX  40
#define QR_SIZE(v)      (17 + 4 * (v))               /* modules a side of version v */
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

/* Bytes that version 1..40 holds in byte mode at level M; 0 outside 1..40. */
size_t qr_capacity(unsigned version);

/* The parts: kernel/console/qr_words.c's, for kernel/console/qr.c and the host tests. */
/*
 * The codewords of len bytes (at most qr_capacity(version)) in version's
 * symbol: data and error correction, interleaved. Sets *out to a static
 * buffer, valid until the next call; returns the number of codewords.
 */
unsigned qr_codewords(unsigned version, const uint8_t *data, size_t len, const uint8_t **out);
/* Writes to ecc the necc (1 to 32) Reed-Solomon codewords of n data codewords. */
void qr_rs_ecc(const uint8_t *data, size_t n, uint8_t *ecc, unsigned necc);
/* The 15 format bits (level M, mask 0..7), BCH-coded and XOR-masked. */
unsigned qr_format_bits(unsigned mask);
/* The 18 version bits (version 7..40), BCH-coded. */
uint32_t qr_version_bits(unsigned version);
/* The symbol's penalty score by the standard's rules N1 to N4. */
unsigned qr_penalty(const struct qr *qr);

#endif
