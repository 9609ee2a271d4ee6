// SPDX-License-Identifier: MIT
/*
 * Kernel half: the snapshot of what the hand-over leaves, for the user
 * half to compare between two runs word by word: memblock's maps, the
 * global, node and zone counters, the vm events, every free list entry by
 * entry, every pageblock's flags, the raw bytes of every struct page of
 * every present section (a digest a section, or a copy) and, where RAM
 * started as garbage, the bytes of every free page (what init_on_free and
 * page poisoning write). Lists are walked with a bound and each entry
 * checked, so a corrupted list shows as fields, not as a hang.
 */
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>
#include <linux/vmstat.h>
#include <linux/version.h>

#include <internal.h>	/* mm/internal.h of the tree: -I mm */
#include "lxt.h"
#include "k_snap.h"

/*
 * Two 64-bit lanes over words: the digest a section's struct pages are
 * compared by, unless the user half asks for a copy to find the word.
 */
struct digest {
	u64 a, b;
};

static __always_inline void digest_word(struct digest *d, u64 w)
{
	d->a = (d->a ^ w) * 0x9e3779b97f4a7c15ULL;
	d->a ^= d->a >> 31;
	d->b = (d->b + w) * 0xc2b2ae3d27d4eb4fULL;
	d->b ^= d->b >> 29;
}

/* How a snapshot is taken: lists as sets (threads order them), free pages' bytes. */
struct how {
	int sets, ram;
};

/* The names of this snapshot so far: where each string of ours went in s->names. */
static struct {
	const char *what;
	unsigned long at;
} named[64];
static int nnamed;

static unsigned long name_of(struct lxt_snap *s, const char *what)
{
	unsigned long n = strlen(what) + 1;
	int i;

	for (i = 0; i < nnamed; i++)
		if (named[i].what == what)
			return named[i].at;
	if (nnamed == ARRAY_SIZE(named) || s->nnames + n > s->cap_names) {
		s->overflow = 1;
		return 0;
	}
	memcpy(s->names + s->nnames, what, n);
	named[nnamed].what = what;
	named[nnamed++].at = s->nnames;
	s->nnames += n;
	return s->nnames - n;
}

static void field(struct lxt_snap *s, const char *what, unsigned long k1, unsigned long k2,
		  unsigned long value)
{
	if (s->nfields == s->cap_fields) {
		s->overflow = 1;
		return;
	}
	if (!(s->nfields & 65535))
		lxt_host_prepare(&s->fields[s->nfields], 65536 * sizeof(*s->fields));
	s->fields[s->nfields++] = (struct lxt_field){ name_of(s, what), k1, k2, value };
}

static void snap_memblock(struct lxt_snap *s, struct memblock_type *type, const char *what)
{
	unsigned long i;

	field(s, what, ULONG_MAX, 0, type->cnt);
	for (i = 0; i < type->cnt; i++) {
		field(s, what, i, 0, type->regions[i].base);
		field(s, what, i, 1, type->regions[i].size);
		field(s, what, i, 2, type->regions[i].flags);
		field(s, what, i, 3, memblock_get_region_node(&type->regions[i]));
	}
}

static void snap_globals(struct lxt_snap *s)
{
	unsigned long sum;
	int i, cpu;

	field(s, "totalram_pages", 0, 0, totalram_pages());
	field(s, "totalreserve_pages", 0, 0, totalreserve_pages);
	field(s, "max_pfn", 0, 0, max_pfn);
	for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
		field(s, "vm_zone_stat", i, 0, atomic_long_read(&vm_zone_stat[i]));
#ifdef CONFIG_VM_EVENT_COUNTERS
	for (i = 0; i < NR_VM_EVENT_ITEMS; i++) {
		sum = 0;
		for_each_possible_cpu(cpu)
			sum += per_cpu(vm_event_states, cpu).event[i];
		field(s, "vm_event", i, 0, sum);
	}
#endif
	snap_memblock(s, &memblock.memory, "memblock.memory");
	snap_memblock(s, &memblock.reserved, "memblock.reserved");
	/* What is still unaccepted (k_mm.c's map), where any is. */
	for (i = 0; i < (int)ARRAY_SIZE(lxt_unaccepted); i++)
		if (lxt_unaccepted[i])
			field(s, "unaccepted units", i, 0, lxt_unaccepted[i]);
}

/* Shell sort of the values of fields [from, to): a list's entries as a set. */
static void sort_values(struct lxt_field *f, unsigned long from, unsigned long to)
{
	unsigned long gap, i, j, v;

	for (gap = (to - from) / 2; gap; gap /= 2)
		for (i = from + gap; i < to; i++) {
			v = f[i].value;
			for (j = i; j >= from + gap && f[j - gap].value > v; j -= gap)
				f[j].value = f[j - gap].value;
			f[j].value = v;
		}
}

/*
 * The bytes of a free block, a digest of its pfn and its words, which
 * snap_list() sums over a zone's blocks: a sum, so that threads' order of
 * the lists leaves it alone.
 */
