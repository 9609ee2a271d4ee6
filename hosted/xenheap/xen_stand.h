/* SPDX-License-Identifier: MIT */
/*
 * The rest of Xen, as small as xen/common/page_alloc.c's heap functions
 * need it in user space: types, the frame table, NUMA, locks, the M2P.
 * Force-included before the tree's page_alloc.c, whose own #includes are
 * empty files (harness/real/xen/hostheap.py). Anything the real code uses
 * that is not here fails the build by name: no implicit declarations, no
 * weak or default definitions. What the allocation path needs besides is
 * xen_stand_alloc.h; the M2P's interface is the tree's own x86 header's
 * (hostheap.py copies its lines into xh_arch_m2p.h, included last).
 */
#ifndef XH_STAND_H
#define XH_STAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* glibc declares an ffsl() of its own: out of the way of Xen's. */
#define ffsl xh_glibc_ffsl
#define ffsll xh_glibc_ffsll
#include <string.h>
#undef ffsl
#undef ffsll

#ifndef XH_MAX_ORDER
#error "XH_MAX_ORDER (Xen's MAX_ORDER for this build) must be given"
#endif

/* The configuration of an x86-64 build, as far as it matters. */
#define CONFIG_X86 1
#define CONFIG_NUMA 1
#ifdef XH_SCRUB_DEBUG
#define CONFIG_SCRUB_DEBUG 1            /* the tester's second build of each tree */
#endif
#define MAX_ORDER XH_MAX_ORDER
#define MAX_NUMNODES 8
#define PADDR_BITS 52
#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define BITS_PER_LONG 64
#define NUMA_NO_NODE 0xff

/* IS_ENABLED(CONFIG_X): 1 when CONFIG_X is defined as 1 above, else 0. */
#define XH_PLACEHOLDER_1 0,
#define XH_SECOND(a, b, ...) b
#define XH_DEFINED3(junk) XH_SECOND(junk 1, 0, 0)
#define XH_DEFINED2(v) XH_DEFINED3(XH_PLACEHOLDER_##v)
#define IS_ENABLED(option) XH_DEFINED2(option)

/* Attributes and annotations that mean nothing in user space. */
#define __init
#define __initdata
#define __read_mostly
#define __ro_after_init
#define cf_check
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define ACCESS_ONCE(x) (*(volatile typeof(x) *)&(x))
#define smp_wmb() __asm__ __volatile__("" ::: "memory")
#define cpu_relax() __asm__ __volatile__("pause" ::: "memory")
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)

/* Command line parameters: the tester sets the variables directly. */
#define custom_param(name, fn) _Static_assert(1, name)
#define string_param(name, var) _Static_assert(1, name)
#define size_param(name, var) _Static_assert(1, name)
#define boolean_param(name, var) _Static_assert(1, name)
#define integer_param(name, var) _Static_assert(1, name)
#define EINVAL 22

typedef uint32_t u32;
typedef uint8_t nodeid_t;
typedef uint64_t paddr_t;
typedef unsigned int __pdx_t;

/*
 * The stand-ins' calls, counted in the timing tester's counting build
 * (-DXH_COUNT) so that what each costs can be named; nothing elsewhere.
 */
enum { XH_C_LOCK, XH_C_NID, XH_C_VALID, XH_C_LIST, XH_C_M2P, XH_C_N };
#ifdef XH_COUNT
extern unsigned long xh_count[XH_C_N];
#define XH_COUNTED(k) (xh_count[k]++)
#else
#define XH_COUNTED(k) ((void)0)
#endif

/*
 * Hard failures: the tester's driver prints the sequence that got here, or
 * holds both trees to the same stop. A release build (the timer) has no
 * ASSERT(), as Xen's has none.
 */
_Noreturn void xh_fail(const char *file, int line, const char *what);
#define BUG() xh_fail(__FILE__, __LINE__, "BUG()")
#define BUG_ON(c) do { if ( c ) xh_fail(__FILE__, __LINE__, "BUG_ON(" #c ")"); } while ( 0 )
#ifdef XH_TIMING
#define ASSERT(c) do { } while ( 0 && (c) )
#else
#define ASSERT(c) do { if ( !(c) ) xh_fail(__FILE__, __LINE__, "ASSERT(" #c ")"); } while ( 0 )
#endif
#define ASSERT_UNREACHABLE() xh_fail(__FILE__, __LINE__, "ASSERT_UNREACHABLE()")

/* printk: counted, not printed (the driver reports the count). */
#define XENLOG_ERR ""
#define XENLOG_WARNING ""
#define XENLOG_INFO ""
#define PRI_mfn "05lx"
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define min(a, b) ({ typeof(a) _a = (a); typeof(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a) - 1)) == 0)
#define MB(x) ((unsigned long)(x) << 20)

