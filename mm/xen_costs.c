// SPDX-License-Identifier: MIT
// The xen_costs= option and the out-of-line primitives of Xen's heap path
// that bootheap models (see mm/xen_costs.h and docs/fidelity-xen.md).
#include "mm/xen_costs.h"

#include "kernel/cmdline.h"
#include "kernel/lib/libc.h"
#include "kernel/panic.h"

const char *const xen_cost_names[XC_NR + 1] = {
    [XC_LFENCE] = "lfence",
    [XC_MFN_VALID] = "mfn_valid",
    [XC_LOCK] = "lock",
    [XC_M2P] = "m2p",
    [XC_NODE_HEAP] = "node_heap",
    [XC_HEAP_PTRS] = "heap_ptrs",
    [XC_PDX] = "pdx",
    [XC_MEMNODE] = "memnode",
    [XC_ZONE] = "zone",
    [XC_SCRUB_CHECK] = "scrub_check",
    [XC_NR] = NULL,
};

unsigned xen_costs = XC_ALL;

#define WITHOUT(c) [XC_ALL & ~XC(c)] = XCV_WITHOUT + (c)
const uint8_t xc_variant_of[XC_ALL + 1] = {
    [XC_ALL] = XCV_ALL,
    [0] = XCV_NONE,
    WITHOUT(XC_LFENCE), WITHOUT(XC_MFN_VALID), WITHOUT(XC_LOCK), WITHOUT(XC_M2P),
    WITHOUT(XC_NODE_HEAP), WITHOUT(XC_HEAP_PTRS), WITHOUT(XC_PDX), WITHOUT(XC_MEMNODE),
    WITHOUT(XC_ZONE), WITHOUT(XC_SCRUB_CHECK),
};
#undef WITHOUT

CMDLINE_OPT(xen_costs, .key = "xen_costs", .type = OPT_SET, .dst = &xen_costs,
            .choices = xen_cost_names, .nchoices = XC_NR,
            .help = "Xen's per-call costs to model: all (default), none, or e.g. -lfence,-m2p");

#ifdef XEN_COSTS_COUNT
uint64_t xc_counts[XC_NR];
#endif

/*
 * Xen computes these in pfn_pdx_hole_setup() from the RAM map, and leaves
 * them at these values (no compression) unless some run of address bits is
 * zero in all RAM above the low MAX_ORDER bits: never on the maps QEMU and
 * firmware give bootheap, where RAM reaches up from 4 GiB contiguously.
 */
uint64_t pfn_pdx_bottom_mask = ~0ull;
uint64_t pfn_top_mask = 0;
uint64_t pfn_hole_mask = 0;
unsigned pfn_pdx_hole_shift = 0;

bool m2p_mapping_valid;

const char *xc_describe(unsigned set, char *buf, size_t n)
{
    unsigned on = 0;
    size_t len = 0;

    set &= XC_ALL;
    for (unsigned i = 0; i < XC_NR; i++)
        on += (set >> i) & 1;
    if (set == XC_ALL || set == 0) {
        snprintf(buf, n, "%s", set ? "all" : "none");
        return buf;
    }
    buf[0] = '\0';
    /* Name the shorter list: the items removed from all, or those kept. */
    bool minus = on * 2 > XC_NR;
    for (unsigned i = 0; i < XC_NR && len < n; i++) {
        if (((set >> i) & 1) == minus)
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s%s", len ? "," : "", minus ? "-" : "",
                                xen_cost_names[i]);
    }
    return buf;
}

/* Xen's __mfn_valid(), in pdx.c: a call from page_alloc.c. */
#define MFN_VALID_CALL(name, set)                       \
    __attribute__((noinline)) bool name(uint64_t mfn)   \
    {                                                   \
        return xc_mfn_valid_body(set, mfn, true);       \
    }
MFN_VALID_CALL(xc_mfn_valid_call, 0)
MFN_VALID_CALL(xc_mfn_valid_call_fenced, XC(XC_LFENCE))
MFN_VALID_CALL(xc_mfn_valid_call_pdx, XC(XC_PDX))
MFN_VALID_CALL(xc_mfn_valid_call_fenced_pdx, XC(XC_LFENCE) | XC(XC_PDX))

/*
 * The per-CPU preemption count (Xen's this_cpu(__preempt_count)): the
 * counter's address plus this CPU's per-CPU offset, which Xen reads from
 * the cpu_info at the top of the stack and bootheap from here. The counter
 * is the word after the heap lock (struct heap's preempt_count): a heap is
 * built by one CPU at a time, and in a parallel init each CPU builds its
 * own private heap, so that word is the building CPU's own, as Xen's is,
 * and no two CPUs write one line per page.
 */
unsigned long xc_per_cpu_offset;    /* 0: the counter beside the lock; a variable, as Xen's per_cpu_offset */

static inline unsigned *this_cpu_preempt_count(spinlock_t *l)
{
    unsigned long p = (unsigned long)(l + 1);

    /* Hide the sum from the optimiser, as Xen's RELOC_HIDE() does. */
    __asm__("" : "=r"(p) : "0"(p));
    return (unsigned *)(p + xc_per_cpu_offset);
}

/*
 * Xen's _spin_lock() (through _spin_lock_cb() without a callback, non-debug:
 * no lock checks, no profiling): count preemption off, take a ticket with
 * one locked add to head and tail together, wait for it to be served.
 */
__attribute__((noinline)) void xc_spin_lock_call(spinlock_t *l)
{
    uint32_t old;

    (*this_cpu_preempt_count(l))++;
    __asm__ volatile("" ::: "memory");
    old = __atomic_fetch_add(&l->head_tail, 1u << 16, __ATOMIC_ACQUIRE);
    while ((uint16_t)(old >> 16) != __atomic_load_n(&l->head, __ATOMIC_ACQUIRE))
        __asm__ volatile("pause" ::: "memory");
    __asm__ volatile("" ::: "memory");
}

/* Xen's _spin_unlock(): serve the next ticket with a plain add (add_sized), count preemption on. */
__attribute__((noinline)) void xc_spin_unlock_call(spinlock_t *l)
{
    __asm__ volatile("" ::: "memory");
    __asm__ volatile("addw %1, %0" : "+m"(l->head) : "ri"((uint16_t)1) : "memory");
    __asm__ volatile("" ::: "memory");
    (*this_cpu_preempt_count(l))--;
}

/*
 * Xen's set_gpfn_from_mfn(): nothing until the M2P is set up (after boot);
 * entries other than invalid ones, and 32-bit guests' compat M2P, play no
 * part in freeing.
 */
__attribute__((noinline)) void xc_set_gpfn_from_mfn_call(uint64_t mfn, uint64_t entry)
{
    if (__builtin_expect(!m2p_mapping_valid, 1))
        return;
    m2p[mfn] = entry;
}

__attribute__((noinline)) void xc_m2p_invalidate_range_call(uint64_t s, uint64_t e)
{
    if (__builtin_expect(!m2p_mapping_valid, 1))
        return;
    memset(&m2p[s], 0xff, (e - s) * sizeof(uint64_t));
}

void xc_stop_scrub(struct page_info *head)
{
    panic("MFN 0x%llx is being scrubbed, but nothing scrubs here",
          (unsigned long long)(head - frame_table));
}
