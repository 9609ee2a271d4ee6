// SPDX-License-Identifier: MIT
// The calibration's policy: which clock the kernel believes, and why, in
// words for the report. The arithmetic it rests on is in tsc_math.c.
#include "kernel/time/choose.h"

#include <stdarg.h>

#include "kernel/lib/compiler.h"
#include "kernel/lib/libc.h"
#include "kernel/time/tsc_math.h"

/* Within a kind, the order in which ties are broken. */
static const enum tsc_src rank[TSC_SRC_COUNT] = {
    TSC_SRC_PIT, TSC_SRC_HPET, TSC_SRC_PMTIMER, TSC_SRC_CPUID15, TSC_SRC_HYPERVISOR,
    TSC_SRC_CPUID16,
};

const char *tsc_src_name(enum tsc_src s)
{
    static const char *const names[TSC_SRC_COUNT + 1] = {
        [TSC_SRC_PIT] = "pit",
        [TSC_SRC_HYPERVISOR] = "hypervisor",
        [TSC_SRC_CPUID15] = "cpuid15",
        [TSC_SRC_HPET] = "hpet",
        [TSC_SRC_PMTIMER] = "pmtimer",
        [TSC_SRC_CPUID16] = "cpuid16",
        [TSC_SRC_NONE] = "none",
    };
    return (unsigned)s <= TSC_SRC_NONE ? names[s] : "?";
}

const char *tsc_kind_name(enum tsc_kind k)
{
    switch (k) {
    case TSC_KIND_NOMINAL: return "nominal";
    case TSC_KIND_COMPUTED: return "computed";
    case TSC_KIND_MEASURED: return "measured";
    }
    return "?";
}

uint32_t tsc_agree_ppm(enum tsc_kind k)
{
    return k == TSC_KIND_NOMINAL ? TSC_AGREE_NOMINAL_PPM : TSC_AGREE_PPM;
}

uint64_t tsc_agree_bound(const struct tsc_clock *a, const struct tsc_clock *b)
{
    return (uint64_t)MAX(tsc_agree_ppm(a->kind), tsc_agree_ppm(b->kind)) + a->unc_ppm + b->unc_ppm;
}

/* Symmetric: the difference is taken against the lower figure, the stricter way. */
static bool agree(const struct tsc_clock *clk, enum tsc_src a, enum tsc_src b)
{
    uint64_t lo = MIN(clk[a].hz, clk[b].hz), hi = MAX(clk[a].hz, clk[b].hz);

    return (uint64_t)tsc_ppm(hi, lo) <= tsc_agree_bound(&clk[a], &clk[b]);
}

__printf(2, 3) static void cat(char *buf, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;

    if (len + 1 >= TSC_REASON_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + len, TSC_REASON_MAX - len, fmt, ap);
    va_end(ap);
}

/*
 * Appends "a, b" for the usable clocks other than of whose agreement with
 * of is want, each with its ppm against the PIT when of is the PIT
 * ("a (+1 ppm), b (-2 ppm)"); returns how many it listed.
 */
static unsigned list(char *buf, const struct tsc_clock *clk, const bool *usable,
                     const struct tsc_choice *out, enum tsc_src of, bool want)
{
    unsigned n = 0;

    for (int r = 0; r < TSC_SRC_COUNT; r++) {
        if (r == (int)of || !usable[r] || agree(clk, of, r) != want)
            continue;
        if (of == TSC_SRC_PIT && out->has_ppm[r])
            cat(buf, "%s%s (%+lld ppm)", n ? ", " : "", tsc_src_name(r), (long long)out->ppm[r]);
        else
            cat(buf, "%s%s", n ? ", " : "", tsc_src_name(r));
        n++;
    }
    return n;
}

/* The winner within the most trusted kind present (rule 2), or NONE. */
static int pick(const struct tsc_clock *clk, const bool *usable)
{
    int best = TSC_SRC_NONE, kind = -1;
    unsigned best_peers = 0, best_lesser = 0;

    for (int i = 0; i < TSC_SRC_COUNT; i++)
        if (usable[i] && (int)clk[i].kind > kind)
            kind = (int)clk[i].kind;
    for (int k = 0; kind >= 0 && k < TSC_SRC_COUNT; k++) {
        int i = rank[k];
        unsigned peers = 0, lesser = 0;

        if (!usable[i] || (int)clk[i].kind != kind)
            continue;
        for (int j = 0; j < TSC_SRC_COUNT; j++) {
            if (j == i || !usable[j] || !agree(clk, i, j))
                continue;
            if ((int)clk[j].kind == kind)
                peers++;
            else
                lesser++;
        }
        if (best == TSC_SRC_NONE || peers > best_peers ||
            (peers == best_peers && lesser > best_lesser)) {
            best = i;
            best_peers = peers;
            best_lesser = lesser;
        }
    }
    return best;
}

