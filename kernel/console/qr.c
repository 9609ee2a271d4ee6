// SPDX-License-Identifier: MIT
// A QR code encoder written from ISO/IEC 18004:2015: byte mode, level M,
// versions 1 to 40. The function patterns, the zigzag placement of the
// codewords (kernel/console/qr_words.c), and the mask with the lowest penalty.
#include "kernel/console/qr.h"

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"

/*
 * Alignment patterns (Annex E): version v >= 2 has v / 7 + 2 centre
 * coordinates. The first is 6, the last size - 7, and the ones between step
 * down from the last by this distance. (Spacing them evenly by a rounded
 * formula gives the table everywhere except version 32, hence a table.)
 */
static const uint8_t align_step[QR_VERSION_MAX + 1] = {
    0, 0, 12, 16, 20, 24, 28, 16, 18, 20, 22, 24, 26, 28, 20, 22, 24, 24, 26, 28, 28,
    22, 24, 24, 26, 26, 28, 28, 24, 24, 26, 26, 26, 28, 28, 24, 26, 26, 26, 28, 28,
};

static int iabs(int v)
{
    return v < 0 ? -v : v;
}

/* ---- function patterns ------------------------------------------------------ */

static void set_fn(struct qr *qr, unsigned x, unsigned y, bool dark)
{
    qr->grid[y * qr->size + x] = QR_FUNCTION | (dark ? QR_DARK : 0);
}

/* A finder with its light separator; (x0, y0) is the finder's top-left module. */
static void draw_finder(struct qr *qr, int x0, int y0)
{
    for (int dy = -1; dy <= 7; dy++) {
        for (int dx = -1; dx <= 7; dx++) {
            int x = x0 + dx, y = y0 + dy;
            if (x < 0 || y < 0 || x >= (int)qr->size || y >= (int)qr->size)
                continue;
            /* Rings by distance from the centre: 0-1 dark core, 2 light,
             * 3 dark border, 4 the separator. */
            int d = MAX(iabs(dx - 3), iabs(dy - 3));
            set_fn(qr, (unsigned)x, (unsigned)y, d != 2 && d != 4);
        }
    }
}

static void draw_format(struct qr *qr, unsigned mask)
{
    unsigned bits = qr_format_bits(mask), s = qr->size;

    for (unsigned i = 0; i < 15; i++) {
        bool dark = (bits >> i) & 1;
        /* Around the top-left finder: down column 8 (skipping the timing
         * row), then leftwards along row 8 (skipping the timing column). */
        if (i < 6)
            set_fn(qr, 8, i, dark);
        else if (i < 8)
            set_fn(qr, 8, i + 1, dark);
        else if (i == 8)
            set_fn(qr, 7, 8, dark);
        else
            set_fn(qr, 14 - i, 8, dark);
        /* The copy: leftwards along row 8 from the right edge, then down
         * column 8 below the bottom-left finder. */
        if (i < 8)
            set_fn(qr, s - 1 - i, 8, dark);
        else
            set_fn(qr, 8, s - 15 + i, dark);
    }
    set_fn(qr, 8, s - 8, true);         /* the dark module, always dark */
}

