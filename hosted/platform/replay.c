// SPDX-License-Identifier: MIT
// The hosted runner's replay of an `e820` record: from a serial log, a
// records.jsonl file or a results folder, read without a JSON library.
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosted/platform/runner.h"
#include "kernel/compiler.h"
#include "mm/e820.h"

#define MAX_CANDIDATES 64
#define MAX_TYPES 8

struct candidate {
    uint64_t size;                  /* the guest's size, 0 when the source does not say */
    char where[96];
    unsigned n;
    struct mmap_entry e[E820_MAX];
};

struct scan {
    struct candidate *c;
    unsigned nc;
    char types[MAX_TYPES][24];      /* record types seen, for the message when none is e820 */
    unsigned ntypes;
};

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* After a quoted key at p (its closing quote consumed): the ':' and blanks. */
static const char *after_key(const char *line, const char *key)
{
    char pat[32];
    const char *p = line;

    snprintf(pat, sizeof(pat), "\"%s\"", key);
    while ((p = strstr(p, pat))) {
        const char *q = skip_ws(p + strlen(pat));
        if (*q == ':')
            return skip_ws(q + 1);
        p += strlen(pat);
    }
    return NULL;
}

static bool parse_u64(const char **pp, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;

    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++) {
        if (x > (UINT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    *pp = p;
    *v = x;
    return true;
}

/* One {"addr": N, "len": N, "type": N} object at *pp. */
static int parse_entry(const char **pp, struct mmap_entry *out, const char *where, struct err *e)
{
    const char *p = skip_ws(*pp);
    bool seen[3] = { false, false, false };
    uint64_t v[3];

    if (*p++ != '{')
        return err_set(e, -EINVAL, "%s: an entry of the sanitised list is not an object", where);
    for (;;) {
        static const char *const keys[] = { "addr", "len", "type" };
        unsigned k;
        p = skip_ws(p);
        for (k = 0; k < 3; k++) {
            size_t n = strlen(keys[k]);
            if (p[0] == '"' && !strncmp(p + 1, keys[k], n) && p[n + 1] == '"')
                break;
        }
        if (k == 3)
            return err_set(e, -EINVAL, "%s: an entry has a key other than addr, len and type", where);
        p = skip_ws(p + strlen(keys[k]) + 2);
        if (*p++ != ':')
            return err_set(e, -EINVAL, "%s: no ':' after \"%s\"", where, keys[k]);
        p = skip_ws(p);
        if (!parse_u64(&p, &v[k]))
            return err_set(e, -EINVAL, "%s: \"%s\" is not a whole number", where, keys[k]);
        seen[k] = true;
        p = skip_ws(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p++ != '}')
            return err_set(e, -EINVAL, "%s: an entry is not closed", where);
        break;
    }
    if (!seen[0] || !seen[1] || !seen[2])
        return err_set(e, -EINVAL, "%s: an entry lacks addr, len or type", where);
    if (v[2] > UINT32_MAX)
        return err_set(e, -EINVAL, "%s: type %llu is out of range", where, (unsigned long long)v[2]);
    *out = (struct mmap_entry){ v[0], v[1], (uint32_t)v[2] };
    *pp = p;
    return 0;
}

static bool is_e820(const char *line)
{
    const char *p = after_key(line, "type");

    return p && !strncmp(p, "\"e820\"", 6);
}

static void note_type(struct scan *s, const char *line)
{
    const char *p = after_key(line, "type");
    size_t n;

    if (!p || *p != '"' || s->ntypes == MAX_TYPES)
        return;
    n = strcspn(p + 1, "\"");
    if (n >= sizeof(s->types[0]))
        n = sizeof(s->types[0]) - 1;
    for (unsigned i = 0; i < s->ntypes; i++)
        if (strlen(s->types[i]) == n && !strncmp(s->types[i], p + 1, n))
            return;
    memcpy(s->types[s->ntypes], p + 1, n);
    s->types[s->ntypes++][n] = '\0';
}

/* The e820 record on line, of a guest of size bytes (0: unknown). */
static int take_record(struct scan *s, const char *line, uint64_t size, const char *where,
                       struct err *e)
{
    const char *p = after_key(line, "sanitised");
    struct candidate *c;

    if (!p || *p++ != '[')
        return err_set(e, -EINVAL, "%s: the e820 record has no \"sanitised\" list", where);
    if (s->nc == MAX_CANDIDATES)
        return err_set(e, -E2BIG, "%s: more than %u e820 records", where, MAX_CANDIDATES);
    c = &s->c[s->nc];
    c->n = 0;
    c->size = size;
    snprintf(c->where, sizeof(c->where), "%s", where);
    p = skip_ws(p);
    if (*p == ']')
        return err_set(e, -EINVAL, "%s: the e820 record's map is empty", where);
    for (;;) {
        int rc;
        if (c->n == E820_MAX)
            return err_set(e, -E2BIG, "%s: more than %u entries", where, E820_MAX);
        if ((rc = parse_entry(&p, &c->e[c->n], where, e)))
            return rc;
        c->n++;
        p = skip_ws(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != ']')
            return err_set(e, -EINVAL, "%s: the sanitised list is not closed", where);
        break;
    }
    s->nc++;
    return 0;
}

/* Every e820 record in the file at path; size_hint for a serial-<size>.log. */
static int scan_file(struct scan *s, const char *path, uint64_t size_hint, struct err *e)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, where[96];
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = 0;

    if (!f)
        return err_set(e, -ENOENT, "%s: %s", path, strerror(errno));
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        const char *rec = strstr(line, "{");
        if (!rec)
            continue;
        note_type(s, rec);
        if (!is_e820(rec))
            continue;
        uint64_t size = size_hint;
        const char *sz = after_key(line, "size_bytes");
        if (sz && !parse_u64(&sz, &size))
            size = size_hint;
        snprintf(where, sizeof(where), "%.80s line %u", path, lineno);
        if ((rc = take_record(s, rec, size, where, e)))
            break;
    }
    free(line);
    fclose(f);
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A results folder: records.jsonl when there is one, else serial-<size>.log. */
static int scan_folder(struct scan *s, const char *dir, struct err *e)
{
    char path[4096], *names[MAX_CANDIDATES];
    unsigned n = 0;
    struct dirent *d;
    DIR *dp;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/records.jsonl", dir);
    if (!access(path, R_OK))
        return scan_file(s, path, 0, e);
    if (!(dp = opendir(dir)))
        return err_set(e, -ENOENT, "%s: %s", dir, strerror(errno));
    while ((d = readdir(dp)) && n < MAX_CANDIDATES) {
        size_t len = strlen(d->d_name);
        if (!strncmp(d->d_name, "serial-", 7) && len > 11 && !strcmp(d->d_name + len - 4, ".log"))
            names[n++] = strdup(d->d_name);
    }
    closedir(dp);
    qsort(names, n, sizeof(names[0]), cmp_names);
    if (!n)
        rc = err_set(e, -ENOENT, "%s: no records.jsonl and no serial-<size>.log files", dir);
    for (unsigned i = 0; i < n; i++) {
        char label[64];
        uint64_t size = 0;
        snprintf(label, sizeof(label), "%.*s", (int)(strlen(names[i]) - 11), names[i] + 7);
        if (host_parse_size(label, &size, NULL))
            size = 0;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (!rc)
            rc = scan_file(s, path, size, e);
        free(names[i]);
    }
    return rc;
}

static bool same_map(const struct candidate *a, const struct candidate *b)
{
    return a->n == b->n && !memcmp(a->e, b->e, a->n * sizeof(a->e[0]));
}

static void list_sizes(const struct scan *s, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < s->nc && used + 1 < len; i++) {
        if (s->c[i].size)
            used += (size_t)snprintf(buf + used, len - used, "%s%llu MiB", i ? ", " : "",
                                     (unsigned long long)(s->c[i].size >> 20));
        else
            used += (size_t)snprintf(buf + used, len - used, "%sone of unknown size", i ? ", " : "");
    }
}

