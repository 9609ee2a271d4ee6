// SPDX-License-Identifier: MIT
// Which strategies a benchmark runs (strategies=, from Xen's heap's and the
// peers' registries) and which floors they need.
#include "bench/pick.h"

#include "kernel/cmdline.h"
#include "kernel/lib/compiler.h"
#include "kernel/console/printk.h"
#include "kernel/lib/string.h"

/* Strategies renamed since records were first kept: the old name is refused with its new one. */
static const char *const renamed[][2] = { { "once", "sweep" }, { "chunk_72b02bc", "chunk-72b02bc" } };

/* Adds strategy name (len bytes) to the run, Xen's or a peer; its peer must have its page array. */
static int add_strategy(struct series *series, unsigned *nstrat, const char *name, size_t len, bool asked,
                        struct err *e)
{
    const struct heap_strategy *s = heap_strategy_find(name, len);
    const struct peer_strategy *p = s ? NULL : peer_strategy_find(name, len);
    const char *opt = heap_strategies_option();

    for (unsigned i = 0; !s && !p && i < ARRAY_SIZE(renamed); i++)
        if (len == strlen(renamed[i][0]) && !memcmp(name, renamed[i][0], len))
            return err_set(e, -EINVAL, "strategies=%s: '%s' is now called '%s'", opt, renamed[i][0],
                           renamed[i][1]);
    if (!s && !p) {
        char known[160] = "";
        for (unsigned i = 0; heap_strategies[i]; i++) {
            size_t k = strlen(known);
            snprintf(known + k, sizeof(known) - k, "%s%s", k ? " " : "", heap_strategies[i]->name);
        }
        for (unsigned i = 0; peer_strategies[i]; i++) {
            size_t k = strlen(known);
            snprintf(known + k, sizeof(known) - k, " %s", peer_strategies[i]->name);
        }
        return err_set(e, -EINVAL, "strategies=%s: unknown strategy '%.*s' (known: %s)", opt, (int)len,
                       name, known);
    }
    for (unsigned i = 0; i < *nstrat; i++)
        if ((s && series[i].s == s) || (p && series[i].p == p))
            return err_set(e, -EINVAL, "strategies=%s: '%s' is listed twice", opt, s ? s->name : p->name);
    if (p && !peer_layout_ready(p->layout)) {
        if (asked)
            return err_set(e, -ENOMEM, "strategies=%s: %s needs the %s, which did not fit in boot "
                           "memory", opt, p->name, peer_layouts[p->layout].what);
        printk("bench: %s left out: the %s did not fit in boot memory\n", p->name,
               peer_layouts[p->layout].what);
        return 0;
    }
    if (*nstrat == BENCH_MAX_STRATEGIES)
        return err_set(e, -E2BIG, "strategies=%s: more than %u strategies", opt, BENCH_MAX_STRATEGIES);
    series[(*nstrat)++] = (struct series){ .s = s, .p = p, .name = s ? s->name : p->name };
    return 0;
}

/* strategies=a,b: each name once, each one registered; then the floors the run needs. */
int bench_pick(struct series *series, unsigned *nstrat, struct series *floors, unsigned *nfloors,
               unsigned par_cpus, struct err *e)
{
    const char *p = heap_strategies_option();
    int rc = 0;

    if (!*p) {
        for (unsigned i = 0; heap_strategies[i] && !rc; i++)
            rc = add_strategy(series, nstrat, heap_strategies[i]->name, strlen(heap_strategies[i]->name), false, e);
        for (unsigned i = 0; peer_strategies[i] && !rc; i++)
            rc = add_strategy(series, nstrat, peer_strategies[i]->name, strlen(peer_strategies[i]->name), false, e);
    }
    while (*p && !rc) {
        const char *item = p;
        size_t len = cmdline_list_item(&p);
        rc = add_strategy(series, nstrat, item, len, true, e);
    }
    if (rc)
        return rc;
    if (!*nstrat)
        return err_set(e, -EINVAL, "strategies=%s: no strategy can run", heap_strategies_option());
    for (unsigned i = 0; i < *nstrat; i++) {
        struct series *x = &series[i];
        x->cpus = x->s && x->s->eager ? par_cpus : 1;
        x->later_cpus = x->p && x->p->later ? par_cpus : 0;
    }
    floors[(*nfloors)++] = (struct series){ .name = "floor", .layout = FLOOR_XEN, .cpus = par_cpus };
    for (unsigned l = 0; l < PEER_LAYOUTS; l++)
        for (unsigned i = 0; i < *nstrat; i++)
            if (series[i].p && (unsigned)series[i].p->layout == l) {
                floors[(*nfloors)++] = (struct series){ .name = l == PEER_LINUX ? "floor_linux" : "floor_freebsd",
                                                     .layout = (int)l, .cpus = par_cpus };
                break;
            }
    return 0;
}

