// SPDX-License-Identifier: MIT
// The ACPI PM timer driver: a free-running counter at a port the FADT names.
#include "kernel/time/pmtimer.h"

#include "kernel/time/clkio.h"

static uint64_t pmtmr_read(const struct ref *r)
{
    return clkio_inl(r->port) & r->mask;
}

void pmtmr_open(struct ref *r, uint16_t port, bool bits32)
{
    r->read = pmtmr_read;
    r->port = port;
    r->mask = bits32 ? UINT32_MAX : 0xffffffu;
    r->num = PMTMR_HZ;
    r->den = 1;
    r->present = true;
}

void pmtmr_check_width(struct ref *r)
{
    bool high = false, back = false;

    if (!r->present || r->src != TSC_SRC_PMTIMER)
        return;
    if (r->mask == 0xffffffu) {
        /* Bits 31:24 of a 24-bit timer read as zero. */
        if (clkio_inl(r->port) >> 24)
            r->note = "declared 24 bits wide, but counts in 32: read as 24";
        return;
    }
    for (unsigned i = 0; i < r->n; i++) {
        high |= r->cnt[i] >> 24;
        back |= i && r->cnt[i] < r->cnt[i - 1];
    }
    /* A 32-bit counter goes back only after reaching 2^32; one that went
     * back without ever passing 2^24 wrapped there. */
    if (back && !high) {
        r->mask = 0xffffffu;
        r->note = "declared 32 bits wide, but wraps at 24: read as 24";
    }
}