static u64 block_bytes(unsigned long pfn, unsigned int order)
{
	const u64 *w = __va(PFN_PHYS(pfn));
	unsigned long i, n = (PAGE_SIZE << order) / sizeof(u64);
	struct digest d = { pfn, ~pfn };

	for (i = 0; i < n; i++)
		digest_word(&d, w[i]);
	return d.a ^ (d.b << 1);
}

/*
 * One list of free pages, entry by entry: each entry's pfn, or what is
 * wrong with it; sorted when sets. The walk stops at the zone's size.
 * With RAM compared, each block's bytes are added to *bytes.
 */
static void snap_list(struct lxt_snap *s, struct zone *zone, unsigned long key, struct list_head *head,
		      unsigned int order, int mt, bool buddy, const struct how *how, u64 *bytes)
{
	unsigned long n = 0, first = s->nfields, tag = (unsigned long)order << 8 | mt;
	struct list_head *pos;

	if (!head->next) {		/* a zone without pages: its lists never set up */
		field(s, "list never set up", key, tag, 0);
		return;
	}
	for (pos = head->next; pos != head; pos = pos->next, n++) {
		struct page *page = list_entry(pos, struct page, lru);

		if (n > zone->spanned_pages) {
			field(s, "free list longer than its zone", key, tag, n);
			return;
		}
		if (pos->next->prev != pos) {
			field(s, "free list link broken after pfn", key, tag, page_to_pfn(page));
			return;
		}
		if (buddy && (!PageBuddy(page) || buddy_order(page) != order))
			field(s, "free list entry not a free block of its order", key, tag, page_to_pfn(page));
		else if (how->ram)
			*bytes += block_bytes(page_to_pfn(page), order);
		field(s, buddy ? "free list entry" : "unaccepted list entry", key, tag << 32 | n,
		      page_to_pfn(page));
	}
	if (how->sets)
		sort_values(s->fields, first, s->nfields);
	field(s, buddy ? "free list length" : "unaccepted list length", key, tag, n);
}

static void snap_zone(struct lxt_snap *s, struct zone *zone, const struct how *how)
{
	unsigned long key = zone_to_nid(zone) * MAX_NR_ZONES + zone_idx(zone);
	unsigned int order;
	u64 bytes = 0;
	int mt, i;

	field(s, "zone_start_pfn", key, 0, zone->zone_start_pfn);
	field(s, "spanned_pages", key, 0, zone->spanned_pages);
	field(s, "present_pages", key, 0, zone->present_pages);
	field(s, "managed_pages", key, 0, zone_managed_pages(zone));
	field(s, "nr_reserved_highatomic", key, 0, zone->nr_reserved_highatomic);
	for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
		field(s, "zone vm_stat", key, i, atomic_long_read(&zone->vm_stat[i]));
	for (order = 0; order < NR_PAGE_ORDERS; order++) {
		field(s, "nr_free", key, order, zone->free_area[order].nr_free);
		for (mt = 0; mt < MIGRATE_TYPES; mt++)
			snap_list(s, zone, key, &zone->free_area[order].free_list[mt], order, mt, true, how, &bytes);
	}
#ifdef CONFIG_UNACCEPTED_MEMORY
	snap_list(s, zone, key, &zone->unaccepted_pages, MAX_PAGE_ORDER, 0, false, how, &bytes);
#endif
	if (how->ram)
		field(s, "bytes of the zone's free pages (digest)", key, 0, bytes);
}

/*
 * Every bit a pageblock keeps, read from its section's map as the kernel
 * lays it out (NR_PAGEBLOCK_BITS a pageblock), whatever accessors the
 * release offers for them.
 */
static unsigned long pageblock_word(unsigned long pfn)
{
	unsigned long *map = section_to_usemap(__pfn_to_section(pfn));
	unsigned long bit = ((pfn & (PAGES_PER_SECTION - 1)) >> pageblock_order) * NR_PAGEBLOCK_BITS;

	return map[bit / BITS_PER_LONG] >> (bit % BITS_PER_LONG);
}

static void snap_node(struct lxt_snap *s, pg_data_t *pgdat, const struct how *how)
{
	unsigned long pfn, end = pgdat_end_pfn(pgdat), mask = BIT(NR_PAGEBLOCK_BITS) - 1;
	int nid = pgdat->node_id, zid;

	field(s, "node_start_pfn", nid, 0, pgdat->node_start_pfn);
	field(s, "node_spanned_pages", nid, 0, pgdat->node_spanned_pages);
	field(s, "node_present_pages", nid, 0, pgdat->node_present_pages);
	field(s, "nr_zones", nid, 0, pgdat->nr_zones);
#ifdef CONFIG_DEFERRED_STRUCT_PAGE_INIT
	field(s, "first_deferred_pfn", nid, 0, pgdat->first_deferred_pfn);
#endif
	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		snap_zone(s, &pgdat->node_zones[zid], how);
	for (pfn = ALIGN_DOWN(pgdat->node_start_pfn, pageblock_nr_pages); pfn < end;
	     pfn += pageblock_nr_pages)
		if (pfn_valid(pfn))
			field(s, "pageblock flags", pfn, 0, pageblock_word(pfn) & mask);
}

