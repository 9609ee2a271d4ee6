// SPDX-License-Identifier: MIT
/*
 * The host tester of Linux's memory init (`linux-src host-test`): each
 * sequence is a machine from a seed, booted once for each variant (an
 * early parameter, e.g. init_pages=stock and init_pages=sweep) in a child
 * process of its own, and what each left after memblock_free_all() and
 * after deferred init compared field by field and struct page by struct
 * page. A difference, or a run that fails, prints the seed, the machine
 * and the first differing field; --one SEED replays one sequence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lxt.h"
#include "u_host.h"
#include "u_child.h"
#include "u_seq.h"
#include "u_time.h"

static const char *name(const struct lxt_snap *s, const struct lxt_field *f)
{
	return s->names + f->what;
}

static void say_field(const char *side, const struct lxt_snap *s, const struct lxt_field *f)
{
	if (f)
		printf("    %-6s %s [%#lx, %#lx] = %#lx\n", side, name(s, f), f->k1, f->k2, f->value);
	else
		printf("    %-6s (no such field)\n", side);
}

/*
 * The first difference between two snapshots, printed -> 1 (2 when it is
 * in a section's digest: copies of the struct pages will find the word);
 * 0 when alike.
 */
static int compare(const struct lxt_snap *a, const struct lxt_snap *b, const char *va, const char *vb)
{
	unsigned long i, n = a->nfields < b->nfields ? a->nfields : b->nfields, w;
	const unsigned long *wa = (const void *)a->bytes, *wb = (const void *)b->bytes;

	for (i = 0; i < n; i++) {
		const struct lxt_field *fa = &a->fields[i], *fb = &b->fields[i];

		if (strcmp(name(a, fa), name(b, fb)) || fa->k1 != fb->k1 || fa->k2 != fb->k2 || fa->value != fb->value) {
			printf("  first difference, field %lu:\n", i);
			say_field(va, a, fa);
			say_field(vb, b, fb);
			return strstr(name(a, fa), "(digest)") ? 2 : 1;
		}
	}
	if (a->nfields != b->nfields) {
		printf("  first difference, field %lu:\n", n);
		say_field(va, a, n < a->nfields ? &a->fields[n] : NULL);
		say_field(vb, b, n < b->nfields ? &b->fields[n] : NULL);
		return 1;
	}
	if (!a->nbytes || !memcmp(wa, wb, a->nbytes))
		return 0;
	/* The copies hold the present sections in turn, as the fields list them. */
	for (w = 0; wa[w] == wb[w]; w++)
		;
	for (i = 0; i < n; i++) {
		const struct lxt_field *f = &a->fields[i];
		unsigned long words;

		if (strcmp(name(a, f), "present section"))
			continue;
		words = f->value * a->page_bytes / sizeof(long);
		if (w < words) {
			printf("  first difference: struct page of pfn %#lx, %s:\n    %-6s %#018lx\n    %-6s %#018lx\n",
			       f->k1 + w * sizeof(long) / a->page_bytes,
			       lxt_page_word_name(w % (a->page_bytes / sizeof(long))), va, wa[w], vb, wb[w]);
			return 1;
		}
		w -= words;
		wa += words;
		wb += words;
	}
	return 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: linuxmm [--sequences N] [--seed S] [--variants A,B] [--one SEED] [--show SEED] [--timeout S] [-v]\n"
			"       linuxmm --time GIB,... [--runs R] [--threads T] [--variants A,B]\n"
			"  A and B make the variants: an early parameter of this binary (- for none), or another tester\n"
			"  binary's path, with :PARAM after it or not (default init_pages=stock,init_pages=sweep)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long seed = 1, count = 100, s, done = 0, bad = 0, locks[2] = { 0, 0 };
	char *variants[2] = { "init_pages=stock", "init_pages=sweep" }, *comma;
	unsigned long gibs[16];
	int i, show = 0, ngibs = 0, runs = 5, threads = 1;
	struct lxt_layout l;
	time_t t0 = time(NULL);

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			host_verbose = 1;
		else if (!strcmp(argv[i], "--sequences") && i + 1 < argc)
			count = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--time") && i + 1 < argc) {
			char *p = argv[++i];

			do
				gibs[ngibs++] = strtoul(p, &p, 0);
			while (*p++ == ',' && ngibs < 16);
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--child") && i + 5 < argc && !strcmp(argv[i + 2], "--run-fd") &&
			 !strcmp(argv[i + 4], "--param")) {
			if (i + 7 < argc && !strcmp(argv[i + 6], "--timeout"))
				child_seconds = strtoul(argv[i + 7], NULL, 0);
			child_main(atoi(argv[i + 3]), strtoul(argv[i + 1], NULL, 0), argv[i + 5]);
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			child_seconds = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--one") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0), count = 1;
		else if (!strcmp(argv[i], "--show") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0), count = 1, show = 1;
		else if (!strcmp(argv[i], "--variants") && i + 1 < argc && (comma = strchr(argv[i + 1], ','))) {
			*comma = 0;
			variants[0] = argv[++i];
			variants[1] = comma + 1;
		} else
			usage();
	}
	if (ngibs)
		return time_main(gibs, ngibs, runs, variants, threads);
	if (show) {
		seq_layout(seed, &l);
		printf("seed %lu:\n", seed);
		seq_print(stdout, &l);
		return 0;
	}
	struct run *runs2[2] = { new_run(), new_run() };
	for (s = seed; s < seed + count; s++, done++) {
		int failed = 0, k;

		seq_layout(s, &l);
		for (k = 0; k < 2; k++) {
			if (boot(&l, s, variants[k], runs2[k])) {
				printf("seed %lu: %s failed: %s\n", s, variants[k], runs2[k]->msg);
				seq_print(stdout, &l);
				failed = 1;
				break;
			}
			locks[k] += runs2[k]->times.zone_locks;
		}
		for (k = 0; k < 2 && !failed; k++) {
			const char *when = k ? "after deferred init" : "after memblock_free_all()";
			char *said;
			size_t len;
			FILE *out = open_memstream(&said, &len), *was = stdout;
			int d;

			stdout = out;
			d = compare(&runs2[0]->snap[k], &runs2[1]->snap[k], "A", "B");
			stdout = was;
			fclose(out);
			if (d) {
				printf("seed %lu: %s and %s differ %s (A: %s, B: %s)\n", s, variants[0], variants[1],
				       when, variants[0], variants[1]);
				seq_print(stdout, &l);
				fputs(said, stdout);
			}
			free(said);
			if (!d)
				continue;
			failed = 1;
			if (d != 2)
				continue;
			/* Again with copies of the struct pages, to name the word. */
			copies(runs2[0], 1);
			copies(runs2[1], 1);
			if (!boot(&l, s, variants[0], runs2[0]) && !boot(&l, s, variants[1], runs2[1]) &&
			    !compare(&runs2[0]->snap[k], &runs2[1]->snap[k], "A", "B"))
				printf("  (booted again with copies, the two were alike: the difference comes and goes with the threads)\n");
			copies(runs2[0], 0);
			copies(runs2[1], 0);
		}
		bad += failed;
		if (failed && bad >= 3)
			break;
	}
	/* How often each took a zone's lock: that the variants took their own paths. */
	printf("linuxmm: zone locks taken: %lu by %s, %lu by %s\n", locks[0], variants[0], locks[1], variants[1]);
	printf("linuxmm: %lu sequences from seed %lu, %lu with a difference or a failure, %ld s\n", done, seed, bad,
	       (long)(time(NULL) - t0));
	return bad ? 1 : 0;
}
