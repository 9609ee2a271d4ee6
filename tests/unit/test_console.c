// SPDX-License-Identifier: MIT
// Host test of the screen console (kernel/console/console.c) on an EGA text screen
// in memory: scrolling below pinned rows, and the run's last line, written
// on the last row under a pinned report and QR code, staying on the screen.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kernel/bootinfo/bootinfo.h"
#include "kernel/console/console.h"

#define COLS 12
#define ROWS 4

/* The kernel's glyphs are not needed on a text screen, nor is COM1. */
const uint8_t font8x16[96][16];
void serial_write(const char *s, size_t n)
{
    (void)s;
    (void)n;
}

static uint8_t cells[ROWS][COLS * 2];       /* character, attribute */

static void text_screen(void)
{
    struct bootinfo_fb fb = { .present = true, .addr = (uintptr_t)cells, .pitch = COLS * 2,
                              .width = COLS, .height = ROWS, .type = 2 };

    assert_true((uintptr_t)cells + sizeof(cells) <= (1ull << 32));    /* a -no-pie build */
    assert_true(screen_init(&fb));
}

static void put(const char *s)
{
    screen_write(s, strlen(s));
}

/* One row's text, trailing blanks dropped. */
static const char *row(unsigned r)
{
    static char out[COLS + 1];
    unsigned n = 0;

    for (unsigned c = 0; c < COLS; c++)
        out[c] = cells[r][2 * c] ? (char)cells[r][2 * c] : ' ';
    for (n = COLS; n && out[n - 1] == ' '; n--)
        ;
    out[n] = '\0';
    return out;
}

static void test_scrolls_below_the_pinned_rows(void **state)
{
    (void)state;
    text_screen();
    put("report\n");
    screen_pin();
    put("a\nb\nc\nd\ne");
    assert_string_equal(row(0), "report");
    assert_string_equal(row(1), "c");
    assert_string_equal(row(2), "d");
    assert_string_equal(row(3), "e");
}

/*
 * The end of a run: the report and the QR code fill every row but the last
 * and are pinned; the last line goes on the last row and ends with a
 * newline. It must stay on the screen (it was blanked by that newline when
 * the code reached the last row); text after it rewrites the row.
 */
static void test_last_line_under_a_full_pinned_screen_stays(void **state)
{
    (void)state;
    text_screen();
    put("report\n");
    screen_skip_rows(2);            /* the QR code's rows */
    screen_pin();
    put("bootheap: ok\n");
    assert_string_equal(row(0), "report");
    assert_string_equal(row(3), "bootheap: ok");
    put("more");
    assert_string_equal(row(3), "more");
    put("\n\nend\n");
    assert_string_equal(row(3), "end");
    assert_string_equal(row(0), "report");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scrolls_below_the_pinned_rows),
        cmocka_unit_test(test_last_line_under_a_full_pinned_screen_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
