// SPDX-License-Identifier: MIT
// QR codewords (ISO/IEC 18004:2015): the byte-mode bit stream, its blocks
// with Reed-Solomon error correction over GF(256), interleaved, and the
// BCH-coded format and version bits. kernel/console/qr.c draws them.
#include "kernel/console/qr_words.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

/*
 * Level M, per version (Table 9): error-correction codewords in each block,
 * and the number of blocks. Index 0 is unused.
 */
static const uint8_t ecc_per_block[QR_VERSION_MAX + 1] = {
    0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
    26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
};
static const uint8_t ecc_blocks[QR_VERSION_MAX + 1] = {
    0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
    17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
};

#define MODE_BYTE       0x4     /* mode indicator 0100 */
#define FORMAT_GEN      0x537   /* BCH(15,5) generator: x^10+x^8+x^5+x^4+x^2+x+1 */
#define FORMAT_XOR      0x5412  /* keeps the format bits from being all zero */
#define VERSION_GEN     0x1f25  /* BCH(18,6) generator: x^12+x^11+x^10+x^9+x^8+x^5+x^2+1 */
#define LEVEL_M         0x0     /* the two level bits: L 01, M 00, Q 11, H 10 */
#define MAX_CODEWORDS   3706    /* version 40 */

/* Scratch for one symbol: the codeword stream and its interleaved order. */
static uint8_t data_cw[MAX_CODEWORDS];
static uint8_t final_cw[MAX_CODEWORDS];

/*
 * Modules left for codewords once every function pattern is drawn: the
 * three finders with separators (8 x 8 each), two timing lines between
 * them, 31 format modules (two copies of 15 and the dark module), the
 * alignment patterns (n x n minus the three at the finders, 25 modules
 * each, less the 5 each shares with a timing line when it sits on one),
 * and 2 x 18 version modules from version 7.
 */
static unsigned raw_modules(unsigned version)
{
    unsigned size = QR_SIZE(version), n = version / 7 + 2;
    unsigned raw = size * size - 3 * 64 - 2 * (size - 16) - 31;

    if (version >= 2)
        raw -= 25 * (n * n - 3) - 2 * 5 * (n - 2);
    if (version >= 7)
        raw -= 36;
    return raw;
}

static unsigned total_codewords(unsigned version)
{
    return raw_modules(version) / 8;
}

static unsigned data_codewords(unsigned version)
{
    return total_codewords(version) - ecc_per_block[version] * ecc_blocks[version];
}

/* Bits of the character count: 8 up to version 9, 16 from version 10. */
static unsigned count_bits(unsigned version)
{
    return version <= 9 ? 8 : 16;
}

size_t qr_capacity(unsigned version)
{
    if (version < 1 || version > QR_VERSION_MAX)
        return 0;
    return (data_codewords(version) * 8 - 4 - count_bits(version)) / 8;
}

/* ---- GF(256) and Reed-Solomon -------------------------------------------- */

/*
 * GF(2^8) modulo x^8+x^4+x^3+x^2+1 (0x11d), whose element a = 2 generates
 * every non-zero element: products through powers of a, a^i = gf_exp[i]
 * and i = gf_log[a^i]. gf_exp is doubled so a sum of two logs needs no
 * reduction mod 255.
 */
static uint8_t gf_exp[510], gf_log[256];

static void gf_init(void)
{
    unsigned x = 1;

    if (gf_exp[0])
        return;
    for (unsigned i = 0; i < 255; i++) {
        gf_exp[i] = gf_exp[i + 255] = (uint8_t)x;
        gf_log[x] = (uint8_t)i;
        x <<= 1;
        if (x & 0x100)
            x ^= 0x11d;
    }
}

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
    return a && b ? gf_exp[gf_log[a] + gf_log[b]] : 0;
}

