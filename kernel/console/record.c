// SPDX-License-Identifier: MIT
// JSON-lines writer for the records that the host tools read.
#include "kernel/console/record.h"

#include "kernel/bootinfo/bootinfo.h"
#include "kernel/console/console.h"
#include "kernel/console/printk.h"
#include "kernel/lib/string.h"

static void emit(const char *s, size_t n)
{
    console_write(CON_SERIAL, s, n);
}

static void emit_str(const char *s)
{
    emit(s, strlen(s));
}

static void emit_quoted(const char *s)
{
    char esc[8];

    emit("\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            emit(esc, 2);
        } else if (c < 0x20 || c >= 0x7f) {
            /* Control and non-ASCII bytes: escaped, so a line stays valid JSON. */
            snprintf(esc, sizeof(esc), "\\u%04x", c);
            emit_str(esc);
        } else {
            emit(s, 1);
        }
    }
    emit("\"", 1);
}

static void key(struct record *r, const char *k)
{
    if (r->need_comma[r->depth])
        emit(",", 1);
    r->need_comma[r->depth] = true;
    if (k) {
        emit_quoted(k);
        emit(":", 1);
    }
}

void record_begin(struct record *r, const char *type)
{
    r->depth = 0;
    r->need_comma[0] = false;
    emit("{", 1);
    record_str(r, "type", type);
}

/* Callers close what they open; the record itself closes here. */
void record_end(struct record *r)
{
    r->depth = 0;
    emit("}\n", 2);
}

void record_str(struct record *r, const char *k, const char *v)
{
    key(r, k);
    emit_quoted(v ? v : "");
}

void record_u64(struct record *r, const char *k, uint64_t v)
{
    char buf[24];

    key(r, k);
    emit(buf, (size_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v));
}

void record_i64(struct record *r, const char *k, int64_t v)
{
    char buf[24];

    key(r, k);
    emit(buf, (size_t)snprintf(buf, sizeof(buf), "%lld", (long long)v));
}

void record_hex(struct record *r, const char *k, uint64_t v)
{
    char buf[24];

    key(r, k);
    emit(buf, (size_t)snprintf(buf, sizeof(buf), "\"0x%llx\"", (unsigned long long)v));
}

void record_bool(struct record *r, const char *k, bool v)
{
    key(r, k);
    emit_str(v ? "true" : "false");
}

void record_null(struct record *r, const char *k)
{
    key(r, k);
    emit_str("null");
}

void record_fixed(struct record *r, const char *k, int64_t value, unsigned decimals)
{
    char buf[48];
    uint64_t scale = 1;
    uint64_t mag = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;

    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    key(r, k);
    if (decimals)
        snprintf(buf, sizeof(buf), "%s%llu.%0*llu", value < 0 ? "-" : "",
                 (unsigned long long)(mag / scale), (int)decimals,
                 (unsigned long long)(mag % scale));
    else
        snprintf(buf, sizeof(buf), "%lld", (long long)value);
    emit_str(buf);
}

static void open(struct record *r, const char *k, const char *bracket)
{
    key(r, k);
    emit_str(bracket);
    if (r->depth + 1 < RECORD_MAX_DEPTH)
        r->depth++;
    r->need_comma[r->depth] = false;
}

void record_obj_begin(struct record *r, const char *k) { open(r, k, "{"); }
void record_arr_begin(struct record *r, const char *k) { open(r, k, "["); }

void record_obj_end(struct record *r)
{
    if (r->depth)
        r->depth--;
    emit("}", 1);
}

void record_arr_end(struct record *r)
{
    if (r->depth)
        r->depth--;
    emit("]", 1);
}

void record_mmap(struct record *r, const char *k, const struct mmap_entry *e, unsigned n)
{
    record_arr_begin(r, k);
    for (unsigned i = 0; i < n; i++) {
        record_obj_begin(r, NULL);
        record_u64(r, "addr", e[i].addr);
        record_u64(r, "len", e[i].len);
        record_u64(r, "type", e[i].type);
        record_obj_end(r);
    }
    record_arr_end(r);
}
