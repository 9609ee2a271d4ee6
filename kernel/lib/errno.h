/* SPDX-License-Identifier: MIT */
/*
 * Errors. The one convention: a function that can fail returns 0 on success
 * and one of the numbers below, negated, on failure. When a caller needs to
 * say why, it passes a struct err, and the function that finds the problem
 * builds the message there, once, with err_set(); callers above it add
 * nothing and print or record e->msg as it is.
 */
#ifndef KERNEL_LIB_ERRNO_H
#define KERNEL_LIB_ERRNO_H

#include "kernel/lib/compiler.h"

#define EPERM   1       /* not allowed in this state */
#define ENOENT  2       /* nothing there */
#define E2BIG   7       /* more entries than the documented limit */
#define ENOMEM  12      /* out of memory */
#define EFAULT  14      /* an address that cannot be read */
#define ENODEV  19      /* a device that should be there is absent or dead */
#define EINVAL  22      /* malformed input, or a caller's mistake */
#define ENOSPC  28      /* a fixed-size table is full */
#define ERANGE  34      /* a value outside what is supported */
#define EPROTONOSUPPORT 93 /* a boot protocol version not supported */
#define ETIMEDOUT 110   /* a device or CPU did not answer in time */

/* Why a call failed, in words: filled by the code that found the problem. */
struct err {
    char msg[192];
};

/*
 * Formats the message into e (when e is not NULL) and returns code, a
 * negative errno: `return err_set(e, -EINVAL, "tag %u is cut short", i);`.
 */
__printf(3, 4) int err_set(struct err *e, int code, const char *fmt, ...);

#endif