/* Xen's bit searches: 1-based, 0 for no bit set. */
static inline int flsl(unsigned long x) { return x ? 64 - __builtin_clzl(x) : 0; }
static inline int ffsl(unsigned long x) { return __builtin_ffsl((long)x); }
static inline bool test_bit(int nr, const volatile void *addr)
{ return (((const volatile unsigned long *)addr)[nr / 64] >> (nr % 64)) & 1; }
static inline unsigned int find_first_set_bit(unsigned long x) { return __builtin_ctzl(x); }

/* Machine frames. */
typedef struct { unsigned long mfn; } mfn_t;
#define _mfn(x) ((mfn_t){ (x) })
#define mfn_x(m) ((m).mfn)
#define INVALID_MFN_INITIALIZER { ~0UL }
#define INVALID_MFN ((mfn_t){ ~0UL })
static inline mfn_t mfn_add(mfn_t m, unsigned long i) { return _mfn(m.mfn + i); }
static inline mfn_t mfn_min(mfn_t a, mfn_t b) { return a.mfn < b.mfn ? a : b; }
#define pfn_to_paddr(p) ((paddr_t)(p) << PAGE_SHIFT)
#define mfn_to_maddr(m) pfn_to_paddr(mfn_x(m))

/* page_info with x86-64's fields and unions (asm/mm.h), list links of our own. */
struct page_info;
struct page_list_entry { struct page_info *next, *prev; };
struct page_list_head { struct page_info *next, *tail; };

struct page_info {
    struct page_list_entry list;
    unsigned long count_info;
    union {
        struct { unsigned long type_info; } inuse;
        union {
            struct {
                unsigned int first_dirty;
                bool need_tlbflush;
                uint8_t scrub_state;
            };
            unsigned long val;
        } free;
    } u;
    union {
        struct { __pdx_t _domain; } inuse;
        struct { unsigned int order; } free;
    } v;
    union { u32 tlbflush_timestamp; } ;
};

/*
 * count_info's bits as x86's asm/mm.h of the tree has them: up to 4.20
 * need_scrub shares PGC_allocated's bit; staging gives it bit 7 of its own
 * (PGC_extra moves to bit 3, a shadowed page table takes bit 8, as
 * CONFIG_SHADOW_PAGING is on by default). hostheap.py picks the layout
 * from the tree's header and refuses one it does not know.
 */
/* Bit positions counted down from the word's top, as the tree's header counts them. */
#define XH_FROM_TOP(n) (BITS_PER_LONG - (n))
#define XH_TOP_FIELD(v, n) ((unsigned long)(v) << XH_FROM_TOP(n))
#define PGC_allocated XH_TOP_FIELD(1, 1)
#define PGC_xen_heap XH_TOP_FIELD(1, 2)
#define PGC_broken XH_TOP_FIELD(1, 4)
#define _PGC_broken XH_FROM_TOP(4)
#define PGC_state XH_TOP_FIELD(3, 6)
#define PGC_state_inuse XH_TOP_FIELD(0, 6)
#define PGC_state_offlining XH_TOP_FIELD(1, 6)
#define PGC_state_offlined XH_TOP_FIELD(2, 6)
#define PGC_state_free XH_TOP_FIELD(3, 6)
#if XH_PGC_LAYOUT == 2
#define PGC_extra XH_TOP_FIELD(1, 3)
#define _PGC_need_scrub XH_FROM_TOP(7)
#define PGC_need_scrub XH_TOP_FIELD(1, 7)
#define PGC_shadowed_pt XH_TOP_FIELD(1, 8)
#define PGC_count_mask ((1UL << XH_FROM_TOP(8)) - 1)
#elif XH_PGC_LAYOUT == 1
#define PGC_page_table XH_TOP_FIELD(1, 3)
#define PGC_extra XH_TOP_FIELD(1, 7)
#define _PGC_need_scrub XH_FROM_TOP(1)
#define PGC_need_scrub PGC_allocated
#define PGC_count_mask ((1UL << XH_FROM_TOP(7)) - 1)
#else
#error "XH_PGC_LAYOUT (1: need_scrub on PGC_allocated's bit, 2: on bit 7) must be given"
#endif
#define page_state_is(pg, st) (((pg)->count_info & PGC_state) == PGC_state_##st)
#define is_xen_heap_page(pg) ((pg)->count_info & PGC_xen_heap)
#define PFN_ORDER(pg) ((pg)->v.free.order)
#define INVALID_DIRTY_IDX ((1UL << (MAX_ORDER + 1)) - 1)
#define BUDDY_NOT_SCRUBBING 0
#define BUDDY_SCRUBBING 1
#define BUDDY_SCRUB_ABORT 2

