// SPDX-License-Identifier: MIT
// Host tests for kernel/acpi/topo.c (MADT, SRAT, SLIT and the fallback rules),
// kernel/acpi/acpi_find.c and mm/numa.c (Xen's hash shift and node map), over
// tables built here byte by byte.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kernel/acpi/acpi_find.h"
#include "kernel/acpi/topo.h"
#include "mm/numa.h"

/* ---- building tables ---------------------------------------------------------- */

struct tbl {
    uint8_t b[8192];
    uint32_t len;
};

static void put(struct tbl *t, const void *p, uint32_t n)
{
    memcpy(t->b + t->len, p, n);
    t->len += n;
}

static void put8(struct tbl *t, uint8_t v) { put(t, &v, 1); }
static void put16(struct tbl *t, uint16_t v) { put(t, &v, 2); }
static void put32(struct tbl *t, uint32_t v) { put(t, &v, 4); }
static void put64(struct tbl *t, uint64_t v) { put(t, &v, 8); }

/* A header with sig and revision, then extra bytes of table-specific header. */
static void begin(struct tbl *t, const char *sig, uint8_t rev, uint32_t extra)
{
    memset(t, 0, sizeof(*t));
    memcpy(t->b, sig, 4);
    t->b[8] = rev;
    t->len = 36 + extra;
}

/* Sets the length and the checksum. */
static const uint8_t *end(struct tbl *t)
{
    uint8_t sum = 0;

    memcpy(t->b + 4, &t->len, 4);
    t->b[9] = 0;
    for (uint32_t i = 0; i < t->len; i++)
        sum = (uint8_t)(sum + t->b[i]);
    t->b[9] = (uint8_t)-sum;
    return t->b;
}

static void madt_begin(struct tbl *t)
{
    begin(t, "APIC", 4, 8);
    memcpy(t->b + 36, &(uint32_t){ 0xfee00000 }, 4);
}

static void madt_lapic(struct tbl *t, uint8_t uid, uint8_t id, uint32_t flags)
{
    put8(t, MADT_LAPIC); put8(t, 8); put8(t, uid); put8(t, id); put32(t, flags);
}

static void madt_x2apic(struct tbl *t, uint32_t id, uint32_t flags, uint32_t uid)
{
    put8(t, MADT_X2APIC); put8(t, 16); put16(t, 0); put32(t, id); put32(t, flags); put32(t, uid);
}

static void srat_begin(struct tbl *t, uint8_t rev)
{
    begin(t, "SRAT", rev, 12);
}

static void srat_cpu(struct tbl *t, uint8_t id, uint32_t pxm, uint32_t flags)
{
    put8(t, SRAT_CPU); put8(t, 16); put8(t, (uint8_t)pxm); put8(t, id); put32(t, flags);
    put8(t, 0); put8(t, (uint8_t)(pxm >> 8)); put8(t, (uint8_t)(pxm >> 16));
    put8(t, (uint8_t)(pxm >> 24)); put32(t, 0);
}

static void srat_x2apic(struct tbl *t, uint32_t id, uint32_t pxm, uint32_t flags)
{
    put8(t, SRAT_X2APIC); put8(t, 24); put16(t, 0); put32(t, pxm); put32(t, id);
    put32(t, flags); put32(t, 0); put32(t, 0);
}

static void srat_mem(struct tbl *t, uint32_t pxm, uint64_t base, uint64_t len, uint32_t flags)
{
    put8(t, SRAT_MEMORY); put8(t, 40); put32(t, pxm); put16(t, 0); put64(t, base);
    put64(t, len); put32(t, 0); put32(t, flags); put64(t, 0);
}

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define EN SRAT_ENABLED

/* RAM as QEMU's q35 lays it out for size bytes (below 2 GiB here). */
static struct e820_map ram(uint64_t size)
{
    struct e820_map m = { 0 };

    m.e[m.count++] = (struct mmap_entry){ 0, 0x9fc00, E820_RAM };
    m.e[m.count++] = (struct mmap_entry){ 0x9fc00, 0x400, E820_RESERVED };
    m.e[m.count++] = (struct mmap_entry){ MIB, size - MIB, E820_RAM };
    return m;
}

static struct topo t;
static struct err e;

static int setup(void **state)
{
    (void)state;
    topo_reset(&t);
    memset(&e, 0, sizeof(e));
    return 0;
}