static void draw_function_patterns(struct qr *qr)
{
    unsigned s = qr->size, v = qr->version;

    memset(qr->grid, 0, sizeof(qr->grid));
    /* Timing: alternating along row 6 and column 6, dark on even indices;
     * the finders then cover both ends. */
    for (unsigned i = 0; i < s; i++) {
        set_fn(qr, i, 6, i % 2 == 0);
        set_fn(qr, 6, i, i % 2 == 0);
    }
    draw_finder(qr, 0, 0);
    draw_finder(qr, (int)s - 7, 0);
    draw_finder(qr, 0, (int)s - 7);

    if (v >= 2) {
        unsigned n = v / 7 + 2, pos[7];
        pos[0] = 6;
        for (unsigned i = n - 1; i >= 1; i--)
            pos[i] = i == n - 1 ? s - 7 : pos[i + 1] - align_step[v];
        for (unsigned i = 0; i < n; i++) {
            for (unsigned j = 0; j < n; j++) {
                /* Not where a finder sits: three corners of the grid. */
                if ((i == 0 && j == 0) || (i == 0 && j == n - 1) || (i == n - 1 && j == 0))
                    continue;
                for (int dy = -2; dy <= 2; dy++)
                    for (int dx = -2; dx <= 2; dx++)
                        set_fn(qr, pos[i] + dx, pos[j] + dy, MAX(iabs(dx), iabs(dy)) != 1);
            }
        }
    }
    /* Reserve the format modules; the chosen mask's bits go in at the end. */
    draw_format(qr, 0);
    if (v >= 7) {
        /* Two 3 x 6 blocks, beside the top-right and bottom-left finders,
         * one the transpose of the other; bit 0 in the corner nearest the
         * symbol's origin. */
        uint32_t bits = qr_version_bits(v);
        for (unsigned i = 0; i < 18; i++) {
            bool dark = (bits >> i) & 1;
            set_fn(qr, s - 11 + i % 3, i / 3, dark);
            set_fn(qr, i / 3, s - 11 + i % 3, dark);
        }
    }
}

/* ---- placement ------------------------------------------------------------------ */

/*
 * Places the codewords' bits, most significant first, in two-module columns
 * from the bottom-right corner: up the first pair, down the next, and so on
 * leftwards, stepping over column 6 (vertical timing) and every function
 * module. The remainder bits left at the end stay light.
 */
static void place(struct qr *qr, const uint8_t *cw, unsigned ncw)
{
    unsigned s = qr->size, bit = 0, strip = 0;

    for (int right = (int)s - 1; right > 0; right -= 2, strip++) {
        if (right == 6)
            right = 5;
        for (unsigned step = 0; step < s; step++) {
            unsigned y = strip % 2 == 0 ? s - 1 - step : step;
            for (int x = right; x >= right - 1; x--) {
                uint8_t *m = &qr->grid[y * s + (unsigned)x];
                if (*m & QR_FUNCTION)
                    continue;
                if (bit < ncw * 8 && (cw[bit >> 3] & (0x80 >> (bit & 7))))
                    *m |= QR_DARK;
                bit++;
            }
        }
    }
}

/* ---- masks and penalty -------------------------------------------------------- */

/* Whether mask pattern k inverts the module in row i, column j (Table 10). */
static bool mask_bit(unsigned k, unsigned i, unsigned j)
{
    switch (k) {
    case 0: return (i + j) % 2 == 0;
    case 1: return i % 2 == 0;
    case 2: return j % 3 == 0;
    case 3: return (i + j) % 3 == 0;
    case 4: return (i / 2 + j / 3) % 2 == 0;
    case 5: return (i * j) % 2 + (i * j) % 3 == 0;
    case 6: return ((i * j) % 2 + (i * j) % 3) % 2 == 0;
    default: return ((i + j) % 2 + (i * j) % 3) % 2 == 0;
    }
}

/*
 * XORs mask k over the data modules; applying it twice undoes it. Every
 * mask repeats every 12 rows and 6 columns (rows mod 2, 3 and 4, columns
 * mod 2, 3 and 6), so one small table of all eight replaces the arithmetic.
 */
static void apply_mask(struct qr *qr, unsigned k)
{
    static uint8_t period[12][6];       /* bit k: mask k inverts */
    static bool ready;

    if (!ready) {
        for (unsigned i = 0; i < 12; i++)
            for (unsigned j = 0; j < 6; j++)
                for (unsigned m = 0; m < 8; m++)
                    period[i][j] |= (uint8_t)(mask_bit(m, i, j) << m);
        ready = true;
    }
    for (unsigned y = 0; y < qr->size; y++) {
        uint8_t *row = qr->grid + y * qr->size;
        const uint8_t *p = period[y % 12];
        for (unsigned x = 0, j = 0; x < qr->size; x++, j = j == 5 ? 0 : j + 1)
            if (!(row[x] & QR_FUNCTION) && ((p[j] >> k) & 1))
                row[x] ^= QR_DARK;
    }
}

/*
 * Rules N1 and N3 along one row or column: n modules from m, stride apart.
 * One pass, with the modules so far in a 15-bit window (1 dark), the line
 * padded with four light quiet-zone modules at each end.
 */
