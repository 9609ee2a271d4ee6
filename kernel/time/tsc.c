// SPDX-License-Identifier: MIT
// The TSC rate in use: set once by the calibration, read by every figure.
#include "kernel/time/tsc.h"

#include "kernel/lib/libc.h"
#include "kernel/time/calibrate.h"
#include "kernel/time/tsc_math.h"

enum tsc_fence tsc_fence = TSC_FENCE_MFENCE;

static struct {
    bool calibrated;
    enum tsc_src source;
    uint64_t khz;
    struct tsc_scale scale;
    char warning[TIME_WARNINGS_MAX];
} tsc;

bool tsc_calibrated(void) { return tsc.calibrated; }
uint64_t tsc_khz(void) { return tsc.khz; }
uint64_t tsc_hz(void) { return tsc.scale.hz; }
const char *tsc_source(void) { return tsc_src_name(tsc.calibrated ? tsc.source : TSC_SRC_NONE); }
const char *tsc_warning(void) { return tsc.warning[0] ? tsc.warning : NULL; }

uint64_t tsc_to_ns(uint64_t ticks)
{
    /* A zero scale gives 0 for 0 ticks and TSC_NS_UNKNOWN otherwise. */
    return tsc_scale_ns(&tsc.scale, ticks);
}

void tsc_set_rate(enum tsc_src source, uint64_t hz, const char *warnings)
{
    memset(&tsc, 0, sizeof(tsc));
    if (hz) {
        tsc.calibrated = true;
        tsc.source = source;
        tsc_scale_init(&tsc.scale, hz);
        tsc.khz = (hz + 500) / 1000;
    }
    strlcpy(tsc.warning, warnings, sizeof(tsc.warning));
}