/* A four-CPU MADT: APIC ids 0-3, all enabled. */
static void madt_four(void)
{
    struct tbl m;

    madt_begin(&m);
    for (uint8_t i = 0; i < 4; i++)
        madt_lapic(&m, i, i, MADT_ENABLED);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), 0);
}

/* ---- MADT ------------------------------------------------------------------------ */

static void test_madt_flags_and_x2apic(void **state)
{
    struct tbl m;
    (void)state;

    madt_begin(&m);
    madt_lapic(&m, 0, 0, MADT_ENABLED);
    madt_lapic(&m, 1, 1, 0);                         /* disabled: never started */
    madt_lapic(&m, 2, 2, MADT_ONLINE_CAPABLE);       /* hot-add later: not at boot */
    madt_lapic(&m, 3, 0xff, MADT_ENABLED);           /* broadcast id: not a CPU */
    madt_x2apic(&m, 300, MADT_ENABLED, 7);
    put8(&m, MADT_LAPIC_OVERRIDE); put8(&m, 12); put16(&m, 0); put64(&m, 0xfed00000);
    put8(&m, 1); put8(&m, 12); put32(&m, 0); put32(&m, 0); put16(&m, 0);   /* I/O APIC: skipped */
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), 0);
    assert_true(t.madt);
    assert_int_equal(t.ncpus, 2);
    assert_int_equal(t.cpu[0].apic_id, 0);
    assert_false(t.cpu[0].x2apic);
    assert_int_equal(t.cpu[1].apic_id, 300);
    assert_int_equal(t.cpu[1].uid, 7);
    assert_true(t.cpu[1].x2apic);
    assert_int_equal(t.cpus_disabled, 2);
    assert_int_equal(t.cpus_hotplug, 1);
    assert_int_equal(t.lapic_base, 0xfed00000);
}

static void test_madt_bad(void **state)
{
    struct tbl m;
    (void)state;

    /* Bad checksum. */
    madt_begin(&m);
    madt_lapic(&m, 0, 0, MADT_ENABLED);
    end(&m);
    m.b[40] ^= 1;
    assert_int_equal(topo_parse_madt(&t, m.b, m.len, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "checksum"));
    assert_false(t.madt);

    /* An entry that claims more bytes than are left. */
    setup(NULL);
    madt_begin(&m);
    madt_lapic(&m, 0, 0, MADT_ENABLED);
    put8(&m, MADT_X2APIC); put8(&m, 16); put16(&m, 0);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "offset"));

    /* A local APIC entry shorter than its type, and one of length 0. */
    setup(NULL);
    madt_begin(&m);
    put8(&m, MADT_LAPIC); put8(&m, 6); put32(&m, 0);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), -EINVAL);
    setup(NULL);
    madt_begin(&m);
    put8(&m, 0x7f); put8(&m, 0);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), -EINVAL);

    /* One byte of a header left over. */
    setup(NULL);
    madt_begin(&m);
    madt_lapic(&m, 0, 0, MADT_ENABLED);
    put8(&m, MADT_LAPIC);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "cut short"));

    /* The same APIC id twice. */
    setup(NULL);
    madt_begin(&m);
    madt_lapic(&m, 0, 5, MADT_ENABLED);
    madt_x2apic(&m, 5, MADT_ENABLED, 1);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "twice"));

    /* A header length that is not the table's. */
    setup(NULL);
    madt_begin(&m);
    madt_lapic(&m, 0, 0, MADT_ENABLED);
    end(&m);
    assert_int_equal(topo_parse_madt(&t, m.b, m.len - 4, &e), -EINVAL);

    /* Shorter than the MADT's own header, and the wrong signature. */
    setup(NULL);
    madt_begin(&m);
    m.len = 40;
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), -EINVAL);
    setup(NULL);
    begin(&m, "APIX", 4, 8);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), -EINVAL);
}

static void test_madt_too_many_cpus(void **state)
{
    struct tbl m;
    (void)state;

    madt_begin(&m);
    for (unsigned i = 0; i < TOPO_MAX_CPUS; i++)
        madt_x2apic(&m, i, MADT_ENABLED, i);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), 0);
    assert_int_equal(t.ncpus, TOPO_MAX_CPUS);
    setup(NULL);
    madt_x2apic(&m, TOPO_MAX_CPUS, MADT_ENABLED, 99);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), -E2BIG);
    /* Disabled entries past the limit cost nothing. */
    setup(NULL);
    m.len -= 16;
    madt_x2apic(&m, TOPO_MAX_CPUS, 0, 99);
    assert_int_equal(topo_parse_madt(&t, end(&m), m.len, &e), 0);
}

