// SPDX-License-Identifier: MIT
// The hosted runner's one way to take another machine's memory map: a plain
// map file, one range a line (docs/usage-hosted.md, "Map files"). The harness writes it
// from whatever map a user has; this reader trusts nothing in it.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "hosted/platform/runner.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/sort.h"
#include "mm/e820.h"

/* A map file of E820_MAX ranges with generous comments is far smaller. */
#define MAP_FILE_MAX_BYTES MiB(4)

/* How a field is quoted in a message: at most this many bytes of it. */
#define QUOTE_MAX 24

/* A file's name as messages give it: its last NAME_SHOWN bytes, enough to
 * recognise it, leaving room in a struct err for what is wrong. */
#define NAME_SHOWN 60

/* Where a line sits, for its messages. */
struct line {
    char name[NAME_SHOWN + 4];
    unsigned no;                /* 1-based */
};

/* name as messages give it, into buf: its tail when it is long. */
static const char *shown(char buf[NAME_SHOWN + 4], const char *name)
{
    size_t n = strlen(name);

    snprintf(buf, NAME_SHOWN + 4, "%s%s", n > NAME_SHOWN ? "..." : "",
             name + (n > NAME_SHOWN ? n - NAME_SHOWN : 0));
    return buf;
}

struct field {
    const char *p;
    size_t n;
};

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* A field as a message may print it: printable ASCII, cut at QUOTE_MAX. */
static const char *quote(struct field f, char buf[QUOTE_MAX + 4])
{
    size_t n = MIN(f.n, (size_t)QUOTE_MAX), i;

    for (i = 0; i < n; i++)
        buf[i] = f.p[i] > ' ' && f.p[i] < 0x7f ? f.p[i] : '?';
    strcpy(buf + i, f.n > n ? "..." : "");
    return buf;
}

/* Hexadecimal, with or without 0x, at most 64 bits. */
static bool parse_hex(struct field f, uint64_t *v)
{
    const char *p = f.p;
    size_t n = f.n;
    uint64_t x = 0;

    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2, n -= 2;
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
                     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
                     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
        if (d == 16 || x >> 60)
            return false;
        x = x << 4 | d;
    }
    *v = x;
    return true;
}

/* A decimal e820 type from 1 to 2^32 - 1, or a name e820_type_name() gives. */
static bool parse_type(struct field f, uint32_t *type)
{
    char word[16];
    uint64_t x = 0;

    if (f.n && f.p[0] >= '1' && f.p[0] <= '9') {
        for (size_t i = 0; i < f.n; i++) {
            if (f.p[i] < '0' || f.p[i] > '9')
                return false;
            x = x * 10 + (uint64_t)(f.p[i] - '0');
            if (x > UINT32_MAX)
                return false;
        }
        *type = (uint32_t)x;
        return true;
    }
    /* A NUL inside the field would end the name early: "RAM\0x" is no type. */
    if (f.n >= sizeof(word) || memchr(f.p, '\0', f.n))
        return false;
    memcpy(word, f.p, f.n);
    word[f.n] = '\0';
    for (uint32_t t = E820_RAM; t <= E820_UNUSABLE; t++) {
        if (!strcasecmp(word, e820_type_name(t))) {
            *type = t;
            return true;
        }
    }
    return false;
}

/* One line without its newline: nothing, or a range into *out. */
static int parse_line(const struct line *l, const char *p, const char *end, struct mmap_entry *out,
                      bool *got, struct err *e)
{
    struct field f[3];
    unsigned nf = 0;
    char q[QUOTE_MAX + 4];
    uint64_t start, last;
    uint32_t type;

    *got = false;
    for (;;) {
        while (p < end && blank(*p))
            p++;
        if (p == end || *p == '#')
            break;
        if (nf == 3)
            return err_set(e, -EINVAL, "%s line %u: more than three fields; a range is "
                           "'start end type'", l->name, l->no);
        f[nf].p = p;
        while (p < end && !blank(*p) && *p != '#')
            p++;
        f[nf].n = (size_t)(p - f[nf].p);
        nf++;
    }
    if (!nf)
        return 0;
    if (nf < 3)
        return err_set(e, -EINVAL, "%s line %u: %u field%s; a range is 'start end type'",
                       l->name, l->no, nf, nf == 1 ? "" : "s");
    for (unsigned i = 0; i < 2; i++)
        if (!parse_hex(f[i], i ? &last : &start))
            return err_set(e, -EINVAL, "%s line %u: %s '%s' is not a hexadecimal address of "
                           "at most 64 bits", l->name, l->no, i ? "end" : "start", quote(f[i], q));
    if (!parse_type(f[2], &type))
        return err_set(e, -EINVAL, "%s line %u: unknown type '%s': a number from 1 to %u, or "
                       "RAM, reserved, ACPI, NVS or unusable", l->name, l->no, quote(f[2], q),
                       UINT32_MAX);
    if (last < start)
        return err_set(e, -EINVAL, "%s line %u: the range ends at 0x%llx, before it starts at "
                       "0x%llx", l->name, l->no, (unsigned long long)last, (unsigned long long)start);
    if (last == start)
        return err_set(e, -EINVAL, "%s line %u: the range at 0x%llx is empty (the end is "
                       "exclusive)", l->name, l->no, (unsigned long long)start);
    *out = (struct mmap_entry){ start, last - start, type };
    *got = true;
    return 0;
}

