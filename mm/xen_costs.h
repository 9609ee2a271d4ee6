/* SPDX-License-Identifier: MIT */
/*
 * The per-call costs of Xen's heap path beside its logic (x86-64, non-debug,
 * RELEASE-4.16.0 and 4.17.0), each switchable with xen_costs= for the
 * ablation. docs/fidelity-xen.md maps every item to the Xen code it models.
 */
#ifndef MM_XEN_COSTS_H
#define MM_XEN_COSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/spinlock.h"
#include "mm/frametable.h"
#include "mm/numa.h"

enum xen_cost {
    XC_LFENCE,      /* __mfn_valid()'s evaluate_nospec(): an LFENCE per call */
    XC_MFN_VALID,   /* mfn_valid() is the out-of-line __mfn_valid(), bit test by BT */
    XC_LOCK,        /* _spin_lock()/_spin_unlock(): out of line, counting preemption */
    XC_M2P,         /* set_gpfn_from_mfn(): a call that returns at boot (off: store the entry) */
    XC_NODE_HEAP,   /* `if (!avail[nid]) init_node_heap()`: per page in 4.16, per range after */
    XC_HEAP_PTRS,   /* _heap[node] and avail[node] are pointers: one more load each */
    XC_PDX,         /* page <-> MFN through pfn_to_pdx()/pdx_to_pfn(): global masks, a shift */
    XC_MEMNODE,     /* phys_to_nid(): a variable memnode_shift and a memnodemap pointer */
    XC_ZONE,        /* page_to_zone() tests count_info for PGC_xen_heap */
    XC_SCRUB_CHECK, /* check_and_stop_scrub() on every buddy merged */
    XC_NR
};

#define XC(c)   (1u << (c))
#define XC_ALL  (XC(XC_NR) - 1)

/* Item names for xen_costs=, indexed by enum xen_cost, NULL-terminated. */
extern const char *const xen_cost_names[XC_NR + 1];

/* The costs the heap pays: a set of XC() bits, XC_ALL unless xen_costs= says otherwise. */
extern unsigned xen_costs;

/*
 * A host build can fix the set at compile time with -DXEN_COSTS_FIXED=mask,
 * to measure what choosing it at run time costs.
 */
#ifdef XEN_COSTS_FIXED
#define xc_load() ((unsigned)(XEN_COSTS_FIXED))
#else
#define xc_load() (xen_costs)
#endif

static inline bool xc_on(unsigned xc, enum xen_cost c)
{
    return xc & XC(c);
}

/*
 * One function per set the ablation uses. A test of xc at every cost would
 * itself cost more than some of the costs (20 to 40% more instructions per
 * page, measured), so each timed path is an always-inline body taking xc,
 * and XC_VARIANTS compiles it once per set: all, none and all but one,
 * each with every test folded away, plus one copy that tests xen_costs
 * for any other set. The entry point picks its copy with a table lookup
 * and an indirect jump, the same for every set; a copy calls the free
 * path's copy for its own set directly (XC_PICK): no lookup per page.
 */
#define XC_FOR_EACH_COST(X, ...)                                                         \
    X(XC_LFENCE, __VA_ARGS__) X(XC_MFN_VALID, __VA_ARGS__) X(XC_LOCK, __VA_ARGS__)       \
    X(XC_M2P, __VA_ARGS__) X(XC_NODE_HEAP, __VA_ARGS__) X(XC_HEAP_PTRS, __VA_ARGS__)     \
    X(XC_PDX, __VA_ARGS__) X(XC_MEMNODE, __VA_ARGS__) X(XC_ZONE, __VA_ARGS__)            \
    X(XC_SCRUB_CHECK, __VA_ARGS__)
_Static_assert(XC_NR == 10, "XC_FOR_EACH_COST names every cost once");

enum xc_variant {
    XCV_TESTED,                             /* any other set: tests xen_costs */
    XCV_ALL,
    XCV_NONE,
    XCV_WITHOUT,                            /* + c: all but cost c */
    XCV_NR = XCV_WITHOUT + XC_NR
};

