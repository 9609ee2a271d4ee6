// SPDX-License-Identifier: MIT
// Host tests for kernel/console/qr.c against vectors from ISO/IEC 18004 and from two
// independent encoders, and round trips through zbar's decoder (zbarimg).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/console/qr.h"
#include "kernel/console/qr_words.h"

static struct qr qr;

/* The deterministic payload tests/unit/qr_vectors.py also builds. */
static const char *pattern(size_t n)
{
    static char buf[4096];
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";

    for (size_t i = 0; i < n; i++)
        buf[i] = alphabet[i * 7 % 36];
    buf[n] = '\0';
    return buf;
}

/* FNV-1a over the rows as '#' (dark) and '.' (light), each ending in '\n'. */
static uint64_t fnv1a(const struct qr *q)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (unsigned y = 0; y < q->size; y++)
        for (unsigned x = 0; x <= q->size; x++)
            h = (h ^ (uint8_t)(x == q->size ? '\n' : qr_dark(q, x, y) ? '#' : '.')) * 0x100000001b3ull;
    return h;
}

/* ISO/IEC 18004:2015 Annex I: the worked example 01234567 as 1-M. Its 16
 * data codewords (numeric mode, padded) give these 10 error-correction
 * codewords. */
static void test_rs_worked_example(void **state)
{
    static const uint8_t data[16] = { 0x10, 0x20, 0x0c, 0x56, 0x61, 0x80, 0xec, 0x11,
                                      0xec, 0x11, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11 };
    static const uint8_t want[10] = { 0xa5, 0x24, 0xd4, 0xc1, 0xed, 0x36, 0xc7, 0x87, 0x2c, 0x55 };
    uint8_t ecc[10];
    (void)state;
    qr_rs_ecc(data, sizeof(data), ecc, sizeof(ecc));
    assert_memory_equal(ecc, want, sizeof(want));
}

/* Annex C, Table C.1: the masked format bits of level M, masks 0 to 7. */
static void test_format_bits(void **state)
{
    static const unsigned want[8] = { 0x5412, 0x5125, 0x5e7c, 0x5b4b, 0x45f9, 0x40ce, 0x4f97, 0x4aa0 };
    (void)state;
    for (unsigned m = 0; m < 8; m++)
        assert_int_equal(qr_format_bits(m), want[m]);
}

/* Annex D, Table D.1: the version bits of versions 7 to 40. */
static void test_version_bits(void **state)
{
    static const uint32_t want[34] = {
        0x07c94, 0x085bc, 0x09a99, 0x0a4d3, 0x0bbf6, 0x0c762, 0x0d847, 0x0e60d, 0x0f928,
        0x10b78, 0x1145d, 0x12a17, 0x13532, 0x149a6, 0x15683, 0x168c9, 0x177ec, 0x18ec4,
        0x191e1, 0x1afab, 0x1b08e, 0x1cc1a, 0x1d33f, 0x1ed75, 0x1f250, 0x209d5, 0x216f0,
        0x228ba, 0x2379f, 0x24b0b, 0x2542e, 0x26a64, 0x27541, 0x28c69,
    };
    (void)state;
    for (unsigned v = 7; v <= 40; v++)
        assert_int_equal(qr_version_bits(v), want[v - 7]);
}

/* Table 7: bytes each version holds in byte mode at level M. */
static void test_capacity(void **state)
{
    static const unsigned want[40] = {
        14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560,
        624, 666, 711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628,
        1722, 1809, 1911, 1989, 2099, 2213, 2331,
    };
    (void)state;
    for (unsigned v = 1; v <= 40; v++)
        assert_int_equal(qr_capacity(v), want[v - 1]);
    assert_int_equal(qr_capacity(0), 0);
    assert_int_equal(qr_capacity(41), 0);
}

/*
 * Whole symbols drawn by libqrencode 4.1.1 (qrencode -8 -l M -m 0 -t ASCII),
 * printed by tests/unit/qr_vectors.py: encoded here with libqrencode's mask,
 * every module must agree. Versions 7 and up carry version bits, 10 and up a
 * 16-bit count, 32 the alignment spacing no formula gives.
 */
static const struct {
    unsigned version;
    const char *text;
    size_t len;
    int mask;
    uint64_t fnv;
} symbols[] = {
    { 1, "bootheap", 8, 7, 0x5b17468890fbacf5ull },
    { 1, NULL, 14, 3, 0x8529d66b321beec3ull },
    { 2, NULL, 20, 2, 0x535a958230dbb15full },
    { 7, NULL, 122, 2, 0x3f00ea39c9256b3bull },
    { 10, NULL, 213, 2, 0xea030ab63cd36e77ull },
    { 14, NULL, 362, 2, 0x6464718910376dd9ull },
    { 21, NULL, 711, 2, 0x7507208ac0f1aee1ull },
    { 27, NULL, 1125, 2, 0x9907848454fab3d1ull },
    { 32, NULL, 1528, 2, 0x45af56222d653246ull },
    { 40, NULL, 2331, 2, 0x733813d533cfe843ull },
};

static const char *const bootheap_v1[21] = {
    "#######..#..#.#######",
    "#.....#...##..#.....#",
    "#.###.#...#...#.###.#",
    "#.###.#..##...#.###.#",
    "#.###.#..#.##.#.###.#",
    "#.....#.#.....#.....#",
    "#######.#.#.#.#######",
    ".....................",
    "#..#.##.#..###.#.....",
    ".##.#..#..##.#..#.###",
    "..#.####..##.###.#..#",
    "##.#....###.###..#.#.",
    ".#.####.##.#..#.#...#",
    "........###..###..#.#",
    "#######...###.###..#.",
    "#.....#.##....#....#.",
    "#.###.#...#.####.#.#.",
    "#.###.#.###..#####.##",
    "#.###.#...##.####.#.#",
    "#.....#...###..##....",
    "#######.#....#...#.#.",
};