struct span {
    uint64_t s, e;
    unsigned line;
};

static bool span_before(const void *a, const void *b)
{
    return ((const struct span *)a)->s < ((const struct span *)b)->s;
}

/*
 * Two lines whose ranges overlap, for the message when the sanitiser gives
 * up: it can only fail on a map that has some (disjoint ranges never need
 * more entries out than in). Returns false when there are none.
 */
static bool find_overlap(const struct mmap_entry *m, const unsigned *lines, unsigned n,
                         unsigned *a, unsigned *b)
{
    static struct span s[E820_MAX];
    unsigned widest = 0;

    for (unsigned i = 0; i < n; i++)
        s[i] = (struct span){ m[i].addr, m[i].addr + m[i].len, lines[i] };
    sort(s, n, sizeof(s[0]), span_before);
    for (unsigned i = 1; i < n; i++) {
        if (s[i].s < s[widest].e) {
            *a = MIN(s[widest].line, s[i].line);
            *b = MAX(s[widest].line, s[i].line);
            return true;
        }
        if (s[i].e > s[widest].e)
            widest = i;
    }
    return false;
}

int host_map_parse(const char *name, const char *text, size_t len, struct mmap_entry *out,
                   unsigned *n, struct err *e)
{
    static unsigned lines[E820_MAX];
    static struct e820_map check;
    const char *p = text, *end = text + len;
    struct line l = { .no = 0 };
    unsigned a, b;
    int rc;

    shown(l.name, name);
    *n = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        struct mmap_entry m;
        bool got;

        l.no++;
        if ((rc = parse_line(&l, p, stop, &m, &got, e)))
            return rc;
        p = nl ? nl + 1 : end;
        if (!got)
            continue;
        if (*n == E820_MAX)
            return err_set(e, -E2BIG, "%s line %u: more than %u ranges, the most a map may "
                           "have (mm/e820.h)", l.name, l.no, E820_MAX);
        lines[*n] = l.no;
        out[(*n)++] = m;
    }
    if (!*n)
        return err_set(e, -EINVAL, "%s: no ranges; a map file has one 'start end type' a line",
                       l.name);
    /* Overlaps: the kernel's sanitiser decides which it can resolve. */
    if (e820_sanitise(out, *n, &check, e)) {
        if (!find_overlap(out, lines, *n, &a, &b))
            return -E2BIG;
        return err_set(e, -E2BIG, "%s lines %u and %u: the ranges overlap, and sanitising "
                       "this map's overlaps needs more than %u entries", l.name, a, b, E820_MAX);
    }
    return 0;
}

int host_map_file(struct bootinfo *bi, const char *path, struct err *e)
{
    FILE *f = fopen(path, "r");
    char name[NAME_SHOWN + 4];
    struct stat st;
    char *text;
    size_t len;
    int rc;

    if (!f)
        return err_set(e, -ENOENT, "%s: %s", shown(name, path), strerror(errno));
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return err_set(e, -EINVAL, "%s: not a map file (python3 -m harness hosted --map reads "
                       "folders and logs)", shown(name, path));
    }
    if ((uint64_t)st.st_size > MAP_FILE_MAX_BYTES) {
        fclose(f);
        return err_set(e, -E2BIG, "%s: %llu bytes; a map file may have at most %llu",
                       shown(name, path), (unsigned long long)st.st_size,
                       (unsigned long long)MAP_FILE_MAX_BYTES);
    }
    if (!(text = malloc((size_t)st.st_size + 1))) {
        fclose(f);
        return err_set(e, -ENOMEM, "out of memory reading %s", shown(name, path));
    }
    len = fread(text, 1, (size_t)st.st_size, f);
    fclose(f);
    rc = host_map_parse(path, text, len, bi->mmap, &bi->mmap_count, e);
    free(text);
    return rc;
}