/*
 * Frame numbers and the frame table. A pdx is a frame number with the
 * bits compressed out that no RAM has (xen/pdx.h's mask compression: the
 * bits above the bottom XH_PDX_BOTTOM bits and below the hole's top shift
 * down), or less an offset (staging's offset compression, of one region
 * here: a multiple of 2^MAX_ORDER, not of a node group); the table starts at pdx xh_base_pdx (Arm's
 * frametable_base_pdx; 0 on x86), so a frame's mfn, its pdx and its index
 * in the table can all differ. The bottom bits are at least MAX_ORDER's,
 * as Xen keeps them, so a buddy is the same neighbour in all three.
 */
extern unsigned long xh_base_pdx, xh_pdx_bottom_mask, xh_pdx_hole_mask;
extern unsigned int xh_pdx_hole_shift;
#ifdef XH_TIMING
#define xh_pdx_offset 0UL                   /* the timer's frames are x86's, from pdx 0 */
#else
extern unsigned long xh_pdx_offset;
#endif
extern struct page_info *xh_frame_table;
extern unsigned long xh_nr_frames;
static inline unsigned long pfn_to_pdx(unsigned long pfn)
{
    return ((pfn & xh_pdx_bottom_mask) |
            ((pfn & ~(xh_pdx_bottom_mask | xh_pdx_hole_mask)) >> xh_pdx_hole_shift)) - xh_pdx_offset;
}
static inline unsigned long pdx_to_pfn(unsigned long pdx)
{
    pdx += xh_pdx_offset;
    return (pdx & xh_pdx_bottom_mask) | ((pdx & ~xh_pdx_bottom_mask) << xh_pdx_hole_shift);
}
#define mfn_to_pdx(m) pfn_to_pdx(mfn_x(m))
#define pdx_to_mfn(p) _mfn(pdx_to_pfn(p))
#define frame_table xh_frame_table
/* xen/pdx.h's: the index into the table, which is the pdx only where the table starts at pdx 0. */
#define page_to_pdx(pg) ((unsigned long)((pg) - xh_frame_table))
#define page_to_mfn(pg) pdx_to_mfn(page_to_pdx(pg) + xh_base_pdx)
#define mfn_to_page(m) (xh_frame_table + (mfn_to_pdx(m) - xh_base_pdx))
#define page_to_maddr(pg) mfn_to_maddr(page_to_mfn(pg))
static inline bool mfn_valid(mfn_t m)
{
    unsigned long pdx = mfn_to_pdx(m);

    XH_COUNTED(XH_C_VALID);
    return !(m.mfn & xh_pdx_hole_mask) && pdx >= xh_base_pdx && pdx - xh_base_pdx < xh_nr_frames;
}

/* Owners: _domain indexes the tester's domains, 0 for none. */
typedef struct { unsigned long bits[1]; } nodemask_t;
struct domain {
    unsigned int id, outstanding_pages;
    nodeid_t last_alloc_node;
    nodemask_t node_affinity;
};
extern struct domain xh_domains[4];
/*
 * The heap's functions read a page's owner only under heap_lock: the tester
 * holds them to it (xh_owner_check()), which a chunk marked before the lock
 * is taken breaks.
 */
#ifdef XH_TIMING
#define xh_owner_check() ((void)0)
#else
void xh_owner_check(void);
#endif
#define page_get_owner(pg) \
    (xh_owner_check(), (pg)->v.inuse._domain ? &xh_domains[(pg)->v.inuse._domain] : NULL)
#define page_set_owner(pg, d) \
    ((pg)->v.inuse._domain = (d) ? (unsigned int)((struct domain *)(d) - xh_domains) : 0)

/* The TLB clock: the tester moves it on between calls. */
extern u32 xh_tlbflush_clock;
#define page_set_tlbflush_timestamp(pg) ((pg)->tlbflush_timestamp = xh_tlbflush_clock)

/*
 * NUMA: memnodemap[], one node per 2^memnode_shift pdx, NUMA_NO_NODE where
 * no node has memory. 4.17 asks by address, staging by frame; both ASSERT
 * the map and the node, as xen/numa.h does.
 */
extern unsigned int memnode_shift;
extern nodeid_t xh_memnodemap[];
extern unsigned long xh_memnodemapsize;
static inline nodeid_t mfn_to_nid(mfn_t m)
{
    unsigned long group = mfn_to_pdx(m) >> memnode_shift;

    XH_COUNTED(XH_C_NID);
    ASSERT(group < xh_memnodemapsize);
    ASSERT(xh_memnodemap[group] < MAX_NUMNODES);
    return xh_memnodemap[group];
}
#define phys_to_nid(pa) mfn_to_nid(_mfn((pa) >> PAGE_SHIFT))
#define page_to_nid(pg) mfn_to_nid(page_to_mfn(pg))

