/* SPDX-License-Identifier: MIT */
/* User half: one boot in a child process of its own (u_child.c). */
#ifndef LXT_U_CHILD_H
#define LXT_U_CHILD_H

#include "lxt.h"

/* What a child leaves in shared memory: its failure, snapshots and times. */
struct run {
	int fd;				/* the memfd all of this lives in */
	char msg[512];
	struct lxt_snap snap[2];	/* after memblock_free_all(), after deferred init */
	int snapshots;			/* 0: none are taken (timing) */
	struct lxt_times times;
	unsigned long threads_cpu_ns;	/* the CPU time of deferred init's threads */
};

extern unsigned int child_seconds;

struct run *new_run(void);
/* The snapshots pointed into the run's memory where this process mapped it. */
void run_attach(struct run *r);
/* Struct pages copied into the snapshots (to find a word), or digested. */
void copies(struct run *r, int on);
/* The direct map that layout l needs, in bytes. */
unsigned long phys_bytes_of(const struct lxt_layout *l);
/*
 * Boots the layout as `variant`, in a child -> 0, or 1 with r->msg. A
 * variant is an early parameter of this binary ("-" for none), or another
 * tester binary's path with ":PARAM" or none after it, which makes the
 * machine itself from `seed` (layout_of_seed()).
 */
int boot(const struct lxt_layout *layout, unsigned long seed, const char *variant, struct run *r);
/* The other side of such a boot: `--child SEED --run-fd FD --param P`. */
int child_main(int fd, unsigned long seed, const char *param) __attribute__((noreturn));
/* The machine of a seed: a random one (u_seq.c), or for the timing's seeds an x86 one (u_time.c). */
void layout_of_seed(unsigned long seed, struct lxt_layout *l);

#endif
