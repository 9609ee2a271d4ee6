// SPDX-License-Identifier: MIT
// The calibration's policy: which clock the kernel believes, and why, in
// words for the report. The arithmetic it rests on is in tsc_math.c.
#include "kernel/time/choose.h"

#include <stdarg.h>

#include "kernel/compiler.h"
#include "kernel/libc.h"
#include "kernel/time/tsc_math.h"

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

uint32_t tsc_agree_ppm(enum tsc_src s)
{
    return s == TSC_SRC_CPUID16 ? TSC_AGREE_NOMINAL_PPM : TSC_AGREE_PPM;
}

/* Symmetric: the difference is taken against the lower figure, the stricter way. */
static bool agree(const struct tsc_clock *clk, enum tsc_src a, enum tsc_src b)
{
    uint64_t lo = MIN(clk[a].hz, clk[b].hz), hi = MAX(clk[a].hz, clk[b].hz);
    uint64_t mag = (uint64_t)tsc_ppm(hi, lo);

    return mag <= MAX(tsc_agree_ppm(a), tsc_agree_ppm(b));
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

/* Appends "a (+1 ppm), b (-2 ppm)" for the references with want == agree(PIT, r). */
static void list_vs_pit(char *buf, const struct tsc_clock *clk, const bool *usable,
                        const int64_t *ppm, bool want)
{
    const char *sep = "";

    for (int r = TSC_SRC_PIT + 1; r < TSC_SRC_COUNT; r++) {
        if (!usable[r] || agree(clk, TSC_SRC_PIT, r) != want)
            continue;
        cat(buf, "%s%s (%+lld ppm)", sep, tsc_src_name(r), (long long)ppm[r]);
        sep = ", ";
    }
}

void tsc_choose(const struct tsc_clock clk[TSC_SRC_COUNT], struct tsc_choice *out)
{
    bool usable[TSC_SRC_COUNT];
    unsigned nref = 0, nagree = 0;
    int best = TSC_SRC_NONE;
    bool vouched = false;

    memset(out, 0, sizeof(*out));
    out->source = TSC_SRC_NONE;
    for (int i = 0; i < TSC_SRC_COUNT; i++) {
        usable[i] = clk[i].state == TSC_CLK_OK && clk[i].hz >= TSC_HZ_MIN &&
                    clk[i].hz <= TSC_HZ_MAX;
        out->status[i] = clk[i].state == TSC_CLK_ABSENT ? TSC_CLK_ABSENT
                         : usable[i] ? TSC_CLK_OK : TSC_CLK_BAD;
        out->has_ppm[i] = clk[i].hz && clk[TSC_SRC_PIT].hz;
        if (out->has_ppm[i])
            out->ppm[i] = tsc_ppm(clk[i].hz, clk[TSC_SRC_PIT].hz);
        if (i != TSC_SRC_PIT && usable[i]) {
            nref++;
            nagree += usable[TSC_SRC_PIT] && agree(clk, TSC_SRC_PIT, i);
        }
    }

    if (usable[TSC_SRC_PIT]) {
        if (nref == 0) {
            best = TSC_SRC_PIT;
            cat(out->reason, "pit: no other clock to compare with");
        } else if (2 * nagree > nref) {
            /* All, or a strict majority: one dissenting reference is
             * likelier wrong than the PIT and the rest together. */
            best = TSC_SRC_PIT;
            cat(out->reason, "pit agrees with ");
            list_vs_pit(out->reason, clk, usable, out->ppm, true);
            if (nagree < nref) {
                cat(out->reason, "; ");
                list_vs_pit(out->reason, clk, usable, out->ppm, false);
                cat(out->reason, " disagree%s", nref - nagree == 1 ? "s" : "");
            }
        } else {
            cat(out->reason, "pit disagrees with ");
            list_vs_pit(out->reason, clk, usable, out->ppm, false);
        }
    } else {
        cat(out->reason, "pit %s", clk[TSC_SRC_PIT].why ? clk[TSC_SRC_PIT].why
                          : clk[TSC_SRC_PIT].state == TSC_CLK_ABSENT ? "absent" : "unusable");
    }

    /* Otherwise the best reference that another clock vouches for. */
    for (int r = TSC_SRC_PIT + 1; best == TSC_SRC_NONE && r < TSC_SRC_COUNT; r++) {
        if (!usable[r])
            continue;
        for (int k = 0; k < TSC_SRC_COUNT; k++) {
            if (k != r && usable[k] && agree(clk, r, k)) {
                best = r;
                vouched = true;
                break;
            }
        }
    }
    for (int r = TSC_SRC_PIT + 1; best == TSC_SRC_NONE && r < TSC_SRC_COUNT; r++)
        if (usable[r])
            best = r;

    if (best == TSC_SRC_NONE) {
        cat(out->reason, "; no usable reference: uncalibrated");
        return;
    }
    if (best != TSC_SRC_PIT && vouched) {
        const char *sep = " ";

        cat(out->reason, "; %s chosen, agrees with", tsc_src_name(best));
        for (int k = 0; k < TSC_SRC_COUNT; k++) {
            if (k != best && usable[k] && agree(clk, best, k)) {
                cat(out->reason, "%s%s", sep, tsc_src_name(k));
                sep = ", ";
            }
        }
    } else if (best != TSC_SRC_PIT) {
        cat(out->reason, "; %s chosen, %s", tsc_src_name(best),
            nref + usable[TSC_SRC_PIT] > 1 ? "uncorroborated" : "the only clock left");
    }
    out->source = best;
    out->hz = clk[best].hz;
    out->calibrated = true;
    /* A usable clock that disagrees with the rate chosen is marked bad. */
    for (int i = 0; i < TSC_SRC_COUNT; i++)
        if (usable[i] && i != best && !agree(clk, i, best))
            out->status[i] = TSC_CLK_BAD;
}
