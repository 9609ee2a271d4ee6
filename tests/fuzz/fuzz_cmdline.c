// SPDX-License-Identifier: MIT
// libFuzzer target: arbitrary bytes as a kernel command line through
// cmdline_parse() over a table with every kind of option (flags, numbers at
// the edges of unsigned, strings of 1 and 96 bytes, choices and sets with
// holes in their tables), with the messages formatted by the kernel's own
// vsnprintf (the Makefile renames it so that it replaces the C library's
// here), then the invariants every result must keep, and the result itself
// against tests/fuzz/cmdline_ref.c, the documented rules written again:
// the same values set, the same words unknown, the same option at fault.
//
// Input: the command line, up to its first NUL byte (the loaders hand the
// kernel a C string of at most 1023 bytes). tests/fuzz/corpus-cmdline holds
// seeds written by hand: the tests' and the docs' command lines, good and bad.
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"
#include "tests/fuzz/check.h"
#include "tests/fuzz/cmdline_ref.h"

#define LINE_MAX_BYTES 1024

/* printk() is linked with the formatter; nothing here prints through it. */
void console_write(unsigned sinks, const char *s, size_t n)
{
    (void)sinks, (void)s, (void)n;
    abort();
}

enum exit_mode { EXIT_AUTO, EXIT_QEMU, EXIT_HALT };
static const char *const exit_names[] = { [EXIT_QEMU] = "qemu", [EXIT_HALT] = "halt", [EXIT_AUTO] = "auto" };
/* A hole (index 1): a name that was removed must match nothing. */
static const char *const holey_names[] = { "a", NULL, "c" };
static const char *const cost_names[] = { "lfence", "mfn_valid", "lock", "m2p", "node_heap",
                                          "heap_ptrs", "pdx", "memnode", "zone", "scrub_check" };
/* Long names: the list in a message outgrows its 96-byte buffer. */
static const char *const long_names[] = {
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", NULL,
    "cccccccccccccccccccccccccccccc", "dddddddddddddddddddddddddddddd",
};

static struct state {
    bool flag;
    unsigned runs, cpus, any;
    char strategies[96], tiny[1];
    enum exit_mode exit;
    int holey;
    unsigned costs, longset;
} st, ref;

static const struct cmdline_opt opts[] = {
    { .key = "selftest", .type = OPT_FLAG, .dst = &st.flag },
    { .key = "runs", .type = OPT_UINT, .dst = &st.runs, .min = 1, .max = 100 },
    { .key = "cpus", .type = OPT_UINT, .dst = &st.cpus, .min = 0, .max = 64 },
    { .key = "any", .type = OPT_UINT, .dst = &st.any, .min = 0, .max = UINT32_MAX },
    { .key = "strategies", .type = OPT_STR, .dst = st.strategies, .size = sizeof(st.strategies) },
    { .key = "tiny", .type = OPT_STR, .dst = st.tiny, .size = sizeof(st.tiny) },
    { .key = "exit", .type = OPT_CHOICE, .dst = &st.exit, .choices = exit_names,
      .nchoices = ARRAY_SIZE(exit_names) },
    { .key = "holey", .type = OPT_CHOICE, .dst = &st.holey, .choices = holey_names,
      .nchoices = ARRAY_SIZE(holey_names) },
    { .key = "xen_costs", .type = OPT_SET, .dst = &st.costs, .choices = cost_names,
      .nchoices = ARRAY_SIZE(cost_names) },
    { .key = "longset", .type = OPT_SET, .dst = &st.longset, .choices = long_names,
      .nchoices = ARRAY_SIZE(long_names) },
};

static const char *line;                /* the input, for the checks */
static unsigned warnings;

static void defaults(void)
{
    memset(&st, 0, sizeof(st));
    st.runs = 5;
    strcpy(st.strategies, "all");
    st.exit = EXIT_AUTO;
    st.costs = (1u << ARRAY_SIZE(cost_names)) - 1;
    st.longset = 0x1b;
    warnings = 0;
}

