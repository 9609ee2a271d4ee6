/* SPDX-License-Identifier: MIT */
/* User half: one boot in a child process of its own (u_child.c). */
#ifndef LXT_U_CHILD_H
#define LXT_U_CHILD_H

#include "lxt.h"

/* What a child leaves in shared memory: its failure, snapshots and times. */
struct run {
	char msg[512];
	struct lxt_snap snap[2];	/* after memblock_free_all(), after deferred init */
	int snapshots;			/* 0: none are taken (timing) */
	struct lxt_times times;
	unsigned long threads_cpu_ns;	/* the CPU time of deferred init's threads */
};

extern unsigned int child_seconds;

struct run *new_run(void);
/* Struct pages copied into the snapshots (to find a word), or digested. */
void copies(struct run *r, int on);
/* The direct map that layout l needs, in bytes. */
unsigned long phys_bytes_of(const struct lxt_layout *l);
/* Boots the layout with `param` added, in a child -> 0, or 1 with r->msg. */
int boot(const struct lxt_layout *layout, const char *param, struct run *r);

#endif
