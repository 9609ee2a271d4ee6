// SPDX-License-Identifier: MIT
/*
 * Kernel half: one boot of the memory init, as x86-64's setup_arch() and
 * start_kernel() run it, on the machine a layout describes, with the real
 * functions of mm/: memblock, the NUMA memblks, sparse_init(),
 * free_area_init(), build_all_zonelists(), memblock_free_all() and
 * page_alloc_init_late() with its threads. What x86 itself does around
 * them is modelled here, each step naming the code it stands for.
 */
#include <linux/init.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/numa.h>
#include <linux/numa_memblks.h>
#include <linux/nodemask.h>
#include <linux/string.h>
#include <asm/dma.h>
#include <asm/numa.h>
#include <linux/version.h>

#include <internal.h>	/* mm/internal.h of the tree: -I mm */
#include "lxt.h"
#include "k_snap.h"

void lxt_set_physmem_end(unsigned long end);
extern unsigned long lxt_fill_seed;
extern int lxt_fill_kind, lxt_yield_every, lxt_prefilled;
void lxt_threads_join(void);
void lxt_unaccept(unsigned long start_pfn, unsigned long end_pfn);
unsigned long lxt_zone_locks(void);

static const struct lxt_layout *lxt_l;

/* The early parameters, as parse_early_param() hands them to their handlers. */
static void __init lxt_early_params(const struct lxt_layout *l)
{
	const struct obs_kernel_param *p;
	static char value[64];
	int i;

	for (i = 0; i < l->ncmdline; i++) {
		const char *arg = l->cmdline[i], *eq = strchr(arg, '=');
		size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
		bool found = false;

		strscpy(value, eq ? eq + 1 : "", sizeof(value));
		for (p = __setup_start; p < __setup_end; p++) {
			if (p->early && strlen(p->str) == n && !strncmp(p->str, arg, n)) {
				found = true;
				if (p->setup_func(value))
					pr_warn("Malformed early option '%s'\n", p->str);
			}
		}
		if (!found)
			lxt_host_fail("an early parameter no handler of the tester's objects takes");
	}
}

static bool lxt_has(const struct lxt_layout *l, const char *arg)
{
	int i;

	for (i = 0; i < l->ncmdline; i++)
		if (!strcmp(l->cmdline[i], arg))
			return true;
	return false;
}

/*
 * mm_init.c's mem_debugging_and_hardening_init() as its static keys come
 * out of the parameters a layout gives: page poisoning first, which
 * turns init_on_alloc and init_on_free off; any of them turns the page
 * checks on. (The function is static and inlined in mm_core_init().)
 */
static void __init lxt_mem_debugging(const struct lxt_layout *l)
{
	bool poison = lxt_has(l, "page_poison=1");
	bool on_alloc = IS_ENABLED(CONFIG_INIT_ON_ALLOC_DEFAULT_ON) && !lxt_has(l, "init_on_alloc=0");
	bool on_free = IS_ENABLED(CONFIG_INIT_ON_FREE_DEFAULT_ON) || lxt_has(l, "init_on_free=1");
	bool check = false;

#ifdef CONFIG_PAGE_POISONING
	if (poison) {
		static_branch_enable(&_page_poisoning_enabled);
		on_alloc = on_free = false;
		check = true;
	}
#endif
	if (on_alloc)
		static_branch_enable(&init_on_alloc);
	else
		static_branch_disable(&init_on_alloc);
	if (on_free)
		static_branch_enable(&init_on_free);
	else
		static_branch_disable(&init_on_free);
	if (!IS_ENABLED(CONFIG_DEBUG_VM) && (check || on_alloc || on_free))
		static_branch_enable(&check_pages_enabled);
}

/* The SRAT's memory affinity, as x86_acpi_numa_init() adds it. */
static int __init lxt_srat(void)
{
	int i;

	for (i = 0; i < lxt_l->nmem; i++) {
		const struct lxt_range *r = &lxt_l->mem[i];

		node_set(r->nid, numa_nodes_parsed);
		if (numa_add_memblk(r->nid, PFN_PHYS(r->start), PFN_PHYS(r->end)))
			return -EINVAL;
	}
	return 0;
}

/*
 * x86's numa_init() and numa_register_nodes() (arch/x86/mm/numa.c): the
 * memblks registered, node data allocated on each node with memory, and
 * each node's CPUs, from which deferred init takes its thread count.
 */
static void __init lxt_numa(const struct lxt_layout *l)
{
	unsigned long start, end;
	int nid, cpu = 0, i;

	if (numa_memblks_init(lxt_srat, true) < 0)
		lxt_host_fail("numa_memblks_init() refused the layout's nodes");
	for_each_node_mask(nid, node_possible_map) {
		get_pfn_range_for_nid(nid, &start, &end);
		if (start >= end)
			continue;
		alloc_node_data(nid);
		node_set_online(nid);
	}
	for (nid = 0; nid < l->nodes; nid++)
		for (i = 0; i < l->cpus_of_node[nid]; i++)
			cpumask_set_cpu(cpu++ % nr_cpu_ids, node_to_cpumask_map[nid]);
}

/*
 * The zones' limits as x86 sets them (arch/x86/mm/init.c: zone_sizes_init()
 * up to 6.x, arch_zone_limits_init() since), at the layout's limits.
 */
