// SPDX-License-Identifier: MIT
/*
 * Kernel half: what the memory-init objects call that is not among them.
 * Where a piece of x86 or of mm/ matters to what the hand-over leaves
 * behind, it is modelled here on the kernel's own (each names its model);
 * what only other paths use (page allocation's slow path, sysctl, slab,
 * tracing) is a trap (k_traps.S) or data that stays as boot leaves it.
 */
#include <linux/jump_label.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page_ext.h>
#include <linux/slab.h>
#include <linux/tracepoint-defs.h>
#include <linux/vmstat.h>
#include <linux/version.h>
#include <linux/huge_mm.h>
#include <linux/memcontrol.h>
#include <linux/page_reporting.h>
#include <linux/numa_memblks.h>
#include <asm/cpufeature.h>
#include <asm/page.h>

#include "lxt.h"
#include "k_snap.h"

/* The memory layout (arch/x86/mm/kaslr.c, head64.c): where the user half mapped it. */
unsigned long page_offset_base __ro_after_init;
unsigned long vmemmap_base __ro_after_init;
unsigned long phys_base;
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
unsigned long physmem_end __ro_after_init;
#define lxt_physmem_end physmem_end
#else
unsigned long direct_map_physmem_end __ro_after_init;
#define lxt_physmem_end direct_map_physmem_end
#endif

void lxt_set_physmem_end(unsigned long end);
void lxt_set_physmem_end(unsigned long end)
{
	lxt_physmem_end = end;
}
unsigned int pgdir_shift __ro_after_init = 39;
unsigned int ptrs_per_p4d __ro_after_init = 1;
pteval_t __supported_pte_mask __read_mostly = ~0ULL;
pteval_t __default_kernel_pte_mask __read_mostly = ~0ULL;
struct mm_struct init_mm;
struct cpuinfo_x86 boot_cpu_data __read_mostly;
enum system_states system_state __read_mostly = SYSTEM_BOOTING;
bool static_key_initialized __read_mostly = true;
enum zone_type policy_zone;



/* mm's counters and switches that boot leaves as they are. */
atomic_long_t _totalram_pages __read_mostly;
unsigned long totalreserve_pages __read_mostly;
unsigned long totalcma_pages __read_mostly;
unsigned long highest_memmap_pfn __read_mostly;
bool movable_node_enabled;
bool early_page_ext __meminitdata;
int node_reclaim_mode __read_mostly;
int sysctl_min_unmapped_ratio = 1;
int sysctl_min_slab_ratio = 5;
const int sysctl_vals[] = { 0, 1, 2, 3, 4, 100, 200, 1000, 3000, INT_MAX, 65535, -1 };
DEFINE_MUTEX(oom_lock);
struct kmem_cache *kmalloc_caches[NR_KMALLOC_TYPES][KMALLOC_SHIFT_HIGH + 1];
DEFINE_STATIC_KEY_FALSE(memcg_kmem_online_key);
DEFINE_STATIC_KEY_FALSE(page_reporting_enabled);
DEFINE_STATIC_KEY_FALSE(hugetlb_optimize_vmemmap_key);
unsigned int page_reporting_order = -1;
DEFINE_PER_CPU(struct mthp_stat, mthp_stats);
#ifdef CONFIG_VM_EVENT_COUNTERS
DEFINE_PER_CPU(struct vm_event_state, vm_event_states) = {{0}};
#endif

/* The vm events' names (mm/vmstat.c), which only the series' dump prints: none here. */
const char * const vmstat_text[] = { NULL };

/* Tracepoints: never enabled, so their calls never run (k_traps.S). */
struct tracepoint __tracepoint_mm_page_free, __tracepoint_mm_page_pcpu_drain,
	__tracepoint_mm_page_alloc, __tracepoint_mm_page_alloc_extfrag,
	__tracepoint_mm_page_alloc_zone_locked, __tracepoint_compact_retry,
	__tracepoint_reclaim_retry_zone, __tracepoint_mm_page_free_batched,
	__tracepoint_mm_calculate_totalreserve_pages, __tracepoint_mm_setup_per_zone_lowmem_reserve,
	__tracepoint_mm_setup_per_zone_wmarks;

bool slab_is_available(void)
{
	return false;
}

/*
 * The zone counters, modelled on mm/vmstat.c: at boot every CPU counts in
 * boot_zonestats, whose threshold is 0, so each change reaches the zone's
 * and the global counter at once, as it does here.
 */
atomic_long_t vm_zone_stat[NR_VM_ZONE_STAT_ITEMS] __cacheline_aligned_in_smp;

bool lxt_lock_held(raw_spinlock_t *lock);

void __mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta)
{
	/* account_freepages()'s lockdep_assert_held(&zone->lock) */
	if (item == NR_FREE_PAGES && !lxt_lock_held(&zone->lock.rlock))
		lxt_host_fail("NR_FREE_PAGES changed without the zone's lock");
	atomic_long_add(delta, &zone->vm_stat[item]);
	atomic_long_add(delta, &vm_zone_stat[item]);
}

void mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta)
{
	__mod_zone_page_state(zone, item, delta);
}

static atomic_long_t lxt_memmap_pages, lxt_memmap_boot_pages;

void memmap_boot_pages_add(long delta)
{
	atomic_long_add(delta, &lxt_memmap_boot_pages);
}

void memmap_pages_add(long delta)
{
	atomic_long_add(delta, &lxt_memmap_pages);
}

/*
 * pfn_to_online_page(), modelled on mm/memory_hotplug.c's: a valid pfn
 * of an online section; boot has no device memory.
 */