/*
 * The heads on a zone's unaccepted list (pfns below LXT_HEAD_PFNS), marked
 * for snap_pages() with sets and cleared again after: threads order that
 * list too, and its entries are not PageBuddy().
 */
#define LXT_HEAD_PFNS (1UL << 24)
static unsigned long unaccepted_heads[BITS_TO_LONGS(LXT_HEAD_PFNS)];

static void mark_unaccepted_heads(bool on)
{
#ifdef CONFIG_UNACCEPTED_MEMORY
	pg_data_t *pgdat;
	struct page *page;
	int zid;

	for_each_online_pgdat(pgdat)
		for (zid = 0; zid < MAX_NR_ZONES; zid++) {
			struct list_head *head = &pgdat->node_zones[zid].unaccepted_pages;

			if (head->next)
				list_for_each_entry(page, head, lru)
					if (page_to_pfn(page) < LXT_HEAD_PFNS)
						__assign_bit(page_to_pfn(page), unaccepted_heads, on);
		}
#endif
}

/* Whether a struct page's list links are left out of the comparison. */
static bool links_unordered(unsigned long pfn, int sets)
{
	return sets && (PageBuddy(pfn_to_page(pfn)) || (pfn < LXT_HEAD_PFNS && test_bit(pfn, unaccepted_heads)));
}

/*
 * Every present section: a digest of its struct pages, or with a buffer
 * a copy of them. With sets, the list links of free blocks' heads and of
 * the unaccepted list's entries are left out (zeroed in the copy), since
 * threads order the lists.
 */
static void snap_pages(struct lxt_snap *s, int sets)
{
	const unsigned long n = PAGES_PER_SECTION, bytes = n * sizeof(struct page);
	const unsigned long words = sizeof(struct page) / sizeof(u64), lru = offsetof(struct page, lru) / sizeof(u64);
	unsigned long nr, pfn, i, w;
	struct page *copy;

	for (nr = next_present_section_nr(-1); nr != -1UL; nr = next_present_section_nr(nr)) {
		struct digest d = { 1, 2 };

		pfn = section_nr_to_pfn(nr);
		field(s, "present section", pfn, 0, n);
		if (s->cap_bytes) {
			if (s->nbytes + bytes > s->cap_bytes) {
				s->overflow = 1;
				return;
			}
			copy = (struct page *)(s->bytes + s->nbytes);
			lxt_host_prepare(copy, bytes);
			memcpy(copy, pfn_to_page(pfn), bytes);
			s->nbytes += bytes;
			for (i = 0; sets && i < n; i++)
				if (links_unordered(pfn + i, sets))
					memset(&copy[i].lru, 0, sizeof(copy[i].lru));
			continue;
		}
		for (i = 0; i < n; i++) {
			const u64 *p = (const u64 *)pfn_to_page(pfn + i);
			bool skip = links_unordered(pfn + i, sets);

			for (w = 0; w < words; w++)
				digest_word(&d, skip && (w == lru || w == lru + 1) ? 0 : p[w]);
		}
		field(s, "struct pages of the section (digest)", pfn, 0, d.a);
		field(s, "struct pages of the section (digest)", pfn, 1, d.b);
	}
}

void lxt_snapshot(struct lxt_snap *s, int sets, int ram)
{
	const struct how how = { sets, ram };
	pg_data_t *pgdat;

	s->nfields = s->nbytes = s->nnames = 0;
	s->overflow = 0;
	nnamed = 0;
	s->page_bytes = sizeof(struct page);
	snap_globals(s);
	for_each_online_pgdat(pgdat)
		snap_node(s, pgdat, &how);
	if (sets)
		mark_unaccepted_heads(true);
	snap_pages(s, sets);
	if (sets)
		mark_unaccepted_heads(false);
}

/* The name of the word at byte word * 8 of struct page, for a difference's report. */
const char *lxt_page_word_name(unsigned long word)
{
	switch (word * sizeof(long)) {
	case offsetof(struct page, flags):
		return "flags";
	case offsetof(struct page, lru.next):
		return "lru.next";
	case offsetof(struct page, lru.prev):
		return "lru.prev";
	case offsetof(struct page, mapping):
		return "mapping";
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
	case offsetof(struct page, index):
#else
	case offsetof(struct page, __folio_index):
#endif
		return "index";
	case offsetof(struct page, private):
		return "private";
	case offsetof(struct page, page_type):
		return "page_type (_mapcount) and _refcount";
#ifdef CONFIG_MEMCG
	case offsetof(struct page, memcg_data):
		return "memcg_data";
#endif
	}
	return "(another word)";
}
