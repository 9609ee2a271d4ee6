/* SPDX-License-Identifier: MIT */
/*
 * QR codewords (ISO/IEC 18004, level M): what each version holds, the data
 * with its Reed-Solomon error correction, interleaved, and the BCH-coded
 * format and version bits. Knows nothing of the symbol's grid, which
 * kernel/console/qr.c draws from these; the host tests check each part.
 */
#ifndef KERNEL_CONSOLE_QR_WORDS_H
#define KERNEL_CONSOLE_QR_WORDS_H

#include <stddef.h>
#include <stdint.h>

#define QR_VERSION_MAX  40
#define QR_SIZE(v)      (17 + 4 * (v))               /* modules a side of version v */

/* Bytes that version 1..40 holds in byte mode at level M; 0 outside 1..40. */
size_t qr_capacity(unsigned version);

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

#endif