/* Storage qualifiers by option (xen/kconfig.h): CONFIG_NUMA is on here. */
#define XH_CAT_(a, b) a##b
#define XH_CAT(a, b) XH_CAT_(a, b)
#define XH_STATIC_1 static
#define XH_STATIC_0
#define STATIC_IF(option) XH_CAT(XH_STATIC_, IS_ENABLED(option))

/*
 * LLC colouring is Arm's (CONFIG_LLC_COLORING is off on x86): a coloured
 * page never reaches the heap here, and asking for a colour is a failure.
 */
#define llc_coloring_enabled false
unsigned int page_to_llc_color(const struct page_info *pg);

/*
 * The M2P, live once paging_init() has run. set_gpfn_from_mfn() and any
 * arch_m2p_ready() are declared by the tree's x86 header (xh_arch_m2p.h);
 * stand.c defines the out-of-line store as x86_64/mm.c does.
 */
extern bool machine_to_phys_mapping_valid;
extern unsigned long *xh_m2p;
#define INVALID_M2P_ENTRY (~0UL)

/* The direct map, over the tester's memory behind the frames. */
void *mfn_to_virt(unsigned long mfn);
#define arch_mfns_in_directmap(mfn, nr) true
void *alloc_xenheap_pages(unsigned int order, unsigned int memflags);
#define xmalloc(type) ((type *)xh_xmalloc(sizeof(type)))
#define xmalloc_array(type, n) ((type *)xh_xmalloc(sizeof(type) * (n)))
void *xh_xmalloc(size_t bytes);
static inline unsigned int get_order_from_bytes(paddr_t b)
{ unsigned int o = 0; for ( b = (b - 1) >> PAGE_SHIFT; b; b >>= 1 ) o++; return o; }
static inline unsigned int get_order_from_pages(unsigned long n)
{ unsigned int o = 0; for ( n = n - 1; n; n >>= 1 ) o++; return o; }

/* Boot and after: system_state as Xen's. */
enum { SYS_STATE_early_boot, SYS_STATE_boot, SYS_STATE_smp_boot, SYS_STATE_active };
extern int system_state;

/*
 * The heap lock: a ticket lock taken and released out of line, as Xen's
 * is; the tester also knows which thread holds it.
 */
typedef struct { unsigned int head, tail; int owner; } spinlock_t;
#define DEFINE_SPINLOCK(l) spinlock_t l = { 0, 0, 0 }
void xh_spin_lock(spinlock_t *l);
void xh_spin_unlock(spinlock_t *l);
#define spin_lock(l) (XH_COUNTED(XH_C_LOCK), xh_spin_lock(l))
#define spin_unlock(l) xh_spin_unlock(l)
#define spin_is_locked(l) (ACCESS_ONCE((l)->head) != ACCESS_ONCE((l)->tail))
#define spin_lock_kick() do { } while ( 0 )

/* Page lists: head and tail pointers, NULL-ended, as Xen's pdx lists behave. */
#define PAGE_LIST_HEAD_INIT(name) { NULL, NULL }
#define PAGE_LIST_HEAD(name) struct page_list_head name = PAGE_LIST_HEAD_INIT(name)
#define INIT_PAGE_LIST_HEAD(h) ((h)->next = (h)->tail = NULL)
static inline bool page_list_empty(const struct page_list_head *h) { return !h->next; }
static inline void page_list_add(struct page_info *pg, struct page_list_head *h)
{
    XH_COUNTED(XH_C_LIST);
    pg->list.prev = NULL;
    pg->list.next = h->next;
    if ( h->next )
        h->next->list.prev = pg;
    else
        h->tail = pg;
    h->next = pg;
}
static inline void page_list_add_tail(struct page_info *pg, struct page_list_head *h)
{
    XH_COUNTED(XH_C_LIST);
    pg->list.next = NULL;
    pg->list.prev = h->tail;
    if ( h->tail )
        h->tail->list.next = pg;
    else
        h->next = pg;
    h->tail = pg;
}
void xh_list_check(const struct page_info *pg, const struct page_list_head *h);
static inline void page_list_del(struct page_info *pg, struct page_list_head *h)
{
    XH_COUNTED(XH_C_LIST);
#ifndef XH_TIMING
    xh_list_check(pg, h);
#endif
    if ( pg->list.prev )
        pg->list.prev->list.next = pg->list.next;
    else
        h->next = pg->list.next;
    if ( pg->list.next )
        pg->list.next->list.prev = pg->list.prev;
    else
        h->tail = pg->list.prev;
}
static inline struct page_info *page_list_remove_head(struct page_list_head *h)
{
    struct page_info *pg = h->next;

    if ( pg )
        page_list_del(pg, h);
    return pg;
}

#include "xen_stand_alloc.h"

#endif
