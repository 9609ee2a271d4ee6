// SPDX-License-Identifier: MIT
// Command-line parsing over a table of options (see kernel/cmdline.h).
#include "kernel/cmdline.h"

#include <stdint.h>

#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/libc.h"
#include "kernel/panic.h"

static bool parse_uint(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;

    if (n == 0 || n > 19)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

static bool word_is(const char *w, size_t n, const char *lit)
{
    return strlen(lit) == n && !strncmp(w, lit, n);
}

/* Index of the choice named by w (n bytes), or -1; holes in the table match nothing. */
static int choice_index(const struct cmdline_opt *o, const char *w, size_t n)
{
    for (unsigned i = 0; i < o->nchoices; i++)
        if (o->choices[i] && word_is(w, n, o->choices[i]))
            return (int)i;
    return -1;
}

/* " name name ...": the choices of o, for a message. */
static void choice_names(const struct cmdline_opt *o, char *names, size_t size)
{
    size_t n = 0;

    names[0] = '\0';
    for (unsigned i = 0; i < o->nchoices && n < size; i++)
        if (o->choices[i])
            n += (size_t)snprintf(names + n, size - n, " %s", o->choices[i]);
}

/*
 * A bad value is echoed in a message at most ECHO_MAX bytes long, then
 * "...", so that what the option takes always fits in struct err: the
 * longest message, xen_costs= with a bad item and its ten names, takes
 * 188 bytes of the 192.
 */
#define ECHO_MAX 30
#define ECHO(n, s) (int)MIN((n), (size_t)ECHO_MAX), (s), (n) > ECHO_MAX ? "..." : ""

/* The message for a bad value of o: what the option takes. */
static int bad_value(const struct cmdline_opt *o, const char *val, size_t vlen, struct err *e)
{
    char names[96];

    switch (o->type) {
    case OPT_UINT:
        return err_set(e, -EINVAL, "%s=%.*s%s: expected a whole number from %u to %u",
                       o->key, ECHO(vlen, val), o->min, o->max);
    case OPT_STR:
        return err_set(e, -EINVAL, "%s=%.*s%s: expected a value of at most %zu characters",
                       o->key, ECHO(vlen, val), o->size - 1);
    case OPT_CHOICE:
        choice_names(o, names, sizeof(names));
        return err_set(e, -EINVAL, "%s=%.*s%s: expected one of%s", o->key, ECHO(vlen, val), names);
    default:
        return err_set(e, -EINVAL, "%s=%.*s%s: expected on or off", o->key, ECHO(vlen, val));
    }
}

/*
 * An OPT_SET list (see cmdline.h) over [val, val + vlen): true with *out
 * set, or false with *bad and *badlen naming the item at fault.
 */
static bool parse_set(const struct cmdline_opt *o, const char *val, size_t vlen, unsigned *out,
                      const char **bad, size_t *badlen)
{
    unsigned all = 0, v = *(const unsigned *)o->dst;
    const char *p = val, *end = val + vlen;

    for (unsigned i = 0; i < o->nchoices; i++)
        if (o->choices[i])
            all |= 1u << i;
    *bad = val;
    *badlen = vlen;
    if (!vlen)
        return false;
    for (bool first = true; p <= end; first = false) {
        const char *item = p, *comma = memchr(p, ',', (size_t)(end - p));
        size_t n = (size_t)((comma ? comma : end) - item);
        char sign = n ? item[0] : 0;
        size_t skip = sign == '-' || sign == '+';

        p = item + n + 1;
        *bad = item;
        *badlen = n;
        if (word_is(item, n, "all")) {
            v = all;
            continue;
        }
        if (word_is(item, n, "none")) {
            v = 0;
            continue;
        }
        int i = choice_index(o, item + skip, n - skip);
        if (!n || i < 0)
            return false;
        if (first && !skip)
            v = 0;
        v = sign == '-' ? v & ~(1u << i) : v | 1u << i;
    }
    *out = v;
    return true;
}

static int apply(const struct cmdline_opt *o, const char *val, size_t vlen, bool has_val,
                 struct err *e)
{
    switch (o->type) {
    case OPT_FLAG: {
        bool v = true;
        if (has_val) {
            if (word_is(val, vlen, "1") || word_is(val, vlen, "on") || word_is(val, vlen, "yes"))
                v = true;
            else if (word_is(val, vlen, "0") || word_is(val, vlen, "off") || word_is(val, vlen, "no"))
                v = false;
            else
                break;
        }
        *(bool *)o->dst = v;
        return 0;
    }
    case OPT_UINT: {
        uint64_t v;
        if (!has_val || !parse_uint(val, vlen, &v) || v < o->min || v > o->max)
            break;
        *(unsigned *)o->dst = (unsigned)v;
        return 0;
    }
    case OPT_STR:
        if (!has_val || vlen + 1 > o->size)
            break;
        memcpy(o->dst, val, vlen);
        ((char *)o->dst)[vlen] = '\0';
        return 0;
    case OPT_CHOICE: {
        int i = has_val ? choice_index(o, val, vlen) : -1;
        if (i < 0)
            break;
        *(int *)o->dst = i;
        return 0;
    }
    case OPT_RENAMED:
        return err_set(e, -EINVAL, "%s= is now called %s=", o->key, o->renamed);
    case OPT_SET: {
        const char *item = val;
        size_t ilen = vlen;
        unsigned v;
        char names[96];
        if (has_val && parse_set(o, val, vlen, &v, &item, &ilen)) {
            *(unsigned *)o->dst = v;
            return 0;
        }
        choice_names(o, names, sizeof(names));
        return err_set(e, -EINVAL, "%s=%.*s%s: '%.*s%s' is not all, none or [+-] one of%s", o->key,
                       ECHO(vlen, val), ECHO(ilen, item), names);
    }
    }
    return bad_value(o, val, vlen, e);
}

size_t cmdline_list_item(const char **p)
{
    const char *comma = strchr(*p, ',');
    size_t len = comma ? (size_t)(comma - *p) : strlen(*p);

    *p += len + (comma ? 1 : 0);
    return len;
}

int cmdline_parse(const char *line, const struct cmdline_opt *opts, size_t nopts,
                  struct err *e, cmdline_warn_fn warn)
{
    const char *p = line;
    bool first = true;

    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return 0;
        const char *w = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        size_t wlen = (size_t)(p - w);
        if (first && *w == '/') {
            first = false;
            continue;
        }
        first = false;

        const char *eq = memchr(w, '=', wlen);
        size_t klen = eq ? (size_t)(eq - w) : wlen;
        const char *val = eq ? eq + 1 : "";
        size_t vlen = eq ? wlen - klen - 1 : 0;
        const struct cmdline_opt *o = NULL;

        for (size_t i = 0; i < nopts && !o; i++)
            if (word_is(w, klen, opts[i].key))
                o = &opts[i];
        if (!o) {
            char msg[160];
            snprintf(msg, sizeof(msg), "unknown command-line option '%.*s' ignored",
                     (int)MIN(wlen, 100), w);
            if (warn)
                warn(msg);
            continue;
        }
        int rc = apply(o, val, vlen, eq != NULL, e);
        if (rc)
            return rc;
    }
}

#ifndef BOOTHEAP_HOST
extern const struct cmdline_opt __cmdline_opts_start[], __cmdline_opts_end[];

static void warn_console(const char *msg)
{
    printk("warning: %s\n", msg);
}

void cmdline_apply(const char *line)
{
    struct err e;

    if (cmdline_parse(line, __cmdline_opts_start,
                      (size_t)(__cmdline_opts_end - __cmdline_opts_start), &e, warn_console))
        panic("bad command line: %s", e.msg);
}
#endif
