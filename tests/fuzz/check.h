/* SPDX-License-Identifier: MIT */
/* What every fuzz target shares: how a broken invariant is reported. */
#ifndef TESTS_FUZZ_CHECK_H
#define TESTS_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reports a broken invariant as a crash, so libFuzzer keeps the input. */
#define CHECK(cond) do {                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__,      \
                    __LINE__, #cond);                                       \
            abort();                                                        \
        }                                                                   \
    } while (0)

/* A string a parser wrote into a buffer of size bytes ends inside it. */
static inline void check_string(const char *s, size_t size)
{
    CHECK(memchr(s, '\0', size) != NULL);
}

#endif
