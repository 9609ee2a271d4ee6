// SPDX-License-Identifier: MIT
/*
 * User half: Linux's memory init timed on this CPU. For each size, an
 * x86 machine of one node (RAM from 1 MiB to 3 GiB, the rest above
 * 4 GiB, the first MiB reserved) is booted once a run as each variant, the
 * variants' order alternating run by run, each boot in a fresh process
 * whose struct pages start as random bytes already in memory; the phases
 * are timed in CPU time of the threads that run them. Beside them, the
 * floor of the same bytes of struct pages written once, by memset() and
 * by non-temporal stores. One JSON line a measurement on stdout; the
 * harness makes the statistics.
 */
#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "lxt.h"
#include "u_child.h"
#include "u_seq.h"
#include "u_time.h"

#define PFN_4G (1UL << 20)
#define PFN_3G (3UL << 18)

/* A timing machine's seed, for a variant that is another binary: the size and the threads. */
#define TIME_SEED (1UL << 63)

static void layout_of(unsigned long gib, int threads, struct lxt_layout *l)
{
	unsigned long pages = gib << 18, low = pages < PFN_3G ? pages : PFN_3G;

	memset(l, 0, sizeof(*l));
	l->nodes = 1;
	l->cpus_of_node[0] = threads;
	l->max_dma_pfn = 4096;
	l->max_dma32_pfn = PFN_4G;
	l->mem[l->nmem++] = (struct lxt_range){ 0x100, low, 0 };
	if (pages > low)
		l->mem[l->nmem++] = (struct lxt_range){ PFN_4G, PFN_4G + pages - low, 0 };
	l->res[l->nres++] = (struct lxt_range){ 0, 0x100, -1 };
	l->fill_seed = 0x5eed;
	l->prefilled = 1;
}

void layout_of_seed(unsigned long seed, struct lxt_layout *l)
{
	if (seed & TIME_SEED)
		layout_of(seed >> 8 & 0xffff, seed & 0xff, l);
	else
		seq_layout(seed, l);
}

static unsigned long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000UL + ts.tv_nsec;
}

/* Non-temporal stores of zero over [p, p + bytes), 64 bytes a turn. */
static void nt_zero(void *p, unsigned long bytes)
{
	__m128i z = _mm_setzero_si128(), *q = p, *end = (__m128i *)((char *)p + bytes);

	for (; q < end; q += 4) {
		_mm_stream_si128(q, z);
		_mm_stream_si128(q + 1, z);
		_mm_stream_si128(q + 2, z);
		_mm_stream_si128(q + 3, z);
	}
	_mm_sfence();
}

/* The floors: the struct pages' bytes, in memory and random, written once each way. */
static void floors(unsigned long gib, int run, unsigned long pages)
{
	unsigned long bytes = pages * lxt_page_bytes(), t;
	unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("linuxmm: mmap for the floor");
		exit(2);
	}
	madvise(p, bytes, MADV_HUGEPAGE);
	lxt_host_fill(p, bytes, 0x5eed, 0);
	t = cpu_ns();
	memset(p, 0, bytes);
	t = cpu_ns() - t;
	printf("{\"type\": \"floor\", \"gib\": %lu, \"way\": \"memset\", \"run\": %d, \"pages\": %lu, \"ns\": %lu}\n",
	       gib, run, pages, t);
	lxt_host_fill(p, bytes, 0x5eed, 0);
	t = cpu_ns();
	nt_zero(p, bytes);
	t = cpu_ns() - t;
	printf("{\"type\": \"floor\", \"gib\": %lu, \"way\": \"non-temporal\", \"run\": %d, \"pages\": %lu, \"ns\": %lu}\n",
	       gib, run, pages, t);
	munmap(p, bytes);
}

int time_main(const unsigned long *gibs, int ngibs, int runs, char *const variants[2], int threads)
{
	struct run *r = new_run();
	struct lxt_layout l;
	int g, run, k, v;

	r->snapshots = 0;
	for (g = 0; g < ngibs; g++) {
		layout_of(gibs[g], threads, &l);
		for (run = 0; run < runs; run++) {
			for (k = 0; k < 2; k++) {
				v = (k + run) & 1;	/* each variant first in every other run */
				if (boot(&l, TIME_SEED | gibs[g] << 8 | threads, variants[v], r)) {
					fprintf(stderr, "linuxmm: %lu GiB, %s: %s\n", gibs[g], variants[v], r->msg);
					return 1;
				}
				printf("{\"type\": \"time\", \"gib\": %lu, \"variant\": \"%s\", \"run\": %d, \"threads\": %d, "
				       "\"pages\": %lu, \"memmap_ns\": %lu, \"free_all_ns\": %lu, \"deferred_ns\": %lu, "
				       "\"deferred_threads_ns\": %lu, \"deferred_wall_ns\": %lu}\n",
				       gibs[g], variants[v], run, threads, r->times.pages_freed, r->times.memmap_ns,
				       r->times.free_all_ns, r->times.deferred_ns, r->threads_cpu_ns,
				       r->times.deferred_wall_ns);
				fflush(stdout);
			}
			floors(gibs[g], run, r->times.pages_freed);
			fflush(stdout);
		}
	}
	return 0;
}