static unsigned line_penalty(const uint8_t *m, unsigned stride, unsigned n)
{
    unsigned score = 0, run = 0, window = 0;
    int last = -1;

    for (unsigned k = 0; k < n + 8; k++) {
        int dark = k >= 4 && k < n + 4 ? m[(k - 4) * stride] & QR_DARK : 0;
        /* N1: 3 for a run of five modules of one colour, 1 more per extra
         * module; runs in the padding do not count. */
        if (k >= 4 && k < n + 4 && dark == last) {
            run++;
        } else {
            if (run >= 5)
                score += 3 + (run - 5);
            run = k >= 4 && k < n + 4;
            last = dark;
        }
        /* N3: 40 for each dark-light-dark-dark-dark-light-dark (1:1:3:1:1)
         * with four light modules before or after it: the window's middle
         * seven bits are that core, its top or bottom four are zero. */
        window = ((window << 1) | (unsigned)dark) & 0x7fff;
        if (k >= 14 && ((window >> 4) & 0x7f) == 0x5d && ((window >> 11) == 0 || (window & 0xf) == 0))
            score += 40;
    }
    return score;
}

unsigned qr_penalty(const struct qr *qr)
{
    unsigned s = qr->size, score = 0, dark = 0;

    for (unsigned i = 0; i < s; i++)
        score += line_penalty(qr->grid + i * s, 1, s) + line_penalty(qr->grid + i, s, s);
    for (unsigned y = 0; y < s; y++) {
        const uint8_t *row = qr->grid + y * s, *next = row + s;
        for (unsigned x = 0; x < s; x++) {
            int c = row[x] & QR_DARK;
            dark += (unsigned)c;
            /* N2: 3 for every 2 x 2 block of one colour (an m x n block
             * scores 3 (m-1)(n-1), which is its 2 x 2 blocks counted). */
            if (x + 1 < s && y + 1 < s && (row[x + 1] & QR_DARK) == c &&
                (next[x] & QR_DARK) == c && (next[x + 1] & QR_DARK) == c)
                score += 3;
        }
    }
    /* N4: 10 for every full 5% the dark share strays from 50%:
     * k = floor(|100 dark / total - 50| / 5) = floor(|20 dark - 10 total| / total). */
    unsigned total = s * s, twenty = 20 * dark, ten = 10 * total;
    score += 10 * ((twenty > ten ? twenty - ten : ten - twenty) / total);
    return score;
}

/* ---- the whole symbol ---------------------------------------------------------- */

int qr_encode(struct qr *qr, const void *data, size_t len, int mask, struct err *e)
{
    unsigned v = 1;

    if (mask != QR_MASK_AUTO && (mask < 0 || mask > 7))
        return err_set(e, -EINVAL, "QR mask %d: masks are 0 to 7", mask);
    while (v <= QR_VERSION_MAX && qr_capacity(v) < len)
        v++;
    if (v > QR_VERSION_MAX)
        return err_set(e, -E2BIG, "%zu bytes do not fit in a QR code: version %u at level M "
                       "holds %zu", len, QR_VERSION_MAX, qr_capacity(QR_VERSION_MAX));
    qr->version = v;
    qr->size = QR_SIZE(v);
    draw_function_patterns(qr);
    const uint8_t *cw;
    unsigned ncw = qr_codewords(v, data, len, &cw);
    place(qr, cw, ncw);

    /* Every mask in turn, each with its own format bits, scored; the first
     * of the lowest scores wins. */
    unsigned best = mask == QR_MASK_AUTO ? 0 : (unsigned)mask;
    if (mask == QR_MASK_AUTO) {
        unsigned best_score = ~0u;
        for (unsigned k = 0; k < 8; k++) {
            apply_mask(qr, k);
            draw_format(qr, k);
            unsigned score = qr_penalty(qr);
            if (score < best_score) {
                best_score = score;
                best = k;
            }
            apply_mask(qr, k);
        }
    }
    apply_mask(qr, best);
    draw_format(qr, best);
    qr->mask = best;
    return 0;
}