static void __init lxt_zone_limits(unsigned long *max_zone_pfns)
{
	max_zone_pfns[ZONE_DMA] = min(lxt_l->max_dma_pfn, max_low_pfn);
	max_zone_pfns[ZONE_DMA32] = min(lxt_l->max_dma32_pfn, max_low_pfn);
	max_zone_pfns[ZONE_NORMAL] = max_low_pfn;
}

#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
/* paging_init(): sparse_init(), then free_area_init() with the limits. */
static void __init lxt_memmap_init(void)
{
	unsigned long max_zone_pfns[MAX_NR_ZONES] = { 0 };

	sparse_init();
	lxt_zone_limits(max_zone_pfns);
	free_area_init(max_zone_pfns);
}
#else
void __init arch_zone_limits_init(unsigned long *max_zone_pfns)
{
	lxt_zone_limits(max_zone_pfns);
}

/* start_kernel()'s mm_core_init_early(): sparse_init() and free_area_init() in one. */
static void __init lxt_memmap_init(void)
{
	mm_core_init_early();
}
#endif

/* What is allocated from memblock after memmap init (per-CPU areas and the like). */
static void __init lxt_late_allocs(const struct lxt_layout *l)
{
	int i;

	for (i = 0; i < l->nalloc; i++) {
		const struct lxt_alloc *a = &l->alloc[i];
		int nid = a->nid < 0 ? NUMA_NO_NODE : a->nid;
		void *p;

		if (a->raw)
			p = memblock_alloc_try_nid_raw(a->bytes, a->align, 0, MEMBLOCK_ALLOC_ACCESSIBLE, nid);
		else
			p = memblock_alloc_try_nid(a->bytes, a->align, 0, MEMBLOCK_ALLOC_ACCESSIBLE, nid);
		if (!p)
			lxt_host_fail("a late memblock allocation failed");
	}
}

int lxt_boot(const struct lxt_layout *l, struct lxt_snap *early, struct lxt_snap *late,
	     struct lxt_times *t)
{
	unsigned long t0, w0, end = 0;
	int i;

	lxt_l = l;
	page_offset_base = lxt_phys_base;
	vmemmap_base = lxt_vmemmap_base;
	lxt_set_physmem_end(lxt_phys_bytes - 1);
	lxt_fill_seed = l->fill_seed;
	lxt_fill_kind = l->fill_kind;
	lxt_prefilled = l->prefilled;
	lxt_yield_every = l->yield_every;

	/* setup_arch(): the early parameters, then e820's RAM and the reservations. */
	lxt_early_params(l);
	for (i = 0; i < l->nunaccepted; i++)
		lxt_unaccept(l->unaccepted[i].start, l->unaccepted[i].end);
	for (i = 0; i < l->nmem; i++) {
		memblock_add(PFN_PHYS(l->mem[i].start), PFN_PHYS(l->mem[i].end - l->mem[i].start));
		end = max(end, l->mem[i].end);
	}
	for (i = 0; i < l->nres; i++)
		memblock_reserve(PFN_PHYS(l->res[i].start), PFN_PHYS(l->res[i].end - l->res[i].start));
	if (PFN_PHYS(end) > lxt_phys_bytes)
		lxt_host_fail("the layout's memory ends past the tester's direct map");
	for (i = 0; l->fill_ram && i < l->nmem; i++)
		lxt_host_fill(__va(PFN_PHYS(l->mem[i].start)), PFN_PHYS(l->mem[i].end - l->mem[i].start),
			      l->fill_seed + i, l->fill_kind);
	max_pfn = max_low_pfn = end;		/* init_mem_mapping(): x86-64 maps it all */
	memblock_set_bottom_up(l->bottom_up);
	lxt_numa(l);

	/* The memmap, then the zones and their struct pages. */
	t0 = lxt_host_thread_ns();
	lxt_memmap_init();
	t->memmap_ns = lxt_host_thread_ns() - t0;

	/* start_kernel() up to mm_core_init()'s mem_init(). */
	lxt_late_allocs(l);
	for (i = 0; i < l->nremove; i++)
		memblock_remove(PFN_PHYS(l->remove[i].start), PFN_PHYS(l->remove[i].end - l->remove[i].start));
	build_all_zonelists(NULL);
	if (l->mobility_off)
		page_group_by_mobility_disabled = 1;
	lxt_mem_debugging(l);

	t0 = lxt_host_thread_ns();
	memblock_free_all();
	t->free_all_ns = lxt_host_thread_ns() - t0;
	if (early)
		lxt_snapshot(early, l->sets, l->fill_ram);

	/* kernel_init_freeable(): deferred init on each node's threads. */
	t0 = lxt_host_thread_ns();
	w0 = lxt_host_wall_ns();
	page_alloc_init_late();
	lxt_threads_join();
	t->deferred_wall_ns = lxt_host_wall_ns() - w0;
	t->deferred_ns = lxt_host_thread_ns() - t0;
	t->pages_freed = totalram_pages();
	t->zone_locks = lxt_zone_locks();
	if (late)
		lxt_snapshot(late, l->sets, l->fill_ram);
	return 0;
}

unsigned long lxt_page_bytes(void)
{
	return sizeof(struct page);
}

unsigned long lxt_section_pages(void)
{
	return PAGES_PER_SECTION;
}

unsigned long lxt_max_order(void)
{
	return MAX_PAGE_ORDER;
}

unsigned long lxt_pageblock_order(void)
{
	return pageblock_order;
}