/* ---- SRAT and the whole ---------------------------------------------------------- */

/* Two nodes of unequal sizes, QEMU-style, with node 1 starting inside a 1 GiB block. */
static void srat_two_nodes(struct tbl *s)
{
    srat_begin(s, 3);
    srat_cpu(s, 0, 0, EN);
    srat_cpu(s, 1, 0, EN);
    srat_cpu(s, 2, 1, EN);
    srat_x2apic(s, 3, 1, EN);
    srat_mem(s, 0, 0, 0xa0000, EN);
    srat_mem(s, 1, 1536 * MIB, 512 * MIB, EN);      /* listed out of order */
    srat_mem(s, 0, MIB, 1535 * MIB, EN);
    srat_mem(s, 7, 4 * GIB, GIB, 0);                 /* disabled: ignored, no node */
    srat_mem(s, 1, 8 * GIB, GIB, EN | SRAT_HOTPLUG); /* not in the map: no boot memory */
}

static void test_srat_two_nodes(void **state)
{
    struct tbl s;
    struct e820_map map = ram(2 * GIB);
    (void)state;

    madt_four();
    srat_two_nodes(&s);
    assert_int_equal(topo_parse_srat(&t, end(&s), s.len, &e), 0);
    assert_int_equal(topo_finish(&t, &map, 0, &e), 0);
    assert_false(t.fallback);
    assert_int_equal(t.nnodes, 2);
    assert_int_equal(t.nmemblks, 3);
    assert_int_equal(t.mem[0].start, 0);
    assert_int_equal(t.mem[1].start, MIB);
    assert_int_equal(t.mem[2].start, 1536 * MIB);
    assert_int_equal(t.mem[2].node, 1);
    assert_int_equal(t.nskipped_mem, 2);
    for (unsigned c = 0; c < 4; c++)
        assert_int_equal(t.cpu[c].node, c / 2);
}

static void test_srat_hotplug_present_is_kept(void **state)
{
    struct tbl s;
    struct e820_map map = ram(2 * GIB);
    (void)state;

    madt_four();
    srat_begin(&s, 3);
    for (uint8_t i = 0; i < 4; i++)
        srat_cpu(&s, i, 0, EN);
    srat_mem(&s, 0, 0, GIB, EN);
    srat_mem(&s, 0, GIB, 4 * GIB, EN | SRAT_HOTPLUG);  /* RAM in the map up to 2 GiB */
    assert_int_equal(topo_parse_srat(&t, end(&s), s.len, &e), 0);
    assert_int_equal(topo_finish(&t, &map, 0, &e), 0);
    assert_int_equal(t.nmemblks, 2);
    assert_int_equal(t.mem[1].start, GIB);
    assert_int_equal(t.mem[1].end, 2 * GIB);
}

static void test_srat_memoryless_and_cpuless_nodes(void **state)
{
    struct tbl s;
    struct e820_map map = ram(2 * GIB);
    (void)state;

    madt_four();
    srat_begin(&s, 3);
    srat_cpu(&s, 0, 10, EN);
    srat_cpu(&s, 1, 20, EN);        /* domain 20: CPUs, no memory */
    srat_cpu(&s, 2, 20, EN);
    srat_cpu(&s, 3, 10, EN);
    srat_cpu(&s, 9, 10, 0);         /* disabled entry: ignored */
    srat_mem(&s, 10, 0, GIB, EN);
    srat_mem(&s, 30, GIB, GIB, EN); /* domain 30: memory, no CPU */
    assert_int_equal(topo_parse_srat(&t, end(&s), s.len, &e), 0);
    assert_int_equal(topo_finish(&t, &map, 0, &e), 0);
    assert_int_equal(t.nnodes, 3);
    assert_int_equal(t.node_pxm[0], 10);
    assert_int_equal(t.node_pxm[1], 20);
    assert_int_equal(t.node_pxm[2], 30);
    assert_int_equal(t.cpu[1].node, 1);
    assert_int_equal(t.cpu[3].node, 0);
    assert_int_equal(t.mem[1].node, 2);
}

