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