void qr_rs_ecc(const uint8_t *data, size_t n, uint8_t *ecc, unsigned necc)
{
    /*
     * The generator is the product of (x - a^i) for i < necc, with a = 2;
     * g[] holds its coefficients, highest degree first (g[0] = 1).
     * Subtraction is XOR, so each factor is (x + a^i): multiplying by it
     * adds root times each coefficient to the next one down.
     */
    uint8_t g[33] = { 1 };
    uint8_t root = 1;

    gf_init();
    for (unsigned d = 0; d < necc; d++) {
        g[d + 1] = gf_mul(g[d], root);
        for (unsigned k = d; k >= 1; k--)
            g[k] ^= gf_mul(g[k - 1], root);
        root = gf_mul(root, 2);
    }
    /* The remainder of data(x) * x^necc divided by the generator: long
     * division, one data codeword at a time. */
    memset(ecc, 0, necc);
    for (size_t i = 0; i < n; i++) {
        uint8_t factor = data[i] ^ ecc[0];
        memmove(ecc, ecc + 1, necc - 1);
        ecc[necc - 1] = 0;
        for (unsigned j = 0; j < necc; j++)
            ecc[j] ^= gf_mul(g[j + 1], factor);
    }
}

/* ---- format and version information --------------------------------------- */

/* Remainder of value (already shifted up by the generator's degree) over gen. */
static uint32_t bch_remainder(uint32_t value, uint32_t gen)
{
    unsigned deg = fls64(gen) - 1;

    for (unsigned bit = fls64(value); bit-- > deg;)
        if (value & (1u << bit))
            value ^= gen << (bit - deg);
    return value;
}

unsigned qr_format_bits(unsigned mask)
{
    unsigned data = LEVEL_M << 3 | (mask & 7);

    return ((data << 10) | bch_remainder(data << 10, FORMAT_GEN)) ^ FORMAT_XOR;
}

uint32_t qr_version_bits(unsigned version)
{
    return (version << 12) | bch_remainder(version << 12, VERSION_GEN);
}

/* ---- the codeword stream ------------------------------------------------------ */

/* Appends the low n bits of value, most significant first. */
static void put_bits(uint8_t *buf, unsigned *pos, uint32_t value, unsigned n)
{
    while (n--) {
        if ((value >> n) & 1)
            buf[*pos >> 3] |= 0x80 >> (*pos & 7);
        (*pos)++;
    }
}

/* Mode, count, data, terminator, pad bytes: the data codewords (7.4). */
static void make_data_codewords(unsigned version, const uint8_t *data, size_t len)
{
    unsigned ndata = data_codewords(version), pos = 0;

    memset(data_cw, 0, ndata);
    put_bits(data_cw, &pos, MODE_BYTE, 4);
    put_bits(data_cw, &pos, (uint32_t)len, count_bits(version));
    for (size_t i = 0; i < len; i++)
        put_bits(data_cw, &pos, data[i], 8);
    /* Up to four terminator zeros, zeros to a byte boundary (the buffer
     * holds them already), then 11101100 and 00010001 in turn. */
    pos = MIN(pos + 4, ndata * 8);
    pos = ALIGN_UP(pos, 8u);
    for (unsigned i = 0; pos / 8 < ndata; i++)
        put_bits(data_cw, &pos, i % 2 ? 0x11 : 0xec, 8);
}

/*
 * Splits the data codewords into blocks (the short ones first, the rest one
 * codeword longer), computes each block's error correction, and interleaves:
 * codeword i of every block in turn, data first, then error correction.
 */
unsigned qr_codewords(unsigned version, const uint8_t *data, size_t len, const uint8_t **out)
{
    unsigned nblocks = ecc_blocks[version], necc = ecc_per_block[version];
    unsigned ndata = data_codewords(version), total = total_codewords(version);
    unsigned short_len = ndata / nblocks, nlong = ndata % nblocks;
    uint8_t ecc[32];

    make_data_codewords(version, data, len);
    for (unsigned b = 0, start = 0; b < nblocks; b++) {
        unsigned blen = short_len + (b >= nblocks - nlong);
        qr_rs_ecc(data_cw + start, blen, ecc, necc);
        /* Data codeword i of block b; the long blocks' extra one goes last. */
        for (unsigned i = 0; i < blen; i++) {
            unsigned at = i < short_len ? i * nblocks + b
                                        : short_len * nblocks + (b - (nblocks - nlong));
            final_cw[at] = data_cw[start + i];
        }
        for (unsigned i = 0; i < necc; i++)
            final_cw[ndata + i * nblocks + b] = ecc[i];
        start += blen;
    }
    *out = final_cw;
    return total;
}