static void test_srat_revision1_pxm(void **state)
{
    struct tbl s;
    (void)state;

    srat_begin(&s, 1);
    srat_cpu(&s, 0, 0x0102, EN);            /* revision 1: one byte of domain */
    srat_mem(&s, 0x0302, 0, GIB, EN);
    assert_int_equal(topo_parse_srat(&t, end(&s), s.len, &e), 0);
    assert_int_equal(t.nnodes, 1);
    assert_int_equal(t.node_pxm[0], 2);
}

/* Parses madt_four() and s, finishes on 2 GiB: returns what topo_finish() said. */
static int finish_with(struct tbl *s)
{
    struct e820_map map = ram(2 * GIB);
    int rc;

    madt_four();
    rc = topo_parse_srat(&t, end(s), s->len, &e);
    return rc ? rc : topo_finish(&t, &map, 0, &e);
}

static void test_srat_bad(void **state)
{
    struct tbl s;
    (void)state;

    /* Bad checksum. */
    srat_two_nodes(&s);
    end(&s);
    s.b[60] ^= 0x40;
    madt_four();
    assert_int_equal(topo_parse_srat(&t, s.b, s.len, &e), -EINVAL);

    /* A memory entry cut short. */
    setup(NULL);
    srat_begin(&s, 3);
    srat_cpu(&s, 0, 0, EN);
    put8(&s, SRAT_MEMORY); put8(&s, 24); put32(&s, 0); put16(&s, 0); put64(&s, 0); put64(&s, GIB);
    assert_int_equal(finish_with(&s), -EINVAL);

    /* Overlapping ranges on two nodes. */
    setup(NULL);
    srat_begin(&s, 3);
    for (uint8_t i = 0; i < 4; i++)
        srat_cpu(&s, i, i & 1, EN);
    srat_mem(&s, 0, 0, GIB + MIB, EN);
    srat_mem(&s, 1, GIB, GIB, EN);
    assert_int_equal(finish_with(&s), -EINVAL);
    assert_non_null(strstr(e.msg, "overlap"));

    /* Out of range: wraps, or ends above 16 TiB. */
    setup(NULL);
    srat_begin(&s, 3);
    srat_mem(&s, 0, UINT64_MAX - GIB, 2 * GIB, EN);
    assert_int_equal(finish_with(&s), -ERANGE);
    setup(NULL);
    srat_begin(&s, 3);
    srat_mem(&s, 0, 16 * 1024 * GIB - GIB, 2 * GIB, EN);
    assert_int_equal(finish_with(&s), -ERANGE);

    /* More domains than nodes. */
    setup(NULL);
    srat_begin(&s, 3);
    for (uint32_t d = 0; d <= TOPO_MAX_NODES; d++)
        srat_mem(&s, d, d * GIB, GIB, EN);
    assert_int_equal(finish_with(&s), -E2BIG);

    /* Memory but no CPU anywhere, and CPUs but no memory. */
    setup(NULL);
    srat_begin(&s, 3);
    srat_mem(&s, 0, 0, 2 * GIB, EN);
    assert_int_equal(finish_with(&s), -EINVAL);
    assert_non_null(strstr(e.msg, "no processor"));
    setup(NULL);
    srat_begin(&s, 3);
    for (uint8_t i = 0; i < 4; i++)
        srat_cpu(&s, i, 0, EN);
    srat_mem(&s, 0, 0, 2 * GIB, 0);
    assert_int_equal(finish_with(&s), -EINVAL);
    assert_non_null(strstr(e.msg, "no enabled memory"));

    /* A CPU the SRAT does not place. */
    setup(NULL);
    srat_begin(&s, 3);
    for (uint8_t i = 0; i < 3; i++)
        srat_cpu(&s, i, 0, EN);
    srat_mem(&s, 0, 0, 2 * GIB, EN);
    assert_int_equal(finish_with(&s), -EINVAL);
    assert_non_null(strstr(e.msg, "APIC id 3"));

    /* RAM that no range covers. */
    setup(NULL);
    srat_begin(&s, 3);
    for (uint8_t i = 0; i < 4; i++)
        srat_cpu(&s, i, 0, EN);
    srat_mem(&s, 0, 0, GIB, EN);
    assert_int_equal(finish_with(&s), -EINVAL);
    assert_non_null(strstr(e.msg, "not all in a memory range"));
}