struct page *pfn_to_online_page(unsigned long pfn)
{
	unsigned long nr = pfn_to_section_nr(pfn);
	struct mem_section *ms;

	if (nr >= NR_MEM_SECTIONS)
		return NULL;
	ms = __nr_to_section(nr);
	if (!online_section(ms) || !pfn_section_valid(ms, pfn))
		return NULL;
	return pfn_to_page(pfn);
}

/*
 * vmemmap_populate(), modelled on arch/x86/mm/init_64.c's with PSE and on
 * vmemmap_populate_hugepages(): the memmap in 2 MiB blocks taken from the
 * sparse buffer (memblock), as x86 takes them, and where memblock has no
 * free aligned 2 MiB, in 4 KiB pages under a page of PTEs of their own,
 * as x86 falls back to vmemmap_populate_basepages(). The tester's struct
 * pages live where the user half mapped the vmemmap, so the blocks taken
 * only keep memblock's map as x86 leaves it (the upper page tables are
 * left out); the struct pages start as the sequence's garbage (written
 * here, or before the boot when it is timed).
 */
unsigned long lxt_fill_seed;
int lxt_fill_kind, lxt_prefilled;

int __meminit vmemmap_populate(unsigned long start, unsigned long end, int node,
			       struct vmem_altmap *altmap)
{
	unsigned long addr, next, page;

	if (start < lxt_vmemmap_base || end > lxt_vmemmap_base + lxt_vmemmap_bytes)
		lxt_host_fail("vmemmap_populate() outside the tester's vmemmap");
	for (addr = start; addr < end; addr = next) {
		next = min(ALIGN_DOWN(addr, PMD_SIZE) + PMD_SIZE, end);
		if (vmemmap_alloc_block_buf(PMD_SIZE, node, altmap))
			continue;
		if (!vmemmap_alloc_block(PAGE_SIZE, node))
			return -ENOMEM;
		for (page = ALIGN_DOWN(addr, PAGE_SIZE); page < next; page += PAGE_SIZE)
			if (!vmemmap_alloc_block_buf(PAGE_SIZE, node, altmap))
				return -ENOMEM;
	}
	if (!lxt_prefilled)
		lxt_host_fill((void *)start, end - start, lxt_fill_seed ^ start, lxt_fill_kind);
	return 0;
}

/* x86 with memory encryption built in (AMD_MEM_ENCRYPT): no key bit, every address bit. */
#ifdef CONFIG_DYNAMIC_PHYSICAL_MASK
phys_addr_t physical_mask __ro_after_init = (1ULL << __PHYSICAL_MASK_SHIFT) - 1;
#endif
#ifdef CONFIG_AMD_MEM_ENCRYPT
u64 sme_me_mask __ro_after_init;
#endif

/*
 * Unaccepted memory, modelled on drivers/firmware/efi/unaccepted_memory.c:
 * a bit a unit (LXT_UNIT_PAGES) of what the firmware left unaccepted,
 * range_contains_unaccepted_memory() asking whether any unit a range
 * touches is still set, accept_memory() clearing them under a lock.
 * Units past the map are accepted. The map is compared after each phase.
 */
unsigned long lxt_unaccepted[BITS_TO_LONGS(LXT_UNITS)];
static DEFINE_SPINLOCK(lxt_accept_lock);

void lxt_unaccept(unsigned long start_pfn, unsigned long end_pfn);
void lxt_unaccept(unsigned long start_pfn, unsigned long end_pfn)
{
	unsigned long u;

	for (u = start_pfn / LXT_UNIT_PAGES; u < DIV_ROUND_UP(end_pfn, LXT_UNIT_PAGES) && u < LXT_UNITS; u++)
		__set_bit(u, lxt_unaccepted);
}

#ifdef CONFIG_UNACCEPTED_MEMORY
bool range_contains_unaccepted_memory(phys_addr_t start, unsigned long size)
{
	unsigned long u, end = DIV_ROUND_UP(start + size, LXT_UNIT_PAGES << PAGE_SHIFT);
	bool any = false;

	spin_lock(&lxt_accept_lock);
	for (u = start / (LXT_UNIT_PAGES << PAGE_SHIFT); u < end && u < LXT_UNITS && !any; u++)
		any = test_bit(u, lxt_unaccepted);
	spin_unlock(&lxt_accept_lock);
	return any;
}

void accept_memory(phys_addr_t start, unsigned long size)
{
	unsigned long u, end = DIV_ROUND_UP(start + size, LXT_UNIT_PAGES << PAGE_SHIFT);

	spin_lock(&lxt_accept_lock);
	for (u = start / (LXT_UNIT_PAGES << PAGE_SHIFT); u < end && u < LXT_UNITS; u++)
		__clear_bit(u, lxt_unaccepted);
	spin_unlock(&lxt_accept_lock);
}
#endif

/* memchr_inv() (lib/string.c): the first byte in [start, start + bytes) that is not c. */
void *memchr_inv(const void *start, int c, size_t bytes)
{
	const u8 *p = start;

	for (; bytes; bytes--, p++)
		if (*p != (u8)c)
			return (void *)p;
	return NULL;
}

ssize_t sized_strscpy(char *dest, const char *src, size_t count)
{
	size_t i;

	if (!count)
		return -E2BIG;
	for (i = 0; i < count - 1 && src[i]; i++)
		dest[i] = src[i];
	dest[i] = 0;
	return src[i] ? -E2BIG : (ssize_t)i;
}
