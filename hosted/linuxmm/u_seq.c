// SPDX-License-Identifier: MIT
/*
 * User half: a machine from a seed. One to four nodes, numbered in any
 * order along memory and listed to the SRAT in any order; RAM in pieces
 * whose ends fall anywhere (mid-pageblock, mid-section, on a MAX_PAGE_ORDER
 * chunk or a section) with holes between; the zones at x86's limits
 * (DMA below 16 MiB, DMA32 below 4 GiB, NORMAL above) or at smaller ones,
 * so that a small machine has all three, and sometimes MOVABLE; ranges
 * reserved before memmap init and memblock allocations after it; the
 * runtime states (init_on_free, page poisoning, init_on_alloc off,
 * mobility grouping off); one thread a node or several; struct pages that
 * start as random bytes or a pattern.
 */
#include <stdio.h>
#include <string.h>

#include "lxt.h"
#include "u_seq.h"

static unsigned long next(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned long below(unsigned long *s, unsigned long n)
{
	return n ? next(s) % n : 0;
}

/* A pfn near p on one of four grains: any, a pageblock, a chunk, a section. */
static unsigned long snap(unsigned long *s, unsigned long p)
{
	unsigned long grain[4] = { 1, 1UL << lxt_pageblock_order(), 1UL << lxt_max_order(),
				   lxt_section_pages() };
	unsigned long g = grain[below(s, 4)];

	return p / g * g;
}

/*
 * Grows the last piece of RAM until the memory holds what boot takes of
 * it: 2 MiB of struct pages a section that has RAM (as x86 allocates the
 * memmap), what is reserved, what is allocated after memmap init, and
 * some room for node data and pageblock maps. A machine without it
 * cannot boot, with either variant.
 */
static void fit_memmap(struct lxt_layout *l)
{
	unsigned long sec = lxt_section_pages(), pages, need, s, last_sec;
	int i, last = 0, round;

	for (round = 0; round < 16; round++) {
		pages = 0;
		need = 2048 + (unsigned long)l->nodes * 256;
		last_sec = -1UL;
		for (i = 0; i < l->nmem; i++) {
			pages += l->mem[i].end - l->mem[i].start;
			if (l->mem[i].end > l->mem[last].end)
				last = i;
		}
		/* A section two pieces share counts twice unless they are listed in turn: a bound. */
		for (i = 0; i < l->nmem; i++)
			for (s = l->mem[i].start / sec; s <= (l->mem[i].end - 1) / sec; s++)
				if (s != last_sec) {
					need += sec * lxt_page_bytes() / 4096;
					last_sec = s;
				}
		for (i = 0; i < l->nres; i++)
			need += l->res[i].end - l->res[i].start;
		for (i = 0; i < l->nalloc; i++)
			need += (l->alloc[i].bytes + l->alloc[i].align) / 4096 + 1;
		if (pages >= need)
			return;
		l->mem[last].end += need - pages;
	}
}

static const char *const PARAMS[] = {
	"init_on_free=1", "page_poison=1", "init_on_alloc=0", "movablecore=25%", "kernelcore=50%",
};

void seq_layout(unsigned long seed, struct lxt_layout *l)
{
	unsigned long s = seed * 0x9e3779b97f4a7c15UL + 0x632be59bd9b4e019UL, sec = lxt_section_pages();
	unsigned long pfn, size, high, start;
	int perm[LXT_MAX_NODES], i, j, n, pieces, t;
	struct lxt_range tmp;

	memset(l, 0, sizeof(*l));
	next(&s);
	l->nodes = 1 + (below(&s, 10) < 4 ? 0 : below(&s, 4));
	for (i = 0; i < l->nodes; i++)
		perm[i] = i;
	for (i = l->nodes - 1; i > 0; i--) {
		j = below(&s, i + 1);
		t = perm[i], perm[i] = perm[j], perm[j] = t;
	}
	if (below(&s, 2)) {		/* x86's zones: RAM below 16 MiB, below 4 GiB and above */
		l->max_dma_pfn = 4096;
		l->max_dma32_pfn = 1UL << 20;
	} else {			/* small ones, all three zones in a small machine */
		l->max_dma_pfn = snap(&s, 256 + below(&s, 8192));
		l->max_dma32_pfn = l->max_dma_pfn + snap(&s, 1 + below(&s, 2 * sec));
	}
	high = l->max_dma32_pfn >= (1UL << 20) ? 1UL << 20 : 0;

	/* RAM: pieces along memory, a node's pieces together, nodes in turn. */
	pfn = below(&s, 2) ? 0 : 256;
	pieces = l->nodes + below(&s, l->nodes + 3);
	for (i = 0; i < pieces && l->nmem < LXT_MAX_RANGES; i++) {
		int nid = perm[i * l->nodes / pieces];

		start = snap(&s, pfn + (below(&s, 3) ? 0 : below(&s, sec)));
		pfn = start < pfn ? pfn : start;	/* no piece overlaps the last */
		if (high && pfn < high && below(&s, 3) == 0)
			pfn = high;
		size = below(&s, 4) ? 1 + below(&s, 2 * sec) : 1 + below(&s, 64 << lxt_max_order());
		start = pfn;
		pfn = snap(&s, pfn + size);
		if (pfn <= start)
			pfn = start + 1 + below(&s, 1UL << lxt_max_order());
		l->mem[l->nmem++] = (struct lxt_range){ start, pfn, nid };
	}
	/* The SRAT lists them in any order. */
	for (i = l->nmem - 1; i > 0; i--) {
		j = below(&s, i + 1);
		tmp = l->mem[i], l->mem[i] = l->mem[j], l->mem[j] = tmp;
	}
	if (!below(&s, 2))
		l->res[l->nres++] = (struct lxt_range){ 0, 256, -1 };	/* x86 keeps the first MiB */
	n = below(&s, 7);
	for (i = 0; i < n && l->nres < LXT_MAX_RANGES; i++) {
		const struct lxt_range *r = &l->mem[below(&s, l->nmem)];

		start = r->start + below(&s, r->end - r->start);
		size = below(&s, 2) ? 1 + below(&s, 16) : 1 + below(&s, 8UL << lxt_max_order());
		l->res[l->nres++] = (struct lxt_range){ start, start + size, -1 };
	}
	n = below(&s, 9);
	for (i = 0; i < n; i++) {
		unsigned long bytes = below(&s, 2) ? 64 + below(&s, 4096) : 4096 + below(&s, 2UL << 20);

		l->alloc[l->nalloc++] = (struct lxt_alloc){ bytes, 8UL << below(&s, 19),
							     below(&s, 3) ? -1 : perm[below(&s, l->nodes)],
							     (int)below(&s, 2) };
	}
	if (!below(&s, 8)) {		/* RAM that memblock drops after memmap init */
		const struct lxt_range *r = &l->mem[below(&s, l->nmem)];

		start = r->start + below(&s, r->end - r->start);
		size = 1 + below(&s, 4UL << lxt_max_order());
		l->remove[l->nremove++] = (struct lxt_range){ start, start + size < r->end ? start + size : r->end,
							       r->nid };
	}
	for (i = 0; i < (int)(sizeof(PARAMS) / sizeof(PARAMS[0])); i++)
		if (below(&s, i < 2 ? 24 : 12) == 0)	/* the first two write all free memory */
			l->cmdline[l->ncmdline++] = PARAMS[i];
	l->mobility_off = below(&s, 10) == 0;
	/* RAM starts as garbage where freeing writes it, and now and then elsewhere. */
	l->fill_ram = below(&s, 16) == 0;
	for (i = 0; i < l->ncmdline; i++)
		l->fill_ram |= !strcmp(l->cmdline[i], "init_on_free=1") || !strcmp(l->cmdline[i], "page_poison=1");
	l->bottom_up = below(&s, 5) == 0;
	l->fill_seed = next(&s);
	l->fill_kind = below(&s, 2);
	fit_memmap(l);
	for (i = 0; i < l->nodes; i++) {
		l->cpus_of_node[i] = below(&s, 2) ? 1 : 2 + below(&s, 3);
		l->sets |= l->cpus_of_node[i] > 1;
	}
	l->yield_every = l->sets && below(&s, 2) ? 1 + below(&s, 4) : 0;
	/* Now and then a guest whose firmware left memory unaccepted, accepted lazily or not. */
	if (!below(&s, 4) && l->ncmdline < 8) {
		n = 1 + below(&s, 3);
		for (i = 0; i < n; i++) {
			const struct lxt_range *r = &l->mem[below(&s, l->nmem)];

			start = (r->start + below(&s, r->end - r->start)) / LXT_UNIT_PAGES * LXT_UNIT_PAGES;
			size = LXT_UNIT_PAGES * (1 + below(&s, 2 + (r->end - r->start) / LXT_UNIT_PAGES));
			l->unaccepted[l->nunaccepted++] = (struct lxt_range){ start, start + size, r->nid };
		}
		if (!below(&s, 3))
			l->cmdline[l->ncmdline++] = "accept_memory=eager";
	}
}

/* The layout in a few lines, for a difference's report. */
void seq_print(FILE *f, const struct lxt_layout *l)
{
	int i;

	fprintf(f, "  zones: DMA below pfn %#lx, DMA32 below %#lx; nodes %d, threads", l->max_dma_pfn,
		l->max_dma32_pfn, l->nodes);
	for (i = 0; i < l->nodes; i++)
		fprintf(f, " %d", l->cpus_of_node[i]);
	fprintf(f, "\n  RAM (SRAT order):");
	for (i = 0; i < l->nmem; i++)
		fprintf(f, " [%#lx, %#lx) node %d", l->mem[i].start, l->mem[i].end, l->mem[i].nid);
	fprintf(f, "\n  reserved:");
	for (i = 0; i < l->nres; i++)
		fprintf(f, " [%#lx, %#lx)", l->res[i].start, l->res[i].end);
	fprintf(f, "\n  after memmap init, memblock allocates:");
	for (i = 0; i < l->nalloc; i++)
		fprintf(f, " %lu@%lu node %d%s", l->alloc[i].bytes, l->alloc[i].align, l->alloc[i].nid,
			l->alloc[i].raw ? " raw" : "");
	for (i = 0; i < l->nremove; i++)
		fprintf(f, "%s [%#lx, %#lx) leaves memblock.memory", i ? "," : ";", l->remove[i].start, l->remove[i].end);
	for (i = 0; i < l->nunaccepted; i++)
		fprintf(f, "%s [%#lx, %#lx)", i ? "," : "\n  unaccepted:", l->unaccepted[i].start, l->unaccepted[i].end);
	fprintf(f, "\n  parameters:");
	for (i = 0; i < l->ncmdline; i++)
		fprintf(f, " %s", l->cmdline[i]);
	fprintf(f, "%s%s; struct pages%s start as %s; %s\n", l->mobility_off ? " mobility grouping off" : "",
		l->bottom_up ? " memblock bottom-up" : "", l->fill_ram ? " and RAM" : "",
		l->fill_kind ? "a pattern" : "random bytes", l->sets ? "lists compared as sets" : "lists compared in order");
}