static void test_finish_and_fallback(void **state)
{
    struct e820_map map = ram(GIB);
    (void)state;

    /* No MADT: the boot CPU alone, and no complaint. */
    assert_int_equal(topo_finish(&t, &map, 5, &e), 0);
    assert_false(t.fallback);
    assert_int_equal(t.ncpus, 1);
    assert_int_equal(t.cpu[0].apic_id, 5);

    /* The boot CPU missing from the MADT. */
    setup(NULL);
    madt_four();
    assert_int_equal(topo_finish(&t, &map, 9, &e), -EINVAL);
    topo_fallback(&t, 9, e.msg);
    assert_true(t.fallback);
    assert_int_equal(t.ncpus, 1);
    assert_int_equal(t.nmemblks, 0);
    assert_false(t.srat);
    assert_non_null(strstr(t.fallback_reason, "boot CPU"));

    /* A MADT without an SRAT: every CPU on node 0. */
    setup(NULL);
    madt_four();
    assert_int_equal(topo_finish(&t, &map, 2, &e), 0);
    assert_int_equal(t.cpu[3].node, 0);
}

static void test_slit(void **state)
{
    struct tbl s, l;
    struct e820_map map = ram(2 * GIB);
    (void)state;

    madt_four();
    srat_two_nodes(&s);
    assert_int_equal(topo_parse_srat(&t, end(&s), s.len, &e), 0);
    assert_int_equal(topo_finish(&t, &map, 0, &e), 0);
    begin(&l, "SLIT", 1, 8);
    memcpy(l.b + 36, &(uint64_t){ 2 }, 8);
    put8(&l, 10); put8(&l, 21); put8(&l, 31); put8(&l, 10);
    assert_int_equal(topo_parse_slit(&t, end(&l), l.len, &e), 0);
    assert_true(t.slit);
    assert_int_equal(t.distance[0][1], 21);
    assert_int_equal(t.distance[1][0], 31);
    /* Fewer bytes than localities squared: no distances, nothing else lost. */
    l.len -= 1;
    assert_int_equal(topo_parse_slit(&t, end(&l), l.len, &e), -EINVAL);
    assert_false(t.slit);
    assert_int_equal(t.nnodes, 2);
}

/* ---- finding tables -------------------------------------------------------------- */

static uint8_t arena[4096];

static const void *arena_phys(uint64_t pa, uint64_t len, void *ctx)
{
    (void)ctx;
    return pa >= 0x1000 && pa + len <= 0x1000 + sizeof(arena) ? arena + (pa - 0x1000) : NULL;
}

static void test_acpi_table_find(void **state)
{
    struct tbl x, m;
    uint8_t rsdp[36] = "RSD PTR ";
    const uint8_t *found;
    uint32_t len;
    uint8_t sum = 0;
    (void)state;

    madt_begin(&m);
    madt_lapic(&m, 0, 0, MADT_ENABLED);
    memcpy(arena + 0x200, end(&m), m.len);
    begin(&x, "XSDT", 1, 0);
    put64(&x, 0);                       /* a null entry is skipped */
    put64(&x, 0x1200);
    memcpy(arena, end(&x), x.len);
    rsdp[15] = 2;
    memcpy(rsdp + 20, &(uint32_t){ 36 }, 4);
    memcpy(rsdp + 24, &(uint64_t){ 0x1000 }, 8);
    for (int i = 0; i < 20; i++)
        sum = (uint8_t)(sum + rsdp[i]);
    rsdp[8] = (uint8_t)-sum;
    sum = 0;
    for (int i = 0; i < 36; i++)
        sum = (uint8_t)(sum + rsdp[i]);
    rsdp[32] = (uint8_t)-sum;

    assert_int_equal(acpi_table_find(rsdp, 36, "APIC", arena_phys, NULL, &found, &len, &e), 0);
    assert_ptr_equal(found, arena + 0x200);
    assert_int_equal(len, m.len);
    assert_int_equal(acpi_table_find(rsdp, 36, "SRAT", arena_phys, NULL, &found, &len, &e),
                     -ENOENT);
    arena[10] ^= 1;                     /* the XSDT's checksum */
    assert_int_equal(acpi_table_find(rsdp, 36, "APIC", arena_phys, NULL, &found, &len, &e),
                     -EINVAL);
    assert_int_equal(acpi_table_find(NULL, 0, "APIC", arena_phys, NULL, &found, &len, &e),
                     -EINVAL);
}

