// SPDX-License-Identifier: MIT
// One set of rules for every timed window: the prelude it opens on, the
// ways a floor is timed, and the repetition of a window too short to time
// once (bench/measure.h).
#include "bench/measure.h"

#include "bench/window.h"
#include "kernel/cmdline.h"
#include "kernel/time/tsc.h"
#include "mm/peers/peer.h"

/*
 * A window shorter than this is repeated inside its measurement until the
 * repetitions' total passes it, and reported per repetition: a window of a
 * few microseconds is otherwise at the mercy of one interrupt, one clock
 * read or one cache line.
 */
static unsigned opt_repeat_us = 1000;
CMDLINE_OPT(repeat_us, .key = "repeat_us", .type = OPT_UINT, .dst = &opt_repeat_us, .min = 0,
            .max = 1000000, .help = "repeat a timed window until its total passes this many us "
                                    "(default 1000; 0: time each once)");

/* Tests: after every rewind, check that it left the tables as a reset would (a scan of them all). */
static bool opt_rewind_check;
CMDLINE_OPT(rewind_check, .key = "rewind_check", .type = OPT_FLAG, .dst = &opt_rewind_check,
            .help = "check after each rewind that every entry is zero again (slow; for tests)");

/* At most this many repetitions, and this much prelude (a full reset each) between them. */
#define REPEAT_MAX 1000u
#define REPEAT_PRELUDE_MS 250u

/* "plain": 8-byte stores, the loop an init's own marking would be (no string instruction). */
static void *fill_plain(void *dst, int c, size_t n)
{
    uint64_t v = 0x0101010101010101ull * (uint8_t)c, *q = dst;
    uint8_t *b;

    for (size_t i = 0; i < n / 8; i++)
        q[i] = v;
    b = (uint8_t *)(q + n / 8);
    for (size_t i = 0; i < n % 8; i++)
        b[i] = (uint8_t)c;
    return dst;
}

/*
 * "nt": 8-byte non-temporal stores (movnti), fenced: they write whole lines
 * without reading them first and leave them out of the cache. Twice as
 * fast as any other way here on the Xeon of docs/hosted-speeds.md; slower
 * than rep stosq on the EPYC of docs/results-hosted.md.
 */
static void *fill_nt(void *dst, int c, size_t n)
{
    uint64_t v = 0x0101010101010101ull * (uint8_t)c, *q = dst;

    for (size_t i = 0; i < n / 8; i++)
        __asm__ volatile("movnti %1, %0" : "=m"(q[i]) : "r"(v));
    __asm__ volatile("sfence" ::: "memory");
    fill_plain(q + n / 8, c, n % 8);
    return dst;
}

unsigned bench_floor_ways(const char **names, heap_fill_fn **fills, unsigned max)
{
    heap_fill_fn *libc = bench_libc_fill();
    unsigned n = 0;

    if (n < max)
        names[n] = "rep", fills[n++] = heap_memset;
    if (n < max && !bench_window_exact())
        names[n] = "plain", fills[n++] = fill_plain;
    if (n < max && !bench_window_exact())
        names[n] = "nt", fills[n++] = fill_nt;
    if (libc && n < max)
        names[n] = "libc", fills[n++] = libc;
    return n;
}

/* The reset of a peer layout's array: the reset of the first peer that uses it. */
static int layout_reset(int layout, struct err *e)
{
    for (unsigned i = 0; peer_strategies[i]; i++)
        if ((int)peer_strategies[i]->layout == layout)
            return peer_strategies[i]->reset(e);
    return 0;
}

int bench_prelude(const struct series *x, struct err *e)
{
    struct err why;
    int rc = 0;

    if (x->p) {
        if ((rc = x->p->reset(&why)))
            return err_set(e, rc, "%s: %s", x->p->name, why.msg);
    } else if (!x->s && x->layout != FLOOR_XEN) {
        if ((rc = layout_reset(x->layout, &why)))
            return err_set(e, rc, "%s: %s", x->name, why.msg);
    } else {
        heap_reset();
    }
    bench_window_settle();
    return 0;
}

bool bench_repeat(struct reps *r, uint64_t ticks, bool with_prelude, uint64_t also)
{
    uint64_t khz = tsc_calibrated() ? tsc_khz() : 1000000;

    uint64_t limit = (uint64_t)opt_repeat_us * khz / 1000;

    if (!r->n++) {
        r->first = ticks;
        r->also_first = also;
    }
    r->ticks += ticks;
    r->also += also;
    /*
     * A window undone by a rewind is repeated even when its first repetition
     * is long: what makes it long is the host's cost of first accesses to far pages
     * (docs/hosted-speeds.md), and the repetitions after it are cheap and
     * are what is reported. One undone by its whole prelude is not.
     */
    if (!opt_repeat_us || bench_window_exact() || r->n >= REPEAT_MAX ||
        (with_prelude && r->first + r->also_first >= limit) ||
        (r->n > 1 && r->ticks - r->first + r->also - r->also_first >= limit))
        return false;
    return !with_prelude || r->prelude_ticks < (uint64_t)REPEAT_PRELUDE_MS * khz;
}

int bench_rewound(const struct series *x, struct err *e)
{
    if (!opt_rewind_check)
        return 0;
    if (x->p ? !peer_array_zero(x->p->layout) : !heap_tables_zero())
        return err_set(e, -EINVAL, "%s: its rewind left entries a reset would have zeroed", x->name);
    return 0;
}
