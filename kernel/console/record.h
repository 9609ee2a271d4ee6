/* SPDX-License-Identifier: MIT */
/*
 * Machine-readable records: one JSON object per line on the serial console,
 * each starting with {"type":. docs/records.md documents every record's keys.
 * Numbers are integers or fixed-point decimals; the kernel has no floats.
 */
#ifndef KERNEL_CONSOLE_RECORD_H
#define KERNEL_CONSOLE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#define RECORD_MAX_DEPTH 8

struct record {
    unsigned depth;
    bool need_comma[RECORD_MAX_DEPTH];
};

void record_begin(struct record *r, const char *type);
void record_end(struct record *r);

/* key is NULL for array elements. */
void record_str(struct record *r, const char *key, const char *v);
void record_u64(struct record *r, const char *key, uint64_t v);
void record_i64(struct record *r, const char *key, int64_t v);
void record_hex(struct record *r, const char *key, uint64_t v);   /* "0x..." string */
void record_bool(struct record *r, const char *key, bool v);
void record_null(struct record *r, const char *key);
/* value / 10^decimals, printed as a JSON number: record_fixed(r, k, 12345, 3) -> 12.345 */
void record_fixed(struct record *r, const char *key, int64_t value, unsigned decimals);
void record_obj_begin(struct record *r, const char *key);
void record_obj_end(struct record *r);
void record_arr_begin(struct record *r, const char *key);
void record_arr_end(struct record *r);

struct mmap_entry;

/* A memory map under key: a list of {addr, len, type} objects, n of them. */
void record_mmap(struct record *r, const char *key, const struct mmap_entry *e, unsigned n);

#endif