static void test_whole_symbols(void **state)
{
    struct err e;
    (void)state;
    for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
        const char *text = symbols[i].text ? symbols[i].text : pattern(symbols[i].len);
        assert_int_equal(qr_encode(&qr, text, symbols[i].len, symbols[i].mask, &e), 0);
        assert_int_equal(qr.version, symbols[i].version);
        assert_int_equal(qr.size, 17 + 4 * symbols[i].version);
        assert_int_equal(qr.mask, symbols[i].mask);
        if (fnv1a(&qr) != symbols[i].fnv)
            fail_msg("version %u (%zu bytes): the symbol differs from libqrencode's",
                     symbols[i].version, symbols[i].len);
    }
    /* The first one module by module, for a readable failure. */
    assert_int_equal(qr_encode(&qr, "bootheap", 8, symbols[0].mask, &e), 0);
    for (unsigned y = 0; y < 21; y++) {
        char row[22];
        for (unsigned x = 0; x < 21; x++)
            row[x] = qr_dark(&qr, x, y) ? '#' : '.';
        row[21] = '\0';
        assert_string_equal(row, bootheap_v1[y]);
    }
}

/*
 * The penalty rules: segno 1.4.1's scores (encoder.mask_scores) of the
 * 14-byte pattern as 1-M under each mask. With the mask left to it, the
 * encoder takes the lowest, the first of equals.
 */
static void test_penalty_and_mask_choice(void **state)
{
    static const unsigned segno[8] = {     1065, 1055, 1074, 1049, 1147, 1207, 1185, 1058 };
    unsigned best = 0;
    struct err e;
    (void)state;
    for (unsigned m = 0; m < 8; m++) {
        assert_int_equal(qr_encode(&qr, pattern(14), 14, (int)m, &e), 0);
        assert_int_equal(qr_penalty(&qr), segno[m]);
        if (segno[m] < segno[best])
            best = m;
    }
    assert_int_equal(qr_encode(&qr, pattern(14), 14, QR_MASK_AUTO, &e), 0);
    assert_int_equal(qr.mask, best);
}

static void test_bad_input(void **state)
{
    struct err e;
    (void)state;
    assert_int_equal(qr_encode(&qr, pattern(2332), 2332, QR_MASK_AUTO, &e), -E2BIG);
    assert_string_equal(e.msg, "2332 bytes do not fit in a QR code: version 40 at level M holds 2331");
    assert_int_equal(qr_encode(&qr, "x", 1, 8, &e), -EINVAL);
    assert_string_equal(e.msg, "QR mask 8: masks are 0 to 7");
    /* Nothing at all still makes a valid symbol. */
    assert_int_equal(qr_encode(&qr, "", 0, QR_MASK_AUTO, &e), 0);
    assert_int_equal(qr.version, 1);
}

/* Draws the symbol with a 4-module quiet zone, px pixels a module, as a PGM. */
static void write_pgm(const char *path, const struct qr *q, unsigned px)
{
    unsigned n = (q->size + 2 * QR_QUIET) * px;
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    fprintf(f, "P5 %u %u 255\n", n, n);
    for (unsigned y = 0; y < n; y++) {
        for (unsigned x = 0; x < n; x++) {
            int mx = (int)(x / px) - QR_QUIET, my = (int)(y / px) - QR_QUIET;
            bool dark = mx >= 0 && my >= 0 && mx < (int)q->size && my < (int)q->size &&
                        qr_dark(q, (unsigned)mx, (unsigned)my);
            fputc(dark ? 0 : 255, f);
        }
    }
    fclose(f);
}

/* zbar's decoder reads back payloads from 1 byte to version 40's 2331. */
static void test_zbarimg_round_trip(void **state)
{
    static const size_t sizes[] = { 1, 14, 15, 100, 251, 252, 700, 1500, 2331 };
    char dir[] = "build/unit/qr-XXXXXX";       /* make test-unit runs from the top */
    static char text[4096], got[4096];
    struct err e;
    (void)state;
    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        /* Printable ASCII of every kind, so nothing depends on zbar's
         * guesses at a character set. */
        for (size_t k = 0; k < n; k++)
            text[k] = (char)(' ' + (k * 31 + n) % 95);
        assert_int_equal(qr_encode(&qr, text, n, QR_MASK_AUTO, &e), 0);
        char pgm[64], cmd[160];
        snprintf(pgm, sizeof(pgm), "%s/%zu.pgm", dir, n);
        write_pgm(pgm, &qr, 3);
        snprintf(cmd, sizeof(cmd), "zbarimg --raw -q -Sdisable -Sqrcode.enable %s 2>/dev/null", pgm);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        size_t len = fread(got, 1, sizeof(got), p);
        int rc = pclose(p);
        if (rc != 0)
            fail_msg("zbarimg could not read the %zu-byte symbol (version %u): exit %d; "
                     "is zbar-tools installed (make setup)?", n, qr.version, rc);
        /* zbarimg ends the payload with a newline. */
        assert_int_equal(len, n + 1);
        assert_memory_equal(got, text, n);
        unlink(pgm);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rs_worked_example),
        cmocka_unit_test(test_format_bits),
        cmocka_unit_test(test_version_bits),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_whole_symbols),
        cmocka_unit_test(test_penalty_and_mask_choice),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_zbarimg_round_trip),
    };
    return cmocka_run_group_tests_name("qr", tests, NULL, NULL);
}
