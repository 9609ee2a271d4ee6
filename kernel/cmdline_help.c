// SPDX-License-Identifier: MIT
// `help`: every option the kernel knows, from the option registry itself,
// on screen and as records, so that documentation can be checked against it.
#include "kernel/cmdline.h"

#include <stdint.h>

#include "kernel/console/printk.h"
#include "kernel/console/record.h"

static bool opt_help;

CMDLINE_OPT(help, .key = "help", .type = OPT_FLAG, .dst = &opt_help,
            .help = "print every option, its values and its default, then stop");

extern const struct cmdline_opt __cmdline_opts_start[], __cmdline_opts_end[];

static const char *const kind_names[] = {
    [OPT_FLAG] = "flag", [OPT_UINT] = "uint", [OPT_STR] = "string", [OPT_CHOICE] = "choice",
    [OPT_SET] = "set", [OPT_RENAMED] = "renamed",
};

/* An OPT_SET value as the option takes it: "all", "none", or the items on. */
static void describe_set(const struct cmdline_opt *o, char *buf, size_t size)
{
    unsigned v = *(const unsigned *)o->dst, all = 0;
    size_t n = 0;

    for (unsigned i = 0; o->choices[i]; i++)
        all |= 1u << i;
    snprintf(buf, size, "%s", v == all ? "all" : "none");
    for (unsigned i = 0; o->choices[i] && v != all && n < size; i++)
        if (v >> i & 1)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "", o->choices[i]);
}

/* One option: an `option` record for tools, then a line for people. */
static void describe(const struct cmdline_opt *o)
{
    char text[160];
    struct record r;
    int n = 0;

    record_begin(&r, "option");
    record_str(&r, "key", o->key);
    record_str(&r, "kind", kind_names[o->type]);
    switch (o->type) {
    case OPT_RENAMED:               /* not an option: cmdline_help() leaves it out */
        break;
    case OPT_FLAG:
        record_bool(&r, "value", *(const bool *)o->dst);
        snprintf(text, sizeof(text), "flag, %s", *(const bool *)o->dst ? "on" : "off");
        break;
    case OPT_UINT:
        record_u64(&r, "value", *(const unsigned *)o->dst);
        record_u64(&r, "min", o->min);
        record_u64(&r, "max", o->max);
        snprintf(text, sizeof(text), "%u-%u, %u", o->min, o->max, *(const unsigned *)o->dst);
        break;
    case OPT_STR:
        record_str(&r, "value", (const char *)o->dst);
        snprintf(text, sizeof(text), "text, '%s'", (const char *)o->dst);
        break;
    case OPT_SET:
    case OPT_CHOICE:
        if (o->type == OPT_SET) {
            char value[96];
            describe_set(o, value, sizeof(value));
            record_str(&r, "value", value);
        } else {
            record_str(&r, "value", o->choices[*(const int *)o->dst]);
        }
        record_arr_begin(&r, "choices");
        n = snprintf(text, sizeof(text), o->type == OPT_SET ? "all, none or a list of" : "one of");
        for (unsigned i = 0; i < o->nchoices; i++) {
            if (!o->choices[i])
                continue;
            record_str(&r, NULL, o->choices[i]);
            if (n > 0 && (size_t)n < sizeof(text))
                n += snprintf(text + n, sizeof(text) - (size_t)n, " %s", o->choices[i]);
        }
        record_arr_end(&r);
        if (n > 0 && (size_t)n < sizeof(text) && o->type == OPT_CHOICE)
            snprintf(text + n, sizeof(text) - (size_t)n, ", %s", o->choices[*(const int *)o->dst]);
        break;
    }
    record_str(&r, "help", o->help);
    record_end(&r);
    printk("  %-16s %s: %s\n", o->key, text, o->help);
}

bool cmdline_help(void)
{
    if (!opt_help)
        return false;
    printk("options (with `help` alone on the command line, each shows its default):\n");
    for (const struct cmdline_opt *o = __cmdline_opts_start; o < __cmdline_opts_end; o++)
        if (o->type != OPT_RENAMED)
            describe(o);
    return true;
}