int host_map_e820(struct bootinfo *bi, const char *path, uint64_t want, struct err *e)
{
    struct scan s = { .c = calloc(MAX_CANDIDATES, sizeof(struct candidate)) };
    const struct candidate *pick = NULL;
    struct stat st;
    char sizes[512];
    int rc;

    if (!s.c)
        return err_set(e, -ENOMEM, "out of memory reading %s", path);
    if (stat(path, &st))
        rc = err_set(e, -ENOENT, "%s: %s", path, strerror(errno));
    else if (S_ISDIR(st.st_mode))
        rc = scan_folder(&s, path, e);
    else
        rc = scan_file(&s, path, 0, e);
    if (!rc && !s.nc) {
        char types[MAX_TYPES * 26] = "";
        for (unsigned i = 0; i < s.ntypes; i++)
            snprintf(types + strlen(types), sizeof(types) - strlen(types), "%s%s", i ? ", " : "",
                     s.types[i]);
        rc = err_set(e, -ENOENT, "%s: no e820 record (%s%s)", path,
                     s.ntypes ? "records found: " : "no records at all", types);
    }
    for (unsigned i = 0; !rc && i < s.nc; i++) {
        if (want && s.c[i].size != want)
            continue;
        if (pick && !same_map(pick, &s.c[i])) {
            list_sizes(&s, sizes, sizeof(sizes));
            rc = err_set(e, -EINVAL, "%s holds the maps of several guests (%s): choose one "
                         "with --mem SIZE", path, sizes);
        }
        pick = pick ? pick : &s.c[i];
    }
    if (!rc && !pick) {
        list_sizes(&s, sizes, sizeof(sizes));
        rc = err_set(e, -ENOENT, "%s: no e820 record of a %llu MiB guest; there are %s", path,
                     (unsigned long long)(want >> 20), sizes);
    }
    if (!rc) {
        bi->mmap_count = pick->n;
        memcpy(bi->mmap, pick->e, pick->n * sizeof(pick->e[0]));
    }
    free(s.c);
    return rc;
}