/* An unknown word: named in a bounded, terminated message, and a word of the line. */
static void warn(const char *msg)
{
    static const char head[] = "unknown command-line option '", tail[] = "' ignored";
    size_t n = strnlen(msg, 160);

    CHECK(n < 160);
    CHECK(!strncmp(msg, head, sizeof(head) - 1));
    CHECK(n >= sizeof(head) - 1 + sizeof(tail) - 1 && !strcmp(msg + n - (sizeof(tail) - 1), tail));
    size_t wlen = n - (sizeof(head) - 1) - (sizeof(tail) - 1);
    CHECK(wlen > 0 && wlen <= 100);
    CHECK(memmem(line, strlen(line), msg + sizeof(head) - 1, wlen) != NULL);
    warnings++;
}

static bool bits_of(unsigned v, const char *const *names, unsigned n)
{
    for (unsigned i = 0; i < 32; i++)
        if ((v >> i) & 1 && (i >= n || !names[i]))
            return false;
    return true;
}

/* What any result must be: values in range, strings terminated, the set bits named. */
static void check_state(void)
{
    CHECK(st.runs >= 1 && st.runs <= 100);
    CHECK(st.cpus <= 64);
    CHECK(memchr(st.strategies, '\0', sizeof(st.strategies)) != NULL);
    CHECK(st.tiny[0] == '\0');
    CHECK(st.exit == EXIT_AUTO || st.exit == EXIT_QEMU || st.exit == EXIT_HALT);
    CHECK(st.holey == 0 || st.holey == 2);
    CHECK(bits_of(st.costs, cost_names, ARRAY_SIZE(cost_names)));
    CHECK(bits_of(st.longset, long_names, ARRAY_SIZE(long_names)));
    /* A string value is a word of the line (or the default). */
    CHECK(!strcmp(st.strategies, "all") || strstr(line, st.strategies));
}

/* The value's comma list walks to its end in items that, with their commas, make it up. */
static void check_list_items(const char *s)
{
    const char *p = s, *end = s + strlen(s);
    size_t total = 0, commas = 0;

    for (const char *c = s; *c; c++)
        commas += *c == ',';
    while (*p) {
        const char *before = p;
        size_t n = cmdline_list_item(&p);
        CHECK(p > before && p <= end);
        CHECK(memchr(before, ',', n) == NULL);
        total += n;
    }
    CHECK(total + commas == (size_t)(end - s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[LINE_MAX_BYTES];
    struct err e;

    size = MIN(size, sizeof(buf) - 1);
    memcpy(buf, data, size);
    buf[size] = '\0';
    line = buf;

    defaults();
    /* The reference works on its own copy of the defaults, at the same offsets. */
    const struct cmdline_opt *bad = NULL;
    unsigned unknown;
    ref = st;
    int want = cmdline_reference(buf, opts, ARRAY_SIZE(opts), (char *)&ref - (char *)&st, &bad, &unknown);
    memset(e.msg, 0x5a, sizeof(e.msg));
    int rc = cmdline_parse(buf, opts, ARRAY_SIZE(opts), &e, warn);
    CHECK(rc == want && warnings == unknown);
    CHECK(!memcmp(&ref, &st, sizeof(st)));
    CHECK(rc == 0 || (!strncmp(e.msg, bad->key, strlen(bad->key)) && e.msg[strlen(bad->key)] == '='));
    check_state();
    if (rc) {
        /* The message is terminated, names an option as key=, and says what it takes. */
        size_t n = strnlen(e.msg, sizeof(e.msg));
        CHECK(n < sizeof(e.msg));
        const char *eq = strchr(e.msg, '=');
        CHECK(eq != NULL);
        bool known = false;
        for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
            known |= strlen(opts[i].key) == (size_t)(eq - e.msg) && !strncmp(e.msg, opts[i].key, eq - e.msg);
        CHECK(known);
        CHECK(strstr(e.msg, ": expected ") || strstr(e.msg, "' is not all, none or [+-] one of"));
        /* Whole, never cut at the buffer's end, but where the option's own names are too many. */
        CHECK(n + 1 < sizeof(e.msg) || !strncmp(e.msg, "longset=", 8));
        return 0;
    }
    check_list_items(st.strategies);

    /* A line that parsed applies the same way twice: nothing depends on what it set. */
    struct state once = st;
    unsigned warned = warnings;
    CHECK(cmdline_parse(buf, opts, ARRAY_SIZE(opts), &e, warn) == 0);
    CHECK(!memcmp(&once, &st, sizeof(st)) && warnings == 2 * warned);
    return 0;
}
