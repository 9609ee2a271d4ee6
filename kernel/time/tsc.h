/* SPDX-License-Identifier: MIT */
/*
 * The TSC as the benchmark's clock: the ordered read that brackets every
 * timed window, and ticks turned into nanoseconds at the rate that
 * time_init() (kernel/time/time.h) chose. Everything a timed window needs.
 */
#ifndef KERNEL_TIME_TSC_H
#define KERNEL_TIME_TSC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * What keeps RDTSC from running ahead of the instructions before it.
 * RDTSC alone may execute before earlier instructions finish, so the end of
 * a window could be read while its last stores are still in flight.
 *  - LFENCE completes every earlier instruction locally before RDTSC
 *    starts: always on Intel, and on AMD and Hygon only where LFENCE is
 *    dispatch-serialising. CPUID 0x80000021 EAX bit 2 says it always is;
 *    older parts need MSR DE_CFG bit 1, which only the firmware or a host
 *    kernel can be trusted to have set, and which a guest cannot check.
 *  - MFENCE stops RDTSC's speculation on AMD and Hygon whatever DE_CFG
 *    holds: Xen's choice (X86_FEATURE_MFENCE_RDTSC) where it cannot rely
 *    on LFENCE, and the one made here.
 * Either is chosen over RDTSCP because it needs no feature bit (some CPU
 * models that hypervisors expose omit RDTSCP). MFENCE is the default until
 * time_init() has read the CPU: it orders on every vendor.
 */
enum tsc_fence { TSC_FENCE_MFENCE, TSC_FENCE_LFENCE };
extern enum tsc_fence tsc_fence;

/*
 * The ordered TSC read that brackets every timed window: the fence above,
 * then RDTSC. Later instructions may start before RDTSC samples, so the
 * start of a window can lose at most a pipeline's worth of work: tens of
 * ns, far below the millisecond windows it brackets. The "memory" clobber
 * stops the compiler from moving loads and stores across the read.
 *
 * Returns raw TSC ticks; tsc_to_ns() converts a difference of two reads.
 */
static inline uint64_t tsc_now(void)
{
    uint32_t lo, hi;

    if (tsc_fence == TSC_FENCE_LFENCE)
        __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    else
        __asm__ volatile("mfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* True once time_init() found a usable TSC rate. */
bool tsc_calibrated(void);

/* The chosen TSC rate in kHz, rounded to nearest; 0 when uncalibrated. */
uint64_t tsc_khz(void);

/* The chosen TSC rate in Hz, as the scale uses it; 0 when uncalibrated. */
uint64_t tsc_hz(void);

/* The clock the rate came from: "pit", "hypervisor", "cpuid15", "hpet", "pmtimer", "cpuid16", or "none". */
const char *tsc_source(void);

/* What tsc_to_ns() returns for a nonzero interval when there is no rate. */
#define TSC_NS_UNKNOWN UINT64_MAX

/*
 * ticks (a difference of two tsc_now() reads) in ns, by multiply and shift:
 * less than 1 ns from the exact value for any interval under 292 years, so
 * exact to 1 ns for an hour at 10 GHz. 0 ticks is 0 ns. Uncalibrated, it
 * returns TSC_NS_UNKNOWN for any other interval rather than pretend.
 */
uint64_t tsc_to_ns(uint64_t ticks);

/*
 * A one-line warning that every report of timed results must print, or NULL
 * when there is nothing to warn about (an invariant, calibrated TSC).
 */
const char *tsc_warning(void);

#endif
