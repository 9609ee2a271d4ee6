/* SPDX-License-Identifier: MIT */
/*
 * Kernel command line: space-separated "key=value" or bare "key" words.
 * Each subsystem declares its own options with CMDLINE_OPT(); unknown keys
 * draw a warning, a bad value for a known key is an error.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/lib/compiler.h"
#include "kernel/lib/errno.h"

enum opt_type {
    OPT_FLAG,       /* bool: "key", "key=1", "key=0", "key=on", "key=off" */
    OPT_UINT,       /* unsigned int in [min, max] */
    OPT_STR,        /* char[size], copied with its NUL */
    OPT_CHOICE,     /* an int-sized enum: the value whose name matched */
    OPT_SET,        /* unsigned: bit i set = choices[i] on; see cmdline_parse() */
    OPT_RENAMED,    /* no value: a key renamed since, refused naming `renamed` */
};

struct cmdline_opt {
    const char *key;
    enum opt_type type;
    void *dst;
    unsigned min, max;              /* OPT_UINT */
    size_t size;                    /* OPT_STR */
    const char *const *choices;     /* OPT_CHOICE: names indexed by the enum's values;
                                       OPT_SET: names indexed by bit number */
    unsigned nchoices;
    const char *renamed;            /* OPT_RENAMED: the key it became */
    const char *help;
};

#define CMDLINE_OPT(name, ...)                                              \
    static const struct cmdline_opt cmdline_opt_##name                      \
        __attribute__((used, section(".cmdline_opts"), aligned(8))) = { __VA_ARGS__ }

/*
 * An option with named choices: var is an enum whose values index names[],
 * a table written with designated initialisers ([BOOTSCRUB_OFF] = "off"),
 * so that reordering either one cannot change what a name means. The key
 * is the option's name.
 */
/*
 * A key renamed since command lines were written with it: old=anything
 * fails, naming new= instead of being ignored as unknown; `help` leaves
 * it out.
 */
#define CMDLINE_RENAMED(old, new)                                           \
    CMDLINE_OPT(old##_renamed, .key = #old, .type = OPT_RENAMED, .renamed = #new)

#define CMDLINE_CHOICE(name, var, names, helptext)                          \
    _Static_assert(sizeof(var) == sizeof(int), #var " must be an int-sized enum"); \
    CMDLINE_OPT(name, .key = #name, .type = OPT_CHOICE, .dst = &(var),     \
                .choices = (names), .nchoices = ARRAY_SIZE(names), .help = (helptext))

typedef void (*cmdline_warn_fn)(const char *msg);

/*
 * Applies line to opts. Returns 0, or -EINVAL with e naming the key and what
 * it takes (a bad value for a known key), or a key renamed since (naming the
 * new one). Unknown keys go to warn and are skipped. A first word that starts
 * with '/' is a loader's kernel path and skipped.
 *
 * An OPT_SET value is a comma-separated list applied left to right: "all"
 * and "none", "NAME" or "+NAME" to add a choice, "-NAME" to remove one. It
 * starts from the option's current value (its default), or from none when
 * its first item is a bare NAME: "a,b" means exactly a and b, "-a" all but a.
 */
int cmdline_parse(const char *line, const struct cmdline_opt *opts, size_t nopts,
                  struct err *e, cmdline_warn_fn warn);

/*
 * Walks a comma-separated option value: returns the length of the item that
 * starts at *p and moves *p past it and its comma. Loop while **p.
 */
size_t cmdline_list_item(const char **p);

/*
 * With `help` on the command line: prints every registered option (its
 * kind, values, current value and help) as text and as `option` records,
 * and returns true; the caller then ends the run. Otherwise returns false.
 */
bool cmdline_help(void);

/* Applies the kernel's command line to every CMDLINE_OPT(); panics on error. */
void cmdline_apply(const char *line);

#endif
