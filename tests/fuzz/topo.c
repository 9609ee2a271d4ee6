// SPDX-License-Identifier: MIT
// The bootinfo target's firmware-tables mode (tests/fuzz/fuzz_bootinfo.c,
// byte 0 bit 4): a MADT, an SRAT and a SLIT through their parsers and the
// node map built from them, with the invariants every result must keep.
#include "tests/fuzz/topo.h"

#include <stdlib.h>
#include <string.h>

#include "kernel/acpi/topo.h"
#include "kernel/lib/errno.h"
#include "mm/e820.h"
#include "mm/numa.h"
#include "tests/fuzz/check.h"

/* The next table of buf: as long as its header says, or what is left. */
static uint32_t next_table(const uint8_t *buf, size_t size, size_t *off)
{
    uint32_t len = 0;

    if (size - *off >= 8)
        memcpy(&len, buf + *off + 4, 4);
    if (len > size - *off || len < 8)
        len = (uint32_t)(size - *off);
    *off += len;
    return len;
}

/* A node map built from the accepted SRAT maps every range to its node. */
static void check_node_map(const struct topo *t)
{
    struct node_range b[TOPO_MAX_MEMBLKS];
    uint64_t entries;

    for (unsigned i = 0; i < t->nmemblks; i++)
        b[i] = (struct node_range){ t->mem[i].start >> 12, (t->mem[i].end + 4095) >> 12,
                                    t->mem[i].node };
    unsigned shift = numa_hash_shift(b, t->nmemblks, &entries);
    CHECK(shift <= MEMNODE_SHIFT_ONE && entries >= 1);
    if (entries > (1u << 20))
        return;
    uint8_t *map = malloc(entries);
    struct err e;
    if (map && numa_populate(map, entries, b, t->nmemblks, shift, &e) == 0) {
        for (unsigned i = 0; i < t->nmemblks; i++) {
            CHECK(map[b[i].s >> shift] == b[i].node);
            CHECK(map[(b[i].e - 1) >> shift] == b[i].node);
        }
    }
    free(map);
}

void fuzz_topo(const uint8_t *buf, size_t size)
{
    static struct topo t;
    struct e820_map map = { 3, { { 0, 0x9fc00, E820_RAM }, { 0x9fc00, 0x400, E820_RESERVED },
                                 { 0x100000, 0x7ff00000, E820_RAM } } };
    size_t off = 0;
    struct err e;
    uint32_t len;
    int rc;

    topo_reset(&t);
    len = next_table(buf, size, &off);
    rc = topo_parse_madt(&t, buf, len, &e);
    if (!rc) {
        size_t at = off;
        len = next_table(buf, size, &off);
        rc = topo_parse_srat(&t, buf + at, len, &e);
    }
    if (!rc && t.srat) {
        size_t at = off;
        len = next_table(buf, size, &off);
        topo_parse_slit(&t, buf + at, len, &e);
    }
    if (!rc)
        rc = topo_finish(&t, &map, 0, &e);
    if (rc) {
        CHECK(rc == -EINVAL || rc == -E2BIG || rc == -ERANGE);
        check_string(e.msg, sizeof(e.msg));
        topo_fallback(&t, 0, e.msg);
        CHECK(t.ncpus == 1 && t.nmemblks == 0 && t.fallback);
        return;
    }
    CHECK(t.ncpus >= 1 && t.ncpus <= TOPO_MAX_CPUS && t.nnodes <= TOPO_MAX_NODES);
    for (unsigned c = 0; c < t.ncpus; c++)
        CHECK(!t.srat || t.cpu[c].node < t.nnodes);
    for (unsigned i = 0; i < t.nmemblks; i++) {
        CHECK(t.mem[i].start < t.mem[i].end && t.mem[i].node < t.nnodes);
        CHECK(i == 0 || t.mem[i - 1].end <= t.mem[i].start);
    }
    if (t.srat)
        check_node_map(&t);
}
