/* SPDX-License-Identifier: MIT */
/*
 * What page_alloc.c's allocation path (alloc_heap_pages(), which the
 * tester's threads call after boot beside hot-add and frees) needs of the
 * rest of Xen besides xen_stand.h: node masks, the allocation flags, the
 * current CPU and vCPU, TLB flush filtering, page scrubbing and the debug
 * poison, the low-memory VIRQ. Included at the end of xen_stand.h.
 */
#ifndef XH_STAND_ALLOC_H
#define XH_STAND_ALLOC_H

/* Node masks of up to 64 nodes, one word, taken by name as xen/nodemask.h's are. */
extern nodemask_t node_online_map;
#define nodemask_test(n, m) (((m)->bits[0] >> (n)) & 1)
#define nodes_intersects(a, b) (((a).bits[0] & (b).bits[0]) != 0)
#define nodes_and(d, a, b) ((d).bits[0] = (a).bits[0] & (b).bits[0])
#define nodes_andnot(d, a, b) ((d).bits[0] = (a).bits[0] & ~(b).bits[0])
static inline unsigned int xh_node_from(unsigned long bits, unsigned int n)
{
    bits &= n < 64 ? ~0UL << n : 0;
    return bits ? (unsigned int)__builtin_ctzl(bits) : MAX_NUMNODES;
}
#define first_node(m) xh_node_from((m).bits[0], 0)
#define next_node(n, m) xh_node_from((m).bits[0], (n) + 1)
#define cycle_node(n, m) \
    (xh_node_from((m).bits[0], (n) + 1) < MAX_NUMNODES ? xh_node_from((m).bits[0], (n) + 1) \
                                                       : first_node(m))

/*
 * The CPU a thread runs as, and its vCPU: the tester's threads are CPUs 0
 * to 3 of node 0, but in a hand-over after SMP bring-up (xen_stand_smp.h).
 */
#include "xen_stand_smp.h"
struct vcpu { struct domain *domain; };
extern struct vcpu xh_idle_vcpu;
#define current (&xh_idle_vcpu)

/* Allocation flags, each a bit of memflags as xen/mm.h numbers them; the node in bits 16 to 23. */
#define _MEMF_no_refcount 0
#define MEMF_no_refcount (1U << 0)
#define MEMF_keep_scrub (1U << 2)
#define MEMF_exact_node (1U << 4)
#define MEMF_no_owner (1U << 5)
#define MEMF_no_tlbflush (1U << 6)
#define MEMF_no_icache_flush (1U << 7)
#define MEMF_no_scrub (1U << 8)
#define _MEMF_node 16
#define MEMF_node(n) ((((n) + 1U) & 0xffU) << _MEMF_node)
#define MEMF_get_node(f) ((((f) >> _MEMF_node) - 1U) & 0xffU)
#define _MEMF_bits 24

/* Atomic bit operations on count_info. */
static inline bool test_and_clear_bit(int nr, volatile void *addr)
{
    unsigned long bit = 1UL << (nr % 64);

    return __atomic_fetch_and((volatile unsigned long *)addr + nr / 64, ~bit, __ATOMIC_SEQ_CST) & bit;
}

/* TLB flushes after an allocation: the clock is the tester's, the flushes only counted. */
#define tlbflush_current_time() xh_tlbflush_clock
extern unsigned long xh_tlb_flushes;
static inline void accumulate_tlbflush(bool *need, const struct page_info *pg, uint32_t *stamp)
{
    if ( pg->u.free.need_tlbflush && pg->tlbflush_timestamp <= tlbflush_current_time() &&
         (!*need || pg->tlbflush_timestamp > *stamp) )
    {
        *need = true;
        *stamp = pg->tlbflush_timestamp;
    }
}
#define filtered_flush_tlb_mask(stamp) ((void)(stamp), __atomic_fetch_add(&xh_tlb_flushes, 1, __ATOMIC_RELAXED))
#define flush_page_to_ram(mfn, icache) ((void)(mfn), (void)(icache))

/*
 * Scrubbing: a page's memory is the tester's memory behind the frames.
 * A debug build (CONFIG_SCRUB_DEBUG) poisons a freed page's first word
 * and checks a scrubbed one; scrubbing writes the pattern (debug) or zero.
 */
#define SCRUB_PATTERN 0xc2c2c2c2c2c2c2c2ULL
#define __map_domain_page(pg) mfn_to_virt(mfn_x(page_to_mfn(pg)))
#define unmap_domain_page(p) ((void)(p))
void xh_fill_page(void *p, uint64_t word);
#define scrub_page_hot(p) xh_fill_page(p, SCRUB_PATTERN)
#define scrub_page_cold(p) xh_fill_page(p, SCRUB_PATTERN)
#define clear_page_hot(p) xh_fill_page(p, 0)
#define clear_page_cold(p) xh_fill_page(p, 0)

/* The low-memory VIRQ: counted. */
#define VIRQ_ENOMEM 12
extern unsigned long xh_virqs;
#define send_global_virq(v) ((void)(v), __atomic_fetch_add(&xh_virqs, 1, __ATOMIC_RELAXED))

#endif
