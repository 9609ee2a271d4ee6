/* SPDX-License-Identifier: MIT */
/* Host stand-ins for kernel services, shared by the unit tests. */
#ifndef TESTS_UNIT_HOST_SUPPORT_H
#define TESTS_UNIT_HOST_SUPPORT_H

#include <setjmp.h>

#include "mm/heap_par.h"

/* When set, panic() records its message and longjmps here instead of aborting. */
extern jmp_buf *panic_jump;
extern char panic_message[256];

/* The simulated CPUs of the parallel heap init: how many, and each one's node. */
extern unsigned host_par_cpus;
extern unsigned host_par_node[HEAP_PAR_MAX_CPUS];

#endif
