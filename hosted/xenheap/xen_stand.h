/* SPDX-License-Identifier: MIT */
/*
 * The rest of Xen, as small as xen/common/page_alloc.c's heap functions
 * need it in user space: types, the frame table, NUMA, locks, the M2P.
 * Force-included before the tree's page_alloc.c, whose own #includes are
 * empty files (harness/real/xen/hostheap.py). Anything the real code uses
 * that is not here fails the build by name: no implicit declarations, no
 * weak or default definitions.
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

/* The configuration of an x86-64 non-debug build, as far as it matters. */
#define CONFIG_X86 1
#define CONFIG_NUMA 1
#define MAX_ORDER XH_MAX_ORDER
#define MAX_NUMNODES 4
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

/* Hard failures: the tester's driver prints the sequence that got here. */
_Noreturn void xh_fail(const char *file, int line, const char *what);
#define BUG() xh_fail(__FILE__, __LINE__, "BUG()")
#define BUG_ON(c) do { if ( c ) xh_fail(__FILE__, __LINE__, "BUG_ON(" #c ")"); } while ( 0 )
#define ASSERT(c) do { if ( !(c) ) xh_fail(__FILE__, __LINE__, "ASSERT(" #c ")"); } while ( 0 )

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

/* The frame table: one page_info a frame from MFN 0, no holes, no PDX compression. */
extern struct page_info *xh_frame_table;
extern unsigned long xh_nr_frames;
#define frame_table xh_frame_table
#define page_to_mfn(pg) _mfn((unsigned long)((pg) - xh_frame_table))
#define mfn_to_page(m) (xh_frame_table + mfn_x(m))
#define page_to_pdx(pg) ((unsigned long)((pg) - xh_frame_table))
#define page_to_maddr(pg) mfn_to_maddr(page_to_mfn(pg))
static inline bool mfn_valid(mfn_t m) { XH_COUNTED(XH_C_VALID); return m.mfn < xh_nr_frames; }

/* Owners: _domain indexes the tester's domains, 0 for none. */
struct domain { unsigned int id; };
extern struct domain xh_domains[4];
#define page_get_owner(pg) ((pg)->v.inuse._domain ? &xh_domains[(pg)->v.inuse._domain] : NULL)
#define page_set_owner(pg, d) \
    ((pg)->v.inuse._domain = (d) ? (unsigned int)((struct domain *)(d) - xh_domains) : 0)

/* The TLB clock: the tester moves it on between calls. */
extern u32 xh_tlbflush_clock;
#define page_set_tlbflush_timestamp(pg) ((pg)->tlbflush_timestamp = xh_tlbflush_clock)

/*
 * NUMA: memnodemap[], one node per 2^memnode_shift frames; 4.17 asks by
 * address, staging by frame (xen/numa.h's mfn_to_nid(), ASSERTing the map).
 */
extern unsigned int memnode_shift;
extern nodeid_t xh_memnodemap[];
extern unsigned long xh_memnodemapsize;
#define phys_to_nid(pa) \
    (XH_COUNTED(XH_C_NID), (unsigned int)xh_memnodemap[((pa) >> PAGE_SHIFT) >> memnode_shift])
static inline nodeid_t mfn_to_nid(mfn_t m)
{
    XH_COUNTED(XH_C_NID);
    ASSERT((m.mfn >> memnode_shift) < xh_memnodemapsize);
    return xh_memnodemap[m.mfn >> memnode_shift];
}
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

/* The M2P, live once paging_init() has run (the tester's after-boot calls). */
extern bool machine_to_phys_mapping_valid;
extern unsigned long *xh_m2p;
#define INVALID_M2P_ENTRY (~0UL)
/* The proposal series' hook (patches/xen/staging/ 0002), as x86 defines it. */
#define arch_m2p_ready() machine_to_phys_mapping_valid
#define set_gpfn_from_mfn(mfn, pfn) do { \
        if ( machine_to_phys_mapping_valid ) XH_COUNTED(XH_C_M2P), xh_m2p[(mfn)] = (pfn); } while ( 0 )

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

/* The heap lock: one CPU, so a count that must balance. */
typedef struct { int held; } spinlock_t;
#define DEFINE_SPINLOCK(l) spinlock_t l = { 0 }
#define spin_lock(l) do { XH_COUNTED(XH_C_LOCK); ASSERT(!(l)->held); (l)->held = 1; } while ( 0 )
#define spin_unlock(l) do { ASSERT((l)->held); (l)->held = 0; } while ( 0 )
#define spin_is_locked(l) ((l)->held)
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

#endif
