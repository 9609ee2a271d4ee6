// SPDX-License-Identifier: MIT
// kernel/cmdline.h's rules written again, plainly and without the parser's
// code: the line is cut into words first, each word into its key and value,
// each value checked by the rule of its option's kind. Slow and obvious, so
// that a parse that differs from it is the parser's mistake.
#include "tests/fuzz/cmdline_ref.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernel/lib/errno.h"

/* A piece of the line: start and length. */
struct piece {
    const char *p;
    size_t n;
};

static bool is(struct piece w, const char *lit)
{
    return w.n == strlen(lit) && memcmp(w.p, lit, w.n) == 0;
}

/* Index of choice named w, or -1 (a NULL entry is a hole and names nothing). */
static int choice(const struct cmdline_opt *o, struct piece w)
{
    for (unsigned i = 0; i < o->nchoices; i++)
        if (o->choices[i] && is(w, o->choices[i]))
            return (int)i;
    return -1;
}

/* A decimal number of 1 to 19 digits (it fits 64 bits), within [min, max]. */
static bool number(struct piece v, unsigned min, unsigned max, unsigned *out)
{
    uint64_t x = 0;

    if (v.n < 1 || v.n > 19)
        return false;
    for (size_t i = 0; i < v.n; i++) {
        if (v.p[i] < '0' || v.p[i] > '9')
            return false;
        x = x * 10 + (uint64_t)(v.p[i] - '0');
    }
    if (x < min || x > max)
        return false;
    *out = (unsigned)x;
    return true;
}

/*
 * A set's comma list, items left to right: all, none, NAME or +NAME adds,
 * -NAME removes; a bare NAME first starts from none, anything else from
 * the current value. An empty list or item, or an unknown name, is wrong.
 */
static bool set_list(const struct cmdline_opt *o, struct piece v, unsigned *value)
{
    unsigned x = *value, every = 0;

    for (unsigned i = 0; i < o->nchoices; i++)
        if (o->choices[i])
            every |= 1u << i;
    if (v.n == 0)
        return false;
    size_t start = 0;
    for (unsigned item = 0; start <= v.n; item++) {
        size_t end = start;
        while (end < v.n && v.p[end] != ',')
            end++;
        struct piece it = { v.p + start, end - start };
        start = end + 1;
        if (is(it, "all")) {
            x = every;
            continue;
        }
        if (is(it, "none")) {
            x = 0;
            continue;
        }
        char sign = it.n && (it.p[0] == '+' || it.p[0] == '-') ? it.p[0] : 0;
        struct piece name = { it.p + (sign != 0), it.n - (sign != 0) };
        int c = choice(o, name);
        if (c < 0)
            return false;
        if (item == 0 && !sign)
            x = 0;
        if (sign == '-')
            x &= ~(1u << c);
        else
            x |= 1u << c;
    }
    *value = x;
    return true;
}

/* One known option's word: its value (has_value: after an '='), applied at dst. */
static bool apply(const struct cmdline_opt *o, void *dst, struct piece v, bool has_value)
{
    unsigned u;
    int c;

    switch (o->type) {
    case OPT_FLAG:
        if (!has_value || is(v, "1") || is(v, "on") || is(v, "yes"))
            *(bool *)dst = true;
        else if (is(v, "0") || is(v, "off") || is(v, "no"))
            *(bool *)dst = false;
        else
            return false;
        return true;
    case OPT_UINT:
        if (!has_value || !number(v, o->min, o->max, &u))
            return false;
        *(unsigned *)dst = u;
        return true;
    case OPT_STR:
        if (!has_value || v.n >= o->size)
            return false;
        memcpy(dst, v.p, v.n);
        ((char *)dst)[v.n] = '\0';
        return true;
    case OPT_CHOICE:
        if (!has_value || (c = choice(o, v)) < 0)
            return false;
        *(int *)dst = c;
        return true;
    case OPT_SET:
        return has_value && set_list(o, v, (unsigned *)dst);
    case OPT_RENAMED:                   /* refused whatever its value: the error names it */
        return false;
    }
    return false;
}

int cmdline_reference(const char *line, const struct cmdline_opt *opts, size_t nopts,
                      ptrdiff_t shift, const struct cmdline_opt **bad, unsigned *unknown)
{
    static struct piece words[1024];
    size_t nwords = 0, len = strlen(line);

    /* Words: runs of anything but spaces and tabs. */
    for (size_t i = 0; i < len;) {
        if (line[i] == ' ' || line[i] == '\t') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && line[j] != ' ' && line[j] != '\t')
            j++;
        words[nwords++] = (struct piece){ line + i, j - i };
        i = j;
    }
    *unknown = 0;
    for (size_t w = 0; w < nwords; w++) {
        if (w == 0 && words[w].p[0] == '/')
            continue;                   /* the loader's path to the kernel */
        const char *eq = memchr(words[w].p, '=', words[w].n);
        struct piece key = { words[w].p, eq ? (size_t)(eq - words[w].p) : words[w].n };
        struct piece value = { eq ? eq + 1 : "", eq ? words[w].n - key.n - 1 : 0 };
        const struct cmdline_opt *o = NULL;
        for (size_t k = 0; k < nopts && !o; k++)
            if (is(key, opts[k].key))
                o = &opts[k];
        if (!o) {
            (*unknown)++;
            continue;
        }
        if (!apply(o, (char *)o->dst + shift, value, eq != NULL)) {
            *bad = o;
            return -EINVAL;
        }
    }
    return 0;
}
