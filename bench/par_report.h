/* SPDX-License-Identifier: MIT */
/* The `par` record of a parallel init (docs/records.md). */
#ifndef BENCH_PAR_REPORT_H
#define BENCH_PAR_REPORT_H

#include "mm/heap_par.h"

/* Prints strategy's run-th parallel init: per worker and per node, pages and times. */
void par_record(const char *strategy, unsigned run, const struct heap_par_stats *st);

#endif