/* ---- the node map ---------------------------------------------------------------- */

#define P(bytes) ((bytes) >> 12)

static void test_hash_shift(void **state)
{
    uint64_t entries;
    (void)state;

    /* QEMU's 2-node layout with the boundary at 1.5 GiB: the same-node
     * continuation at 1 MiB does not count, the node change does. */
    struct node_range two[] = { { 0, P(0xa0000), 0 }, { P(MIB), P(1536 * MIB), 0 },
                                { P(1536 * MIB), P(2 * GIB), 1 } };
    assert_int_equal(numa_hash_shift(two, 3, &entries), 17);
    assert_int_equal(entries, 4);

    /* One node: shift 63, one entry, whatever the ranges. */
    struct node_range one[] = { { 0, P(0xa0000), 0 }, { P(MIB), P(3 * GIB), 0 } };
    assert_int_equal(numa_hash_shift(one, 2, &entries), MEMNODE_SHIFT_ONE);
    assert_int_equal(entries, 1);

    /* Whole gigabytes: 1 GiB granules. */
    struct node_range gb[] = { { 0, P(2 * GIB), 0 }, { P(2 * GIB), P(5 * GIB), 1 },
                               { P(5 * GIB), P(6 * GIB), 2 } };
    assert_int_equal(numa_hash_shift(gb, 3, &entries), 18);
    assert_int_equal(entries, 6);
}

static void test_populate(void **state)
{
    static uint8_t map[64];
    (void)state;

    struct node_range two[] = { { 0, P(0xa0000), 0 }, { P(MIB), P(1536 * MIB), 0 },
                                { P(1536 * MIB), P(2 * GIB), 1 } };
    assert_int_equal(numa_populate(map, 4, two, 3, 17, &e), 0);
    numa_install(map, 4, 17);
    assert_int_equal(mfn_to_nid(0), 0);
    assert_int_equal(mfn_to_nid(P(1536 * MIB) - 1), 0);
    assert_int_equal(mfn_to_nid(P(1536 * MIB)), 1);
    assert_int_equal(mfn_to_nid(P(2 * GIB) - 1), 1);

    /* node_ranges follow the map, cut at 1.5 GiB. */
    struct node_range r[4];
    assert_int_equal(numa_ranges(P(GIB), P(2 * GIB), r, 4), 2);
    assert_int_equal(r[0].e, P(1536 * MIB));
    assert_int_equal(r[1].node, 1);

    /* A same-node range that starts mid-granule still reaches its last granule. */
    struct node_range odd[] = { { 0, 100, 0 }, { 100, 0x40010, 0 }, { 0x60000, 0x80000, 1 } };
    assert_int_equal(numa_populate(map, 4, odd, 3, 17, &e), 0);
    assert_int_equal(map[2], 0);

    /* Two nodes in one granule, and a range past the map. */
    struct node_range clash[] = { { 0, 0x30000, 0 }, { 0x30000, 0x40000, 1 } };
    assert_int_equal(numa_populate(map, 4, clash, 2, 17, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "holds nodes"));
    assert_int_equal(numa_populate(map, 2, two, 3, 17, &e), -EINVAL);
    numa_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_madt_flags_and_x2apic, setup),
        cmocka_unit_test_setup(test_madt_bad, setup),
        cmocka_unit_test_setup(test_madt_too_many_cpus, setup),
        cmocka_unit_test_setup(test_srat_two_nodes, setup),
        cmocka_unit_test_setup(test_srat_hotplug_present_is_kept, setup),
        cmocka_unit_test_setup(test_srat_memoryless_and_cpuless_nodes, setup),
        cmocka_unit_test_setup(test_srat_revision1_pxm, setup),
        cmocka_unit_test_setup(test_srat_bad, setup),
        cmocka_unit_test_setup(test_finish_and_fallback, setup),
        cmocka_unit_test_setup(test_slit, setup),
        cmocka_unit_test_setup(test_acpi_table_find, setup),
        cmocka_unit_test_setup(test_hash_shift, setup),
        cmocka_unit_test_setup(test_populate, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
