// SPDX-License-Identifier: MIT
// The runner's map-file format as docs/usage-hosted.md ("Map files") states it,
// read without hosted/platform/mapfile.c's code: lines split at '\n', a
// comment cut at '#', fields between blanks (space, tab, and the CR of a
// CRLF end), each field checked by the rule for its column.
#include "tests/fuzz/mapfile_ref.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "kernel/lib/errno.h"

static const char *const names[] = { "RAM", "reserved", "ACPI", "NVS", "unusable" };

struct field {
    const char *p;
    size_t n;
};

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Hexadecimal, "0x" or "0X" first or not, worth less than 2^64. */
static bool address(struct field f, uint64_t *v)
{
    if (f.n > 2 && f.p[0] == '0' && (f.p[1] == 'x' || f.p[1] == 'X'))
        f.p += 2, f.n -= 2;
    if (f.n == 0)
        return false;
    unsigned significant = 0;
    uint64_t x = 0;
    for (size_t i = 0; i < f.n; i++) {
        int d = hex_digit(f.p[i]);
        if (d < 0)
            return false;
        significant += significant || d;
        x = x << 4 | (uint64_t)d;
    }
    *v = x;
    return significant <= 16;
}

/* A decimal from 1 to 2^32 - 1 without leading zeros, or one of the five names in any case. */
static bool type(struct field f, uint32_t *t)
{
    if (f.n && f.p[0] >= '1' && f.p[0] <= '9') {
        uint64_t x = 0;
        for (size_t i = 0; i < f.n; i++) {
            if (f.p[i] < '0' || f.p[i] > '9' || i >= 10)
                return false;
            x = x * 10 + (uint64_t)(f.p[i] - '0');
        }
        *t = (uint32_t)x;
        return x <= UINT32_MAX;
    }
    for (uint32_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (f.n == strlen(names[i]) && !strncasecmp(f.p, names[i], f.n)) {
            *t = E820_RAM + i;
            return true;
        }
    }
    return false;
}

/* One line: -1 when it is wrong, 0 when it holds no range, 1 with the range in *m. */
static int one_line(const char *p, size_t n, struct mmap_entry *m)
{
    struct field f[4];
    unsigned nf = 0;
    uint64_t start, end;
    uint32_t t;

    for (size_t i = 0; i < n && p[i] != '#';) {
        if (blank(p[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && !blank(p[j]) && p[j] != '#')
            j++;
        if (nf == 4)
            return -1;
        f[nf++] = (struct field){ p + i, j - i };
        i = j;
    }
    if (nf == 0)
        return 0;
    if (nf != 3 || !address(f[0], &start) || !address(f[1], &end) || !type(f[2], &t) || end <= start)
        return -1;
    *m = (struct mmap_entry){ start, end - start, t };
    return 1;
}

int mapfile_reference(const char *text, size_t len, struct mmap_entry *out, unsigned *n,
                      unsigned *line)
{
    static struct e820_map check;
    struct err e;
    size_t at = 0;

    *n = 0;
    *line = 0;
    for (unsigned no = 1; at < len; no++) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        struct mmap_entry m;
        int got = one_line(text + at, end - at, &m);
        at = end + 1;
        if (got < 0 || (got && *n == E820_MAX)) {
            *line = no;
            return -1;
        }
        if (got)
            out[(*n)++] = m;
    }
    if (*n == 0 || e820_sanitise(out, *n, &check, &e))
        return -1;
    return 0;
}
