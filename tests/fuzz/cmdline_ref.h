/* SPDX-License-Identifier: MIT */
/* The cmdline fuzz target's reference: kernel/cmdline.h's rules, written again plainly. */
#ifndef TESTS_FUZZ_CMDLINE_REF_H
#define TESTS_FUZZ_CMDLINE_REF_H

#include <stddef.h>

#include "kernel/cmdline.h"

/*
 * Applies line to opts as kernel/cmdline.h documents cmdline_parse(), each
 * option's value kept at its dst plus shift bytes (a copy of the state the
 * code under test writes). Returns 0, or -EINVAL with *bad the option whose
 * value is wrong; the options before it stay applied. Counts the words of
 * no known option in *unknown.
 */
int cmdline_reference(const char *line, const struct cmdline_opt *opts, size_t nopts,
                      ptrdiff_t shift, const struct cmdline_opt **bad, unsigned *unknown);

#endif
