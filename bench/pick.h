/* SPDX-License-Identifier: MIT */
/* Which strategies and floors a benchmark runs: strategies= read against both registries. */
#ifndef BENCH_PICK_H
#define BENCH_PICK_H

#include "bench/series.h"
#include "kernel/lib/errno.h"

/*
 * The strategies strategies= names, in its order (all without it: Xen's,
 * then the peers whose page arrays were backed), into s[0..*n), and the
 * floors they need into f[0..*nf): Xen's, then each peer layout that runs;
 * eager strategies and floors on cpus CPUs. Returns 0, or -errno with e
 * naming the option's fault (an unknown or repeated name, a peer whose page
 * array did not fit).
 */
int bench_pick(struct series *s, unsigned *n, struct series *f, unsigned *nf, unsigned cpus, struct err *e);

#endif