/* The variant of each set, indexed by set (XC_ALL + 1 entries). */
extern const uint8_t xc_variant_of[XC_ALL + 1];

#define XC_UNPAREN(...) __VA_ARGS__
#define XC_VARIANT(fn, set, body, params, args) \
    __attribute__((noinline)) void fn params { body(set, XC_UNPAREN args); }
#define XC_VARIANT_WITHOUT(c, name, body, params, args) \
    XC_VARIANT(name##_without_##c, XC_ALL & ~XC(c), body, params, args)
#define XC_TABLE_WITHOUT(c, name) [XCV_WITHOUT + (c)] = name##_without_##c,
#define XC_DECLARE_WITHOUT(c, name, params) void name##_without_##c params;

/* Declares what XC_VARIANTS(name, ...) defines. */
#define XC_DECLARE_VARIANTS(name, params)                                                \
    void name##_tested params;                                                           \
    void name##_all params;                                                              \
    void name##_none params;                                                             \
    XC_FOR_EACH_COST(XC_DECLARE_WITHOUT, name, params)                                   \
    extern void (*const name##_variants[XCV_NR]) params

/*
 * Defines name_all, name_none, name_without_XC_<cost> and name_tested, void
 * functions of params that run body(set, args...), and name_variants[].
 */
#define XC_VARIANTS(name, body, params, args)                                            \
    XC_VARIANT(name##_tested, xen_costs, body, params, args)                             \
    XC_VARIANT(name##_all, XC_ALL, body, params, args)                                   \
    XC_VARIANT(name##_none, 0u, body, params, args)                                      \
    XC_FOR_EACH_COST(XC_VARIANT_WITHOUT, name, body, params, args)                       \
    void (*const name##_variants[XCV_NR]) params = {                                     \
        [XCV_TESTED] = name##_tested, [XCV_ALL] = name##_all, [XCV_NONE] = name##_none,  \
        XC_FOR_EACH_COST(XC_TABLE_WITHOUT, name)                                         \
    }

/* The variant of name for the set xc, chosen at compile time where xc is a constant. */
#define XC_PICK_WITHOUT(c, name, xc) (xc) == (XC_ALL & ~XC(c)) ? name##_without_##c :
#define XC_PICK(name, xc)                                                                \
    ((xc) == XC_ALL ? name##_all : (xc) == 0 ? name##_none :                             \
     XC_FOR_EACH_COST(XC_PICK_WITHOUT, name, xc) name##_tested)

/* The variant of name for the current set. */
#ifdef XEN_COSTS_FIXED
#define XC_DISPATCH(name) XC_PICK(name, XEN_COSTS_FIXED)
#else
#define XC_DISPATCH(name) (name##_variants[xc_variant_of[xen_costs & XC_ALL]])
#endif

/*
 * Writes the set as xen_costs= takes it back: "all", "none", the items
 * removed from all ("-lfence,-m2p") or, when fewer are on, those on.
 * Returns buf.
 */
const char *xc_describe(unsigned set, char *buf, size_t n);

/*
 * Host test builds with -DXEN_COSTS_COUNT count each cost where it is paid,
 * indexed by enum xen_cost: the tests check that a switch removes exactly
 * its own work. Other builds count nothing.
 */
#ifdef XEN_COSTS_COUNT
extern uint64_t xc_counts[XC_NR];
#define xc_count(c) (xc_counts[c]++)
#else
#define xc_count(c) ((void)0)
#endif

/* ---- pdx (xen/common/pdx.c): identity on every map bootheap sees ---- */

extern uint64_t pfn_pdx_bottom_mask, pfn_top_mask, pfn_hole_mask;
extern unsigned pfn_pdx_hole_shift;

static inline uint64_t pfn_to_pdx(uint64_t pfn)
{
    return (pfn & pfn_pdx_bottom_mask) | ((pfn & pfn_top_mask) >> pfn_pdx_hole_shift);
}

static inline uint64_t pdx_to_pfn(uint64_t pdx)
{
    return (pdx & pfn_pdx_bottom_mask) | ((pdx << pfn_pdx_hole_shift) & pfn_top_mask);
}

/* Xen's mfn_to_page(): the frame table is indexed by pdx. */
static inline struct page_info *xc_mfn_to_page(unsigned xc, uint64_t mfn)
{
    if (!xc_on(xc, XC_PDX))
        return frame_table + mfn;
    xc_count(XC_PDX);
    return frame_table + pfn_to_pdx(mfn);
}

/* Xen's page_to_mfn(). */
static inline uint64_t xc_page_to_mfn(unsigned xc, const struct page_info *pg)
{
    uint64_t pdx = (uint64_t)(pg - frame_table);

    if (!xc_on(xc, XC_PDX))
        return pdx;
    xc_count(XC_PDX);
    return pdx_to_pfn(pdx);
}

/* ---- the node of a frame (Xen's phys_to_nid(), x86 asm/numa.h) ---- */

/* phys_to_nid(mfn_to_maddr(mfn)): the address goes back through pdx. */
static inline unsigned xc_mfn_to_nid(unsigned xc, uint64_t mfn)
{
    uint64_t pdx = mfn;

    if (xc_on(xc, XC_PDX)) {
        xc_count(XC_PDX);
        pdx = pfn_to_pdx((mfn << PAGE_SHIFT) >> PAGE_SHIFT);
    }
    if (!xc_on(xc, XC_MEMNODE))
        return memnodemap_fixed[pdx >> MEMNODE_FIXED_SHIFT];
    xc_count(XC_MEMNODE);
    return mfn_to_nid(pdx);
}

/* phys_to_nid(page_to_maddr(pg)). */
static inline unsigned xc_page_to_nid(unsigned xc, const struct page_info *pg)
{
    return xc_mfn_to_nid(xc, xc_page_to_mfn(xc, pg));
}

/* ---- mfn_valid() (Xen's __mfn_valid(), xen/common/pdx.c) ---- */

/* evaluate_nospec() (x86 asm/nospec.h): a fence on either outcome, after the branch. */
static inline bool xc_nospec(unsigned xc, bool cond)
{
    if (!xc_on(xc, XC_LFENCE))
        return cond;
    xc_count(XC_LFENCE);
    if (cond) {
        __asm__ volatile("lfence" ::: "memory");
        return true;
    }
    __asm__ volatile("lfence" ::: "memory");
    return false;
}

/* x86 variable_test_bit(): BT on a bit string in memory. */
static inline bool xc_test_bit(uint64_t nr, const volatile void *addr)
{
    bool old;

    __asm__ volatile("btl %k[nr], %[addr]" : "=@ccc"(old)
                     : [addr] "m"(*(const volatile uint64_t *)addr), [nr] "Ir"((int)nr) : "memory");
    return old;
}

/*
 * The body of __mfn_valid(): the bound check under evaluate_nospec(), the
 * pdx hole test, then the section bitmap (Xen's pdx_group_valid), read with
 * BT as Xen's test_bit() does when xen_form, in plain C otherwise.
 */
static inline bool xc_mfn_valid_body(unsigned xc, uint64_t mfn, bool xen_form)
{
    uint64_t pdx = mfn;

    if (xc_nospec(xc, mfn >= max_pfn))
        return false;
    if (xc_on(xc, XC_PDX)) {
        xc_count(XC_PDX);
        if (mfn & pfn_hole_mask)
            return false;
        pdx = pfn_to_pdx(mfn);
    }
    if (xen_form)
        return xc_test_bit(pdx >> SECTION_SHIFT, section_valid);
    return (section_valid[(pdx >> SECTION_SHIFT) / 64] >> ((pdx >> SECTION_SHIFT) % 64)) & 1;
}

/* Xen's __mfn_valid(), out of line: one copy per setting of the costs inside it. */
bool xc_mfn_valid_call(uint64_t mfn);             /* neither */
bool xc_mfn_valid_call_fenced(uint64_t mfn);      /* the LFENCE */
bool xc_mfn_valid_call_pdx(uint64_t mfn);         /* the pdx hole test and conversion */
bool xc_mfn_valid_call_fenced_pdx(uint64_t mfn);  /* both, as Xen's */

static inline bool xc_mfn_valid(unsigned xc, uint64_t mfn)
{
    if (!xc_on(xc, XC_MFN_VALID))
        return xc_mfn_valid_body(xc, mfn, false);
    xc_count(XC_MFN_VALID);
    if (xc_on(xc, XC_LFENCE))
        return xc_on(xc, XC_PDX) ? xc_mfn_valid_call_fenced_pdx(mfn) : xc_mfn_valid_call_fenced(mfn);
    return xc_on(xc, XC_PDX) ? xc_mfn_valid_call_pdx(mfn) : xc_mfn_valid_call(mfn);
}

/* ---- the heap lock (Xen's _spin_lock(), _spin_unlock(), common/spinlock.c) ---- */

/* l must be a heap's lock (struct heap): the word after it counts preemption. */
void xc_spin_lock_call(spinlock_t *l);
void xc_spin_unlock_call(spinlock_t *l);

static inline void xc_spin_lock(unsigned xc, spinlock_t *l)
{
    if (!xc_on(xc, XC_LOCK)) {
        spin_lock(l);
        return;
    }
    xc_count(XC_LOCK);
    xc_spin_lock_call(l);
}

static inline void xc_spin_unlock(unsigned xc, spinlock_t *l)
{
    if (!xc_on(xc, XC_LOCK)) {
        spin_unlock(l);
        return;
    }
    xc_count(XC_LOCK);
    xc_spin_unlock_call(l);
}

/* ---- the M2P entry (Xen's set_gpfn_from_mfn(), x86_64/mm.c) ---- */

/* False until Xen's paging_init(), which runs after end_boot_allocator(): always here. */
extern bool m2p_mapping_valid;

void xc_set_gpfn_from_mfn_call(uint64_t mfn, uint64_t entry);

/*
 * The same for the M2P entries of [s, e): what a set_gpfn_from_mfn() per
 * page does, in one call; the sweep strategy's bulk form.
 */
void xc_m2p_invalidate_range_call(uint64_t s, uint64_t e);

/* Marks mfn's M2P entry invalid: Xen's boot-time call, or the store itself. */
static inline void xc_m2p_invalidate(unsigned xc, uint64_t mfn)
{
    if (!xc_on(xc, XC_M2P)) {
        m2p[mfn] = INVALID_M2P_ENTRY;
        return;
    }
    xc_count(XC_M2P);
    xc_set_gpfn_from_mfn_call(mfn, INVALID_M2P_ENTRY);
}

/* Bytes per page an eager init writes under set: page_info, and the M2P entry when stored. */
static inline uint64_t xc_metadata_bytes(unsigned set)
{
    return sizeof(struct page_info) + (set & XC(XC_M2P) ? 0 : sizeof(uint64_t));
}

/* ---- page_to_zone() (common/page_alloc.c) ---- */

#define PGC_xen_heap    (1ull << 60)    /* never set: bootheap has no Xen heap pages */
#define MEMZONE_XEN     0

/* Zone of an MFN: its bit width, and 1 for MFN 0. */
static inline unsigned mfn_to_zone(uint64_t mfn)
{
    unsigned z = fls64(mfn);

    return z ? z : 1;
}

static inline unsigned xc_page_to_zone(unsigned xc, const struct page_info *pg)
{
    if (xc_on(xc, XC_ZONE)) {
        xc_count(XC_ZONE);
        if (pg->count_info & PGC_xen_heap)
            return MEMZONE_XEN;
    }
    return mfn_to_zone(xc_page_to_mfn(xc, pg));
}

/* ---- check_and_stop_scrub() (common/page_alloc.c) ---- */

#define BUDDY_NOT_SCRUBBING 0
#define BUDDY_SCRUBBING     1

/* Nothing scrubs while the heap is built, so the abort path is never taken. */
void xc_stop_scrub(struct page_info *head);

static inline void xc_check_and_stop_scrub(unsigned xc, struct page_info *head)
{
    if (!xc_on(xc, XC_SCRUB_CHECK))
        return;
    xc_count(XC_SCRUB_CHECK);
    if (head->u.free.scrub_state == BUDDY_SCRUBBING)
        xc_stop_scrub(head);
}

#endif
