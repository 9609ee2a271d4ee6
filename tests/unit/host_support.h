/* SPDX-License-Identifier: MIT */
/* Host stand-ins for kernel services, shared by the unit tests. */
#ifndef TESTS_UNIT_HOST_SUPPORT_H
#define TESTS_UNIT_HOST_SUPPORT_H

#include <setjmp.h>

/* When set, panic() records its message and longjmps here instead of aborting. */
extern jmp_buf *panic_jump;
extern char panic_message[256];

#endif