/* True when a usable clock of the same kind as of disagrees with it. */
static bool peer_dissents(const struct tsc_clock *clk, const bool *usable, enum tsc_src of)
{
    for (int r = 0; r < TSC_SRC_COUNT; r++)
        if (r != (int)of && usable[r] && clk[r].kind == clk[of].kind && !agree(clk, of, r))
            return true;
    return false;
}

/* The reason, in words: first what the PIT said, then what was chosen instead. */
static void explain(const struct tsc_clock *clk, const bool *usable, unsigned nusable, int best,
                    struct tsc_choice *out)
{
    char *why = out->reason;
    char part[TSC_REASON_MAX] = "";

    if (!usable[TSC_SRC_PIT]) {
        cat(why, "pit %s", clk[TSC_SRC_PIT].why ? clk[TSC_SRC_PIT].why
                          : clk[TSC_SRC_PIT].state == TSC_CLK_ABSENT ? "absent" : "unusable");
    } else if (nusable == 1) {
        cat(why, "pit: no other clock to compare with");
        return;
    } else if (best == TSC_SRC_PIT) {
        char dis[TSC_REASON_MAX] = "";
        unsigned ndis = list(dis, clk, usable, out, TSC_SRC_PIT, false);

        if (list(part, clk, usable, out, TSC_SRC_PIT, true)) {
            cat(why, "pit agrees with %s", part);
            if (ndis)
                cat(why, "; %s disagree%s", dis, ndis == 1 ? "s" : "");
        } else if (peer_dissents(clk, usable, TSC_SRC_PIT)) {
            cat(why, "pit disagrees with %s; kept, first in rank with nothing to break the tie",
                dis);
        } else {
            cat(why, "pit disagrees with %s; kept, as no lesser kind of figure overrides a %s one",
                dis, tsc_kind_name(clk[TSC_SRC_PIT].kind));
        }
        return;
    } else {
        cat(why, "pit disagrees with ");
        list(why, clk, usable, out, TSC_SRC_PIT, false);
    }
    if (best == TSC_SRC_NONE)
        cat(why, "; no usable reference: uncalibrated");
    else if (nusable == 1)
        cat(why, "; %s chosen, the only clock left", tsc_src_name(best));
    else if (list(part, clk, usable, out, (enum tsc_src)best, true))
        cat(why, "; %s chosen, agrees with %s", tsc_src_name(best), part);
    else
        cat(why, "; %s chosen, uncorroborated", tsc_src_name(best));
}

void tsc_choose(const struct tsc_clock clk[TSC_SRC_COUNT], struct tsc_choice *out)
{
    bool usable[TSC_SRC_COUNT];
    unsigned nusable = 0;
    int best;

    memset(out, 0, sizeof(*out));
    out->source = TSC_SRC_NONE;
    for (int i = 0; i < TSC_SRC_COUNT; i++) {
        usable[i] = clk[i].state == TSC_CLK_OK && clk[i].hz >= TSC_HZ_MIN &&
                    clk[i].hz <= TSC_HZ_MAX;
        nusable += usable[i];
        out->status[i] = clk[i].state == TSC_CLK_ABSENT ? TSC_CLK_ABSENT
                         : usable[i] ? TSC_CLK_OK : TSC_CLK_BAD;
        out->has_ppm[i] = clk[i].hz && clk[TSC_SRC_PIT].hz;
        if (out->has_ppm[i])
            out->ppm[i] = tsc_ppm(clk[i].hz, clk[TSC_SRC_PIT].hz);
    }
    best = pick(clk, usable);
    if (best != TSC_SRC_NONE) {
        out->source = (enum tsc_src)best;
        out->hz = clk[best].hz;
        out->kind = clk[best].kind;
        out->unc_ppm = clk[best].unc_ppm;
        out->calibrated = true;
    }
    explain(clk, usable, nusable, best, out);
    /* A usable clock that disagrees with the rate chosen is marked bad. */
    for (int i = 0; best != TSC_SRC_NONE && i < TSC_SRC_COUNT; i++)
        if (usable[i] && i != best && !agree(clk, i, best))
            out->status[i] = TSC_CLK_BAD;
}
