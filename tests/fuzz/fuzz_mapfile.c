// SPDX-License-Identifier: MIT
// libFuzzer target: arbitrary bytes as the hosted runner's map file
// (hosted/platform/mapfile.c), with the invariants every answer must keep:
// a refusal names the file and a line that exists; an accepted map has
// whole, non-wrapping ranges the kernel's sanitiser takes, and reads back
// the same when written out again. And the answer itself against
// tests/fuzz/mapfile_ref.c, the documented format read plainly: the same
// files taken, the same ranges read, the same line named at fault.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosted/platform/runner.h"
#include "mm/e820.h"
#include "tests/fuzz/check.h"
#include "tests/fuzz/mapfile_ref.h"

#define NAME "fuzz.map"

static struct mmap_entry got[E820_MAX], again[E820_MAX], want[E820_MAX];
static struct e820_map sanitised;
/* "%llx %llx %u\n" for E820_MAX ranges: 16 + 1 + 16 + 1 + 10 + 1 bytes each. */
static char text[E820_MAX * 48];

/* The line a refusal names, 0 when it names none. */
static unsigned named_line(const char *msg)
{
    const char *p = strstr(msg, " line ");

    if (!p)
        p = strstr(msg, " lines ");
    return p ? (unsigned)strtoul(strchr(p + 1, ' ') + 1, NULL, 10) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct err e = { "" };
    unsigned n = 0, m = 0, lines = 1;
    size_t len = 0;
    int rc;

    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    rc = host_map_parse(NAME, (const char *)data, size, got, &n, &e);
    unsigned nwant, bad_line;
    int ref = mapfile_reference((const char *)data, size, want, &nwant, &bad_line);
    CHECK((rc == 0) == (ref == 0));
    if (rc && bad_line)
        CHECK(named_line(e.msg) == bad_line);
    for (unsigned i = 0; !rc && i < n; i++)
        CHECK(nwant == n && want[i].addr == got[i].addr && want[i].len == got[i].len &&
              want[i].type == got[i].type);
    if (rc) {
        CHECK(rc < 0);
        CHECK(!strncmp(e.msg, NAME, strlen(NAME)));
        CHECK(named_line(e.msg) <= lines);
        return 0;
    }
    CHECK(n >= 1 && n <= E820_MAX);
    for (unsigned i = 0; i < n; i++) {
        CHECK(got[i].len > 0);
        CHECK(got[i].addr + got[i].len > got[i].addr);
        CHECK(got[i].type >= 1);
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%llx %llx %u\n",
                                (unsigned long long)got[i].addr,
                                (unsigned long long)(got[i].addr + got[i].len), got[i].type);
    }
    CHECK(!e820_sanitise(got, n, &sanitised, &e));
    /* What was read, written plainly, reads back the same. */
    CHECK(!host_map_parse(NAME, text, len, again, &m, &e));
    CHECK(m == n);
    for (unsigned i = 0; i < n; i++)
        CHECK(again[i].addr == got[i].addr && again[i].len == got[i].len &&
              again[i].type == got[i].type);
    return 0;
}
